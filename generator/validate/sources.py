"""Where the schema of a kind comes from: one small interface for every source, composed in one
place (kubectl-validate's resolver chain, pkg/openapiclient: the first source that knows a kind
answers).

The sources, in the order they are asked:

1. the built-in kinds of the targeted Kubernetes release (kubernetes.py: the release's definitions);
2. the user's CRDs (`validate --crd PATH`), so a user's own CRD of a kind wins over the ones
   shipped here (their Volcano, their release of a CRD);
3. the custom resources this project knows (validate.CUSTOM_KINDS): our own PaddleJob API and the
   Volcano and Kubeflow CRDs of the chosen release (thirdparty.py).

A source answers `lookup(apiVersion, kind)` with a Schema, or None; a custom Schema builds the
CustomResourceValidator the checker compiles once per kind and run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple, Protocol

from generator.core.errors import Error
from generator.core.grammar import lazy_pattern
from generator.core.versions import KubeVersion
from generator.kubeyaml import load
from generator.schema import crd as crdschema
from generator.schema import kubernetes
from generator.schema import projects as thirdparty
from generator.validate import discover
from generator.validate.crd.validator import CustomResourceValidator


class Schema(NamedTuple):
    """What a source knows of a kind: built in (checked by kubevalidate.py against the
    release's definitions), or a custom resource's openAPIV3Schema (loaded when first needed)."""

    origin: str  # for messages: "Kubernetes 1.35", "--crd crds/foo.yaml", "volcano 1.12"
    openapi: Callable[[], dict] | None = None  # None: a built-in kind
    served: bool = True  # a CRD version with `served: false`: the kind exists, the version is not served
    status_subresource: bool = False  # a create cannot set status (it is dropped before validation)

    @property
    def builtin(self) -> bool:
        return self.openapi is None


class Source(Protocol):
    def lookup(self, api_version: str, kind: str) -> Schema | None: ...

    def kinds(self) -> Iterable[tuple[str, str]]: ...


class BuiltinSource:
    def __init__(self, minor: int):
        self.minor = minor
        self._schema = Schema(f"Kubernetes {KubeVersion(minor)}")

    def lookup(self, api_version: str, kind: str) -> Schema | None:
        return self._schema if (api_version, kind) in kubernetes.kinds(self.minor) else None

    def kinds(self) -> Iterable[tuple[str, str]]:
        return kubernetes.kinds(self.minor)


class ProjectSource:
    """The custom resources this project knows: ``kinds`` maps (apiVersion, kind) to our API file
    (a Path: the CRD is derived for the target release) or a project name (its CRD of a release)."""

    def __init__(self, kinds: dict, target: crdschema.Target, releases: Mapping[str, tuple[int, int]]):
        self._kinds = kinds
        self._target = target
        self._releases = releases

    def lookup(self, api_version: str, kind: str) -> Schema | None:
        source = self._kinds.get((api_version, kind))
        if source is None:
            return None
        if isinstance(source, str):
            release = self._releases[source]
            return Schema(
                f"{source} {thirdparty.folder_name(release)}", lambda: thirdparty.schema(api_version, kind, release)
            )
        return Schema("paddle-operator", lambda: crdschema.openapi_schema(self._target, path=source))

    def kinds(self) -> Iterable[tuple[str, str]]:
        return self._kinds


class CrdLoadError(Error, ValueError):
    """A --crd path that cannot be read, or holds no CustomResourceDefinition."""


class CrdSource:
    """The CustomResourceDefinitions of files, folders (their manifests, recursively) and
    multi-document install manifests; documents of other kinds in them are skipped. Each file is
    read once, and one CrdSource serves a whole run. A CRD's document is only indexed by its group
    and kind at first (a scan of its first lines); it is parsed when an object of that group and
    kind comes, so twenty CRDs of which two are used cost two parses."""

    def __init__(self, paths: list[str]):
        self.paths = list(paths)
        self._versions: dict[tuple[str, str], Schema] = {}
        self._pending: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (group, kind) -> [(text, file)]
        self._catalog: dict[tuple[str, str], Schema] = {}  # (apiVersion, kind in lower case): catalog files
        self.crds = 0
        for path in paths:
            if not Path(path).exists():
                raise CrdLoadError(f"{path}: no such file or folder")
            found = discover.find([path])
            before = self.crds
            for name in found.files:
                self._read(name)
            if self.crds == before:
                raise CrdLoadError(f"{path}: holds no CustomResourceDefinition")

    def _read(self, name: str) -> None:
        try:
            with open(name, "rb") as stream:
                text = stream.read().decode("utf-8")
        except OSError as err:
            raise CrdLoadError(f"{name}: cannot read the file: {err.strerror}") from None
        except UnicodeDecodeError:
            raise CrdLoadError(f"{name}: not UTF-8 text") from None
        if name.endswith(".json") and "CustomResourceDefinition" not in text:
            self._catalog_schema(name, text)
            return
        for document in _DOCUMENT_SEPARATOR().split(text):
            if "CustomResourceDefinition" not in document:
                continue
            key = _scan(document)
            if key is None:  # another layout (JSON, a List, flow style): parsed now
                self._parse(document, name)
            else:
                self.crds += 1
                self._pending.setdefault(key, []).append((document, name))

    def _catalog_schema(self, name: str, text: str) -> None:
        """A JSON Schema laid out as the CRD catalogs lay them out (datreeio/CRDs-catalog,
        kubeconform's openapi2jsonschema): GROUP/KIND_VERSION.json, the kind in lower case, the
        schema the CRD's openAPIV3Schema. Other JSON files are not CRDs: passed over."""
        path = Path(name)
        match = _CATALOG_FILE().fullmatch(path.name)
        group = path.parent.name
        if match is None or "." not in group:
            return
        import json

        try:
            schema = json.loads(text)
        except ValueError as err:
            raise CrdLoadError(f"{name}: not JSON: {err}") from None
        if not isinstance(schema, dict) or ("properties" not in schema and "type" not in schema):
            return
        kind, version = match.groups()
        self.crds += 1
        self._catalog[(f"{group}/{version}", kind)] = Schema(
            f"--crd {name}",
            _constant(_openapi(schema)),
            served=True,
            status_subresource="status" in schema.get("properties", {}),
        )

    def _parse(self, text: str, origin: str, counted: bool = False) -> None:
        # read as kubectl reads it (load): `=` is a string there, not YAML 1.1's value tag
        documents = []
        for document in load.iter_documents(text):
            if document.data is None and document.problems:
                problem = document.problems[0]
                raise CrdLoadError(f"{origin}: line {problem.line}: {problem.message}")
            documents.append(document.data)
        for crd in kubernetes.list_objects(documents):
            if isinstance(crd, dict) and crd.get("kind") == "CustomResourceDefinition":
                self._add(crd, origin, counted)

    def _resolve(self, group: str | None = None, kind: str | None = None) -> None:
        """Parse the pending CRDs of (group, kind) (None: all of them)."""
        keys = list(self._pending) if group is None else [(group, kind)]
        for key in keys:
            for text, origin in self._pending.pop(key, []):
                self._parse(text, origin, counted=True)

    def _add(self, crd: dict, origin: str, counted: bool = False) -> None:
        spec = crd.get("spec") if isinstance(crd.get("spec"), dict) else {}
        group = spec.get("group")
        kind = (spec.get("names") or {}).get("kind") if isinstance(spec.get("names"), dict) else None
        if not isinstance(group, str) or not isinstance(kind, str):
            raise CrdLoadError(f"{origin}: a CustomResourceDefinition without spec.group or spec.names.kind")
        if not counted:
            self.crds += 1
        shared = (
            (spec.get("validation") or {}).get("openAPIV3Schema") if isinstance(spec.get("validation"), dict) else None
        )
        versions = spec.get("versions") if isinstance(spec.get("versions"), list) else []
        if not versions and isinstance(spec.get("version"), str):  # apiextensions v1beta1, one version
            versions = [{"name": spec["version"], "served": True}]
        for version in versions:
            if not isinstance(version, dict) or not isinstance(version.get("name"), str):
                continue
            schema = (
                ((version.get("schema") or {}).get("openAPIV3Schema"))
                if isinstance(version.get("schema"), dict)
                else None
            )
            schema = (
                schema
                if isinstance(schema, dict)
                else shared
                if isinstance(shared, dict)
                else {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
            )
            subresources = version.get("subresources", spec.get("subresources"))
            self._versions[(f"{group}/{version['name']}", kind)] = Schema(
                f"--crd {origin}",
                _constant(schema),
                served=version.get("served", True) is not False,
                status_subresource=isinstance(subresources, dict) and "status" in subresources,
            )

    def lookup(self, api_version: str, kind: str) -> Schema | None:
        self._resolve(api_version.rpartition("/")[0], kind)
        found = self._versions.get((api_version, kind))
        if found is None and self._catalog and isinstance(kind, str):
            found = self._catalog.get((api_version, kind.lower()))
        return found

    def kinds(self) -> Iterable[tuple[str, str]]:
        self._resolve()
        return [key for key, schema in self._versions.items() if schema.served] + list(self._catalog)

    def versions_of(self, api_version: str, kind: str) -> list[str]:
        """The served apiVersions of ``kind`` in the group of ``api_version`` (a version of
        a CRD's group it does not serve is "no matches for kind" to kubectl)."""
        group = api_version.rpartition("/")[0]
        self._resolve(group, kind)
        return sorted(
            av
            for (av, k), schema in [*self._versions.items(), *self._catalog.items()]
            if schema.served and k in (kind, kind.lower()) and av.rpartition("/")[0] == group
        )


_CATALOG_FILE = lazy_pattern(r"([a-z0-9]+)_(v[0-9]+(?:(?:alpha|beta)[0-9]+)?)\.json")


def _openapi(schema):
    """A catalog's JSON Schema as the openAPIV3Schema it was made from: no `$schema`, and no
    `additionalProperties: false` beside `properties` (which openapi2jsonschema's strict mode
    adds, and a structural schema may not hold: unknown fields are errors here anyway)."""
    if isinstance(schema, list):
        return [_openapi(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "$schema" or (key == "additionalProperties" and value is False and "properties" in schema):
            continue
        out[key] = _openapi(value) if key != "enum" and key != "default" else value
    return out


# kubectl's YAML reader splits a stream at lines that start with `---`
_DOCUMENT_SEPARATOR = lazy_pattern(r"^---(?:[ \t].*)?$", re.MULTILINE)
_CRD_KIND = lazy_pattern(r"^kind:[ \t]*([\"']?)CustomResourceDefinition\1[ \t]*$", re.MULTILINE)
_SCALAR = r"[ \t]*([\"']?)([A-Za-z0-9][-A-Za-z0-9.]*)\{0}[ \t]*(?:#.*)?$"
_GROUP = lazy_pattern(r"group:" + _SCALAR.format(1))
_KIND = lazy_pattern(r"kind:" + _SCALAR.format(1))


def _scan(text: str) -> tuple[str, str] | None:
    """(spec.group, spec.names.kind) of a CRD in block style, from its lines; None when the
    document has another layout (then it is parsed whole)."""
    if not _CRD_KIND().search(text):
        return None
    spec = re.search(r"^spec:[ \t]*$", text, re.MULTILINE)
    if spec is None:
        return None
    group = kind = None
    indent = names = None
    for line in text[spec.end() + 1 :].splitlines():
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        width = len(line) - len(stripped)
        if width == 0:
            break  # the end of spec
        if indent is None:
            indent = width
        if width == indent:
            names = width if stripped.rstrip() == "names:" else None
            match = _GROUP().fullmatch(stripped)
            group = match.group(2) if match else group
        elif names is not None and width > names:
            match = _KIND().fullmatch(stripped)
            kind = match.group(2) if match else kind
        if group and kind:
            return group, kind
    return None


def _constant(value: dict) -> Callable[[], dict]:
    return lambda: value


class Schemas:
    """The sources composed: the first that knows a kind answers; each kind is looked up and each
    custom kind's validator compiled once (per Schemas, that is per run)."""

    def __init__(self, sources: list[Source], minor: int):
        self.sources = sources
        self.minor = minor
        self._found: dict[tuple[str, str], Schema | None] = {}
        self._validators: dict[tuple[str, str], CustomResourceValidator] = {}

    def lookup(self, api_version: str, kind: str) -> Schema | None:
        key = (api_version, kind)
        if key not in self._found:
            answers = (source.lookup(api_version, kind) for source in self.sources)
            self._found[key] = next((found for found in answers if found is not None), None)
        return self._found[key]

    def kinds(self) -> list[tuple[str, str]]:
        return [key for source in self.sources for key in source.kinds()]

    def validator(self, api_version: str, kind: str) -> CustomResourceValidator:
        key = (api_version, kind)
        if key not in self._validators:
            schema = self.lookup(api_version, kind)
            if schema is None or schema.builtin:
                raise KeyError(f"{api_version} {kind} is not a custom resource known here")
            self._validators[key] = CustomResourceValidator(
                schema.openapi(), strict=True, minor=self.minor, status_subresource=schema.status_subresource
            )
        return self._validators[key]


def compose(
    minor: int,
    project_kinds: dict,
    target: crdschema.Target,
    releases: Mapping[str, tuple[int, int]],
    crds: CrdSource | None = None,
) -> Schemas:
    """The one place the sources are put together, in the order the module's docstring gives."""
    sources: list[Source] = [BuiltinSource(minor)]
    if crds is not None:
        sources.append(crds)
    sources.append(ProjectSource(project_kinds, target, releases))
    return Schemas(sources, minor)
