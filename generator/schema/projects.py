"""The CRD schemas of the projects whose custom resources `validate` knows, per release, as the
projects publish them: Volcano, Kubeflow's training-operator (all its v1 kinds), Kubeflow
Trainer v2 and JobSet (and the released paddle-operator's PaddleJob CRD, for the tests).

Extracted by thirdparty_extract.py into schemas/thirdparty/PROJECT/MAJOR.MINOR/ (SOURCES.json
records each file's tag, commit and SHA-256, and so which kinds each release has).
`validate --volcano-version 1.N` (--kubeflow-version, --trainer-version, --jobset-version)
picks a release; the default is the newest.
"""

from __future__ import annotations

import functools

import orjson

from generator.core.errors import InputError
from generator.core.kinds import PROJECTS
from generator.core.paths import SCHEMA_DIR
from generator.core.versions import Release

THIRDPARTY = SCHEMA_DIR / "thirdparty"
# the projects whose CRDs check custom resources (paddle-operator's is only held against ours)
VALIDATED = tuple(project.name for project in PROJECTS if project.validated)
NAMES = {project.name: project.title for project in PROJECTS}


@functools.cache
def _sources() -> tuple[dict, ...]:
    return tuple(orjson.loads((THIRDPARTY / "SOURCES.json").read_bytes()))


@functools.cache
def kinds(project: str, release: tuple[int, int]) -> frozenset[tuple[str, str]]:
    """(apiVersion, kind) of every CRD version ``project`` serves in ``release``."""
    name = f"{release[0]}.{release[1]}"
    found = [s for s in _sources() if s["project"] == project and s["release"] == name]
    return frozenset((s["apiVersion"], s["kind"]) for s in found)


@functools.cache
def all_kinds() -> dict[tuple[str, str], str]:
    """(apiVersion, kind) -> the project whose CRDs define it, in any release we have."""
    return {(s["apiVersion"], s["kind"]): s["project"] for s in _sources() if s["project"] in VALIDATED}


@functools.cache
def groups() -> frozenset[str]:
    """The API groups the projects' CRDs define kinds in."""
    return frozenset(api_version.rpartition("/")[0] for api_version, _ in all_kinds())


def release_name(project: str, release: tuple[int, int]) -> str:
    return f"{NAMES.get(project, project)} {release[0]}.{release[1]}"


class UnknownReleaseError(InputError, ValueError):
    pass


@functools.cache
def releases(project: str) -> tuple[Release, ...]:
    found = []
    for folder in (THIRDPARTY / project).iterdir():
        major, _, minor = folder.name.partition(".")
        if folder.is_dir() and major.isdigit() and minor.isdigit():
            found.append(Release(int(major), int(minor)))
    return tuple(sorted(found))


def newest(project: str) -> Release:
    """The newest release of ``project`` whose CRDs this tool has: the default of --NAME-version."""
    return releases(project)[-1]


def parse_release(project: str, text) -> Release:
    """'1.9', 'v1.9.2' (or a Release) -> Release 1.9 (core/versions.py), one we have the CRDs of."""
    try:
        release = Release.parse(text)
    except InputError as err:
        raise UnknownReleaseError(str(err)) from None
    if release not in releases(project):
        known = ", ".join(str(r) for r in releases(project))
        raise UnknownReleaseError(f"{project} {text} is not one this tool has the CRDs of ({known})")
    return release


@functools.cache
def schema(api_version: str, kind: str, release: tuple[int, int]) -> dict:
    """The openAPIV3Schema of (apiVersion, kind) in its project's ``release``."""
    return project_schema(all_kinds()[(api_version, kind)], api_version, kind, release)


def project_schema(project: str, api_version: str, kind: str, release: tuple[int, int]) -> dict:
    """The openAPIV3Schema of (apiVersion, kind) as ``project`` published it in ``release``."""
    name = f"{kind.lower()}_{api_version.rsplit('/', 1)[-1]}.json.gz"
    path = THIRDPARTY / project / f"{release[0]}.{release[1]}" / name
    import gzip  # here: a run with a warm schema cache reads no project's file

    return orjson.loads(gzip.decompress(path.read_bytes()))
