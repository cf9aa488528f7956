"""The Volcano and Kubeflow CRD schemas, per release, as the projects publish them (and the
released paddle-operator's PaddleJob CRD, for the tests).

Extracted by thirdparty_extract.py into schemas/thirdparty/PROJECT/1.N/ (SOURCES.json records
each file's tag, commit and SHA-256). `validate --volcano-version 1.N` / `--kubeflow-version 1.N`
picks a release; the default is the newest.
"""

from __future__ import annotations

import functools
import gzip

import orjson

from .paths import SCHEMA_DIR

THIRDPARTY = SCHEMA_DIR / "thirdparty"
# (apiVersion, kind) -> the project whose CRD defines it
KINDS = {
    ("batch.volcano.sh/v1alpha1", "Job"): "volcano",
    ("scheduling.volcano.sh/v1beta1", "PodGroup"): "volcano",
    ("scheduling.volcano.sh/v1beta1", "Queue"): "volcano",
    ("kubeflow.org/v1", "PaddleJob"): "kubeflow",
}


class UnknownReleaseError(ValueError):
    pass


@functools.cache
def releases(project: str) -> tuple[tuple[int, int], ...]:
    found = []
    for folder in (THIRDPARTY / project).iterdir():
        major, _, minor = folder.name.partition(".")
        if folder.is_dir() and major.isdigit() and minor.isdigit():
            found.append((int(major), int(minor)))
    return tuple(sorted(found))


def newest(project: str) -> tuple[int, int]:
    return releases(project)[-1]


def parse_release(project: str, text: str) -> tuple[int, int]:
    """'1.9', 'v1.9.2' -> (1, 9), a release we have the CRDs of."""
    major, _, rest = text.strip().removeprefix("v").partition(".")
    minor = rest.partition(".")[0]
    if not (major.isdigit() and minor.isdigit()):
        raise UnknownReleaseError(f"expected a release like 1.9, got {text!r}")
    release = (int(major), int(minor))
    if release not in releases(project):
        known = ", ".join(f"{a}.{b}" for a, b in releases(project))
        raise UnknownReleaseError(f"{project} {text} is not one this tool has the CRDs of ({known})")
    return release


@functools.cache
def schema(api_version: str, kind: str, release: tuple[int, int]) -> dict:
    """The openAPIV3Schema of (apiVersion, kind) in its project's ``release``."""
    return project_schema(KINDS[(api_version, kind)], api_version, kind, release)


def project_schema(project: str, api_version: str, kind: str, release: tuple[int, int]) -> dict:
    """The openAPIV3Schema of (apiVersion, kind) as ``project`` published it in ``release``."""
    name = f"{kind.lower()}_{api_version.rsplit('/', 1)[-1]}.json.gz"
    path = THIRDPARTY / project / f"{release[0]}.{release[1]}" / name
    return orjson.loads(gzip.decompress(path.read_bytes()))
