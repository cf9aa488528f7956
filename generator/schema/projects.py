"""The CRD schemas of the projects whose custom resources `validate` knows, per release, as the
projects publish them: Volcano, Kubeflow's training-operator (all its v1 kinds), Kubeflow
Trainer v2, JobSet and Gateway API (and the released paddle-operator's PaddleJob CRD, for the
tests).

Extracted by thirdparty_extract.py (gateway_extract.py for Gateway API) into
schemas/thirdparty/PROJECT/MAJOR.MINOR/ (SOURCES.json records each file's tag, commit and
SHA-256, and so which kinds each release has). `validate --volcano-version 1.N`
(--kubeflow-version, --trainer-version, --jobset-version, --gateway-api-version) picks a release;
the default is the newest.

Gateway API publishes each release in two channels (https://gateway-api.sigs.k8s.io/concepts/
versioning/): standard (config/crd/standard) and experimental (config/crd/experimental: the
standard kinds with more fields and versions, and kinds of their own: TCPRoute, UDPRoute, the
gateway.networking.x-k8s.io group). A cluster has one channel's CRDs installed, so a release of
gateway-api names its channel: `1.3` is the standard channel (folder 1.3/), `1.3-experimental`
the experimental one (folder 1.3-experimental/, a ChannelRelease); the default is the newest
release's standard channel, as the project's install guide installs by default.

Gateway API objects are judged by the CRDs alone, as a cluster from 1.1 on does: the schema and
its CEL rules (validate/crd/cel.py; transition rules need the old object and run on updates
only). Not modelled: v1.0's optional validating webhook (webhook-install.yaml, pkg/admission,
removed in v1.1: checks of v1alpha2/v1beta1/v1 routes and gateways that the CEL rules mostly
repeat), and what implementations report in status rather than refuse (an HTTPS listener
without tls, a certificateRef to a Secret that does not exist, a parentRef to no Gateway).
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


CHANNELED = frozenset(p.name for p in PROJECTS if p.channels)  # releases in channels (ChannelRelease)
EXPERIMENTAL = "experimental"


class ChannelRelease(Release):
    """A release of a project's experimental channel (Gateway API 1.3-experimental): the pair
    (major, minor) of its Release, unequal to the standard channel's release of the same number
    (so caches and lookups keep them apart), sorted after it, printed with its channel."""

    def __new__(cls, major: int, minor: int, channel: str = EXPERIMENTAL) -> ChannelRelease:
        self = tuple.__new__(cls, (int(major), int(minor)))
        self.channel = channel
        return self

    def __getnewargs__(self) -> tuple[int, int, str]:
        return (self[0], self[1], self.channel)

    def _key(self) -> tuple[int, int, int]:
        return (self[0], self[1], 1)

    def __eq__(self, other) -> bool:
        return isinstance(other, ChannelRelease) and self._key() == other._key() and self.channel == other.channel

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((self[0], self[1], self.channel))

    def __lt__(self, other) -> bool:
        return self._key() < _sort_key(other)

    def __le__(self, other) -> bool:
        return self._key() <= _sort_key(other)

    def __gt__(self, other) -> bool:
        return self._key() > _sort_key(other)

    def __ge__(self, other) -> bool:
        return self._key() >= _sort_key(other)

    def __str__(self) -> str:
        return f"{self[0]}.{self[1]}-{self.channel}"

    def __repr__(self) -> str:
        return f"ChannelRelease('{self}')"


def _sort_key(release) -> tuple[int, int, int]:
    return (release[0], release[1], 1 if isinstance(release, ChannelRelease) else 0)


def folder_name(release: tuple[int, int]) -> str:
    """The folder of ``release`` under schemas/thirdparty/PROJECT/ and its name in SOURCES.json:
    1.3, or 1.3-experimental for a ChannelRelease."""
    channel = getattr(release, "channel", None)
    return f"{release[0]}.{release[1]}" + (f"-{channel}" if channel else "")


@functools.cache
def kinds(project: str, release: tuple[int, int]) -> frozenset[tuple[str, str]]:
    """(apiVersion, kind) of every CRD version ``project`` serves in ``release``."""
    name = folder_name(release)
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
    name = f"{NAMES.get(project, project)} {release[0]}.{release[1]}"
    if project in CHANNELED:
        name += f" ({getattr(release, 'channel', None) or 'standard'} channel)"
    return name


class UnknownReleaseError(InputError, ValueError):
    pass


@functools.cache
def releases(project: str) -> tuple[Release, ...]:
    found = []
    suffix = f"-{EXPERIMENTAL}"
    for folder in (THIRDPARTY / project).iterdir():
        number, channel = folder.name, None
        if project in CHANNELED and number.endswith(suffix):
            number, channel = number.removesuffix(suffix), EXPERIMENTAL
        major, _, minor = number.partition(".")
        if folder.is_dir() and major.isdigit() and minor.isdigit():
            found.append(ChannelRelease(int(major), int(minor)) if channel else Release(int(major), int(minor)))
    return tuple(sorted(found, key=_sort_key))


def newest(project: str) -> Release:
    """The newest release of ``project`` whose CRDs this tool has: the default of --NAME-version
    (of a project with channels, the newest release's standard channel)."""
    return [r for r in releases(project) if not isinstance(r, ChannelRelease)][-1]


def parse_release(project: str, text) -> Release:
    """'1.9', 'v1.9.2' (or a Release) -> Release 1.9 (core/versions.py), one we have the CRDs of.
    A project with channels also takes '1.3-experimental' (v1.3.0-experimental) and
    'experimental' (the newest release's experimental channel): a ChannelRelease."""
    channel, given = None, text
    if project in CHANNELED and isinstance(text, str):
        stripped = text.strip()
        if stripped == EXPERIMENTAL:
            return [r for r in releases(project) if isinstance(r, ChannelRelease)][-1]
        if stripped.endswith(f"-{EXPERIMENTAL}"):
            text, channel = stripped.removesuffix(f"-{EXPERIMENTAL}"), EXPERIMENTAL
        elif stripped.endswith("-standard"):
            text = stripped.removesuffix("-standard")
    try:
        release = Release.parse(text)
    except InputError as err:
        raise UnknownReleaseError(str(err)) from None
    if channel is not None:
        release = ChannelRelease(release.major, release.minor, channel)
    if release not in releases(project):
        known = ", ".join(str(r) for r in releases(project))
        raise UnknownReleaseError(f"{project} {given} is not one this tool has the CRDs of ({known})")
    return release


@functools.cache
def schema(api_version: str, kind: str, release: tuple[int, int]) -> dict:
    """The openAPIV3Schema of (apiVersion, kind) in its project's ``release``."""
    return project_schema(all_kinds()[(api_version, kind)], api_version, kind, release)


def project_schema(project: str, api_version: str, kind: str, release: tuple[int, int]) -> dict:
    """The openAPIV3Schema of (apiVersion, kind) as ``project`` published it in ``release``."""
    name = f"{kind.lower()}_{api_version.rsplit('/', 1)[-1]}.json.gz"
    path = THIRDPARTY / project / folder_name(release) / name
    import gzip  # here: a run with a warm schema cache reads no project's file

    return orjson.loads(gzip.decompress(path.read_bytes()))
