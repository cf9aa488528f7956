"""Extract the Gateway API CRD schemas `validate` checks Gateway API objects against, per release
and channel (kubernetes-sigs/gateway-api: gateway.networking.k8s.io and, in the experimental
channel, gateway.networking.x-k8s.io).

    python -m generator.tools.gateway_extract GIT_DIR

GIT_DIR is a clone (bare is fine) of https://github.com/kubernetes-sigs/gateway-api with its
release tags. For the newest patch release of each minor version from 1.0, every CRD of
config/crd/standard/ and config/crd/experimental/ is read at its tag (the files the release's
standard-install.yaml and experimental-install.yaml are made of), and the openAPIV3Schema of each
version it serves is written, as the project publishes it, to
schemas/thirdparty/gateway-api/MAJOR.MINOR/ (standard channel) and
schemas/thirdparty/gateway-api/MAJOR.MINOR-experimental/ (experimental channel). The entries of
project gateway-api in schemas/thirdparty/SOURCES.json are replaced (the other projects' are kept):
tag, commit, path and the SHA-256 of each file read, and the channel.

Documents of those folders that are not CRDs are skipped: kustomization.yaml, and from 1.5 the
ValidatingAdmissionPolicy safe-upgrades.gateway.networking.k8s.io, which judges CRD installs
(an experimental CRD over a standard one, a bundle older than 1.5), not Gateway API objects.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from pathlib import Path

import yaml

from generator.tools.thirdparty_extract import THIRDPARTY, _git, file_name, newest_patch, served_schemas

PROJECT = "gateway-api"
REPOSITORY = "https://github.com/kubernetes-sigs/gateway-api"
FIRST = (1, 0)  # v1.0.0 (October 2023): the first GA release; older ones are v0.x betas
CHANNELS = {"standard": "", "experimental": "-experimental"}  # channel -> suffix of its release folder


def minors(repo: Path) -> list[tuple[int, int]]:
    """Every MAJOR.MINOR from FIRST with a final release tag vX.Y.Z in ``repo``."""
    found = set()
    for tag in _git(repo, "tag", "--list", "v*.*.*").decode().split():
        parts = tag[1:].split(".")
        if len(parts) == 3 and all(p.isdigit() for p in parts):
            found.add((int(parts[0]), int(parts[1])))
    return sorted(m for m in found if m >= FIRST)


def extract(repo: Path) -> list[dict]:
    sources = []
    for major, minor in minors(repo):
        tag = newest_patch(repo, major, minor)
        commit = _git(repo, "rev-list", "-n", "1", tag).decode().strip()
        for channel, suffix in CHANNELS.items():
            release = f"{major}.{minor}{suffix}"
            folder = THIRDPARTY / PROJECT / release
            folder.mkdir(parents=True, exist_ok=True)
            for old in folder.glob("*.json.gz"):
                old.unlink()
            written: set[str] = set()
            listed = _git(repo, "ls-tree", "-r", "--name-only", tag, f"config/crd/{channel}").decode().split()
            for path in sorted(listed):
                if not path.endswith((".yaml", ".yml")):
                    continue
                raw = _git(repo, "show", f"{tag}:{path}")
                for crd in yaml.safe_load_all(raw):
                    if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
                        continue
                    for api_version, kind, schema in served_schemas(crd):
                        name = file_name(api_version, kind)
                        if name in written:
                            raise SystemExit(f"{PROJECT} {tag} {channel}: two CRDs write {name}")
                        written.add(name)
                        data = json.dumps(schema, sort_keys=True, separators=(",", ":")).encode()
                        (folder / name).write_bytes(gzip.compress(data, mtime=0))
                        sources.append(
                            {
                                "project": PROJECT,
                                "release": release,
                                "apiVersion": api_version,
                                "kind": kind,
                                "scope": crd["spec"].get("scope", "Namespaced"),
                                "repository": REPOSITORY,
                                "tag": tag,
                                "commit": commit,
                                "path": path,
                                "sha256": hashlib.sha256(raw).hexdigest(),
                                "channel": channel,
                            }
                        )
            if not written:
                raise SystemExit(f"{PROJECT} {tag}: no CRD under config/crd/{channel}")
    return sources


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("git_dir", type=Path, metavar="GIT_DIR")
    args = parser.parse_args(argv)
    path = THIRDPARTY / "SOURCES.json"
    kept = [s for s in json.loads(path.read_text()) if s["project"] != PROJECT]
    found = extract(args.git_dir)
    path.write_text(json.dumps(kept + found, indent=1) + "\n")
    print(f"wrote {len(found)} Gateway API schemas under {THIRDPARTY / PROJECT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
