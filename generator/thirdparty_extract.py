"""Extract the Volcano and Kubeflow CRD schemas `validate` checks against, per release, and the
released paddle-operator's own PaddleJob CRD, which the tests hold our API against.

    python -m generator.thirdparty_extract --volcano GIT_DIR --kubeflow GIT_DIR --paddle-operator GIT_DIR

GIT_DIR is a clone (bare is fine) of github.com/volcano-sh/volcano,
github.com/kubeflow/training-operator or github.com/PaddleFlow/paddle-operator with its
release tags. For the newest patch release of
each minor version listed below, the CRD files are read at their tag, their openAPIV3Schema
taken as the projects publish it, and written to schemas/thirdparty/PROJECT/1.N/KIND_VERSION.json.gz;
SOURCES.json records repository, tag, commit, path and the SHA-256 of each file read. The output
is committed (as schemas/kubernetes/ is), so `validate` needs neither git nor a network.
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

from .paths import SCHEMA_DIR

THIRDPARTY = SCHEMA_DIR / "thirdparty"

# project -> (repository, minor versions, {(apiVersion, kind): CRD file at the tag})
PROJECTS = {
    "volcano": (
        "https://github.com/volcano-sh/volcano",
        [(1, m) for m in range(6, 16)],
        {
            ("batch.volcano.sh/v1alpha1", "Job"): "installer/helm/chart/volcano/crd/bases/batch.volcano.sh_jobs.yaml",
            ("scheduling.volcano.sh/v1beta1", "PodGroup"): (
                "installer/helm/chart/volcano/crd/bases/scheduling.volcano.sh_podgroups.yaml"
            ),
            ("scheduling.volcano.sh/v1beta1", "Queue"): (
                "installer/helm/chart/volcano/crd/bases/scheduling.volcano.sh_queues.yaml"
            ),
        },
    ),
    "kubeflow": (
        "https://github.com/kubeflow/training-operator",
        [(1, m) for m in range(6, 10)],
        {("kubeflow.org/v1", "PaddleJob"): "manifests/base/crds/kubeflow.org_paddlejobs.yaml"},
    ),
    # not a validation source (schemas/paddlejob.v1.yaml is ours): tests/test_crd.py checks that
    # our API serves every field of the released operator's CRD
    "paddle-operator": (
        "https://github.com/PaddleFlow/paddle-operator",
        [(0, 3)],
        {("batch.paddlepaddle.org/v1", "PaddleJob"): "config/crd/bases/batch.paddlepaddle.org_paddlejobs.yaml"},
    ),
}


def file_name(api_version: str, kind: str) -> str:
    return f"{kind.lower()}_{api_version.rsplit('/', 1)[-1]}.json.gz"


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, check=True).stdout


def newest_patch(repo: Path, major: int, minor: int) -> str | None:
    tags = _git(repo, "tag", "--list", f"v{major}.{minor}.*").decode().split()
    releases = [t for t in tags if re.fullmatch(rf"v{major}\.{minor}\.\d+", t)]
    return max(releases, key=lambda t: int(t.rsplit(".", 1)[1]), default=None)


def schema_of(crd_text: bytes, api_version: str) -> dict:
    crd = yaml.safe_load(crd_text)
    version = api_version.rsplit("/", 1)[-1]
    for served in crd["spec"]["versions"]:
        if served["name"] == version:
            return served["schema"]["openAPIV3Schema"]
    raise SystemExit(f"{crd['metadata']['name']}: no version {version}")


def extract(project: str, repo: Path) -> list[dict]:
    url, minors, files = PROJECTS[project]
    sources = []
    for major, minor in minors:
        tag = newest_patch(repo, major, minor)
        if tag is None:
            print(f"{project}: no release {major}.{minor}", file=sys.stderr)
            continue
        commit = _git(repo, "rev-list", "-n", "1", tag).decode().strip()
        folder = THIRDPARTY / project / f"{major}.{minor}"
        folder.mkdir(parents=True, exist_ok=True)
        for (api_version, kind), path in files.items():
            raw = _git(repo, "show", f"{tag}:{path}")
            data = json.dumps(schema_of(raw, api_version), sort_keys=True, separators=(",", ":")).encode()
            (folder / file_name(api_version, kind)).write_bytes(gzip.compress(data, mtime=0))
            sources.append(
                {
                    "project": project,
                    "release": f"{major}.{minor}",
                    "apiVersion": api_version,
                    "kind": kind,
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
    parser.add_argument("--volcano", type=Path, required=True, metavar="GIT_DIR")
    parser.add_argument("--kubeflow", type=Path, required=True, metavar="GIT_DIR")
    parser.add_argument("--paddle-operator", type=Path, required=True, metavar="GIT_DIR")
    args = parser.parse_args(argv)
    sources = [
        *extract("volcano", args.volcano),
        *extract("kubeflow", args.kubeflow),
        *extract("paddle-operator", args.paddle_operator),
    ]
    (THIRDPARTY / "SOURCES.json").write_text(json.dumps(sources, indent=1) + "\n")
    print(f"wrote {len(sources)} schemas under {THIRDPARTY}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
