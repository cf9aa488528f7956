"""Extract the CRD schemas `validate` checks custom resources against, per release: every CRD
of Volcano, of Kubeflow's training-operator (v1: PyTorchJob, TFJob, MPIJob, ... PaddleJob), of
Kubeflow Trainer v2 and of JobSet, and the released paddle-operator's own PaddleJob CRD, which
the tests hold our API against.

    python -m generator.tools.thirdparty_extract --volcano GIT_DIR --kubeflow GIT_DIR --trainer GIT_DIR \
        --jobset GIT_DIR --paddle-operator GIT_DIR

GIT_DIR is a clone (bare is fine) of the project's repository (PROJECTS below) with its release
tags. For the newest patch release of each minor version listed, every CRD file in the
project's CRD folder is read at its tag, and the openAPIV3Schema of each version it serves is
written, as the project publishes it, to schemas/thirdparty/PROJECT/MAJOR.MINOR/KIND_VERSION.json.gz;
SOURCES.json records repository, tag, commit, path and the SHA-256 of each file read, and so
which kinds each release has (thirdparty.kinds). The output is committed (as schemas/kubernetes/
is), so `validate` needs neither git nor a network.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

from generator.core.kinds import PROJECTS as REGISTRY_PROJECTS
from generator.core.paths import SCHEMA_DIR

THIRDPARTY = SCHEMA_DIR / "thirdparty"

# project -> (repository, releases, the folder of its CRD files at each tag): the registry's
# projects this extractor reads (core/kinds.py PROJECTS; gateway_extract.py reads Gateway API's)
PROJECTS = {p.name: (p.repository, list(p.releases), p.crd_folder) for p in REGISTRY_PROJECTS if p.repository}


def file_name(api_version: str, kind: str) -> str:
    return f"{kind.lower()}_{api_version.rsplit('/', 1)[-1]}.json.gz"


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, check=True).stdout


def newest_patch(repo: Path, major: int, minor: int) -> str | None:
    tags = _git(repo, "tag", "--list", f"v{major}.{minor}.*").decode().split()
    releases = [t for t in tags if re.fullmatch(rf"v{major}\.{minor}\.\d+", t)]
    return max(releases, key=lambda t: int(t.rsplit(".", 1)[1]), default=None)


def served_schemas(crd: dict) -> list[tuple[str, str, dict]]:
    """(apiVersion, kind, openAPIV3Schema) of each version a CRD serves (apiextensions v1, or
    v1beta1 with one schema for all versions)."""
    spec = crd["spec"]
    group, kind = spec["group"], spec["names"]["kind"]
    shared = (spec.get("validation") or {}).get("openAPIV3Schema")
    versions = spec.get("versions") or [{"name": spec["version"], "served": True}]
    out = []
    for version in versions:
        if not version.get("served", True):
            continue
        schema = (version.get("schema") or {}).get("openAPIV3Schema", shared)
        if schema is None:
            raise SystemExit(f"{crd['metadata']['name']} {version['name']}: no openAPIV3Schema")
        out.append((f"{group}/{version['name']}", kind, schema))
    return out


def extract(project: str, repo: Path) -> list[dict]:
    url, minors, folder_at_tag = PROJECTS[project]
    sources = []
    for major, minor in minors:
        tag = newest_patch(repo, major, minor)
        if tag is None:
            print(f"{project}: no release {major}.{minor}", file=sys.stderr)
            continue
        commit = _git(repo, "rev-list", "-n", "1", tag).decode().strip()
        folder = THIRDPARTY / project / f"{major}.{minor}"
        folder.mkdir(parents=True, exist_ok=True)
        written: set[str] = set()
        for path in _git(repo, "ls-tree", "-r", "--name-only", tag, folder_at_tag).decode().split():
            if not path.endswith((".yaml", ".yml")):
                continue
            raw = _git(repo, "show", f"{tag}:{path}")
            crd = yaml.safe_load(raw)
            if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
                continue  # kustomization.yaml
            for api_version, kind, schema in served_schemas(crd):
                name = file_name(api_version, kind)
                if name in written:
                    raise SystemExit(f"{project} {tag}: two CRDs write {name}")
                written.add(name)
                data = json.dumps(schema, sort_keys=True, separators=(",", ":")).encode()
                (folder / name).write_bytes(gzip.compress(data, mtime=0))
                sources.append(
                    {
                        "project": project,
                        "release": f"{major}.{minor}",
                        "apiVersion": api_version,
                        "kind": kind,
                        "scope": crd["spec"].get("scope", "Namespaced"),
                        "repository": url,
                        "tag": tag,
                        "commit": commit,
                        "path": path,
                        "sha256": hashlib.sha256(raw).hexdigest(),
                    }
                )
    return sources


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for project in PROJECTS:
        parser.add_argument(f"--{project}", type=Path, required=True, metavar="GIT_DIR")
    args = parser.parse_args(argv)
    sources = [source for project in PROJECTS for source in extract(project, getattr(args, project.replace("-", "_")))]
    # the entries of the projects this extractor does not write (gateway_extract.py's) are kept
    path = THIRDPARTY / "SOURCES.json"
    kept = [s for s in json.loads(path.read_text()) if s["project"] not in PROJECTS] if path.exists() else []
    path.write_text(json.dumps(sources + kept, indent=1) + "\n")
    print(f"wrote {len(sources)} schemas under {THIRDPARTY}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
