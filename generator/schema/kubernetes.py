"""The Kubernetes API definitions of every supported release, read from schemas/kubernetes/.

A version is written "1.N"; ``known_versions()`` lists the ones extracted by
``generator.tools.kube_extract``.  Everything is cached per process: a render reads
each version's file at most once.

`validate` needs only an index of a release's kinds and the closure of the few kinds it
meets: those are kept on disk between runs (schemacache), so a run over a few built-in objects
reads a few small files instead of the release's whole document (a tenth of a small file's time).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import orjson

from generator.core.errors import InputError
from generator.core.paths import KUBE_SCHEMA_DIR
from generator.core.versions import KubeVersion
from generator.schema import cache as schemacache

_VERSION = re.compile(r"^v?1\.(\d+)(?:\.\d+)?$")


class UnknownVersionError(InputError, ValueError):
    pass


def parse_version(text) -> KubeVersion:
    """'1.16' (or 'v1.16.3', or a KubeVersion) -> KubeVersion 1.16 (core/versions.py)."""
    try:
        return KubeVersion.parse(text)
    except InputError as err:
        raise UnknownVersionError(str(err)) from None


def version_name(minor: int) -> str:
    return str(KubeVersion(minor))


@functools.cache
def known_versions() -> tuple[int, ...]:
    minors = []
    for path in KUBE_SCHEMA_DIR.glob("v1.*.json.gz"):
        if not path.name.endswith(".descriptions.json.gz"):
            minors.append(parse_version(path.name[: -len(".json.gz")]))
    if not minors:
        raise FileNotFoundError(f"no Kubernetes definitions under {KUBE_SCHEMA_DIR}; run `make kube-schemas`")
    return tuple(sorted(minors))


def newest() -> KubeVersion:
    """The newest release this tool knows: the default of every --kube-version and API call."""
    return known_versions()[-1]


def require_known(minor) -> KubeVersion:
    """``minor`` (a KubeVersion, "1.N" or N) as a release this tool knows, or UnknownVersionError."""
    minor = parse_version(minor)
    if minor not in known_versions():
        first, last = known_versions()[0], known_versions()[-1]
        raise UnknownVersionError(
            f"Kubernetes {version_name(minor)} is not known here; known: {version_name(first)} ... {version_name(last)}"
        )
    return minor


def list_objects(documents: list) -> list:
    """The objects of ``documents`` as kubectl reads them: a list kind (any kind ending in List,
    with items: `v1 List`, what `kubectl get -o yaml` and `-o json` print) stands for its items."""
    out = []
    for doc in documents:
        if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
            out += list_objects(doc["items"])
        else:
            out.append(doc)
    return out


def _read(name: str) -> dict:
    import gzip  # here: a run with a warm schema cache reads no release file

    return orjson.loads(gzip.decompress((KUBE_SCHEMA_DIR / name).read_bytes()))


def _release_file(minor: int) -> Path:
    return KUBE_SCHEMA_DIR / f"v{version_name(require_known(minor))}.json.gz"


def _from_release(name: str, minor: int, derive):
    """What ``derive`` makes of release ``minor``'s definitions: made from them when this process
    asked for them anyway, else kept on disk from an earlier run (by the release's file and
    this module, which holds the adjustments definitions() makes)."""
    if minor in _ASKED:
        return derive()
    return schemacache.cached(f"{name}-{version_name(minor)}", [_release_file(minor), Path(__file__)], derive)


_ASKED: set[int] = set()  # releases whose definitions a caller of definitions() asked for


def definitions(minor: int) -> dict:
    """Every definition of release ``minor``, by name (read once per process)."""
    _ASKED.add(minor)
    return _definitions(minor)


@functools.cache
def _definitions(minor: int) -> dict:
    defs = _read(_release_file(minor).name)["definitions"]
    _tighten_schema_unions(defs)
    # A Quantity decodes from a JSON string or any JSON number on every release (its
    # UnmarshalJSON); the documents of 1.24 and before say string or integer, which made
    # `cpu: 0.5` a false error there.
    quantity = "io.k8s.apimachinery.pkg.api.resource.Quantity"
    if quantity in defs:
        defs[quantity] = {"oneOf": [{"type": "string"}, {"type": "number"}]}
    for name, fields in NOT_REQUIRED.items():
        required = (defs.get(name) or {}).get("required")
        if isinstance(required, list):
            defs[name]["required"] = [field for field in required if field not in fields]
    return defs


# Fields the OpenAPI documents list as required (a Go field without omitempty is "required"
# there) that the apiserver does not require: a missing one decodes to its zero value, which
# defaulting fills or validation accepts (pkg/apis/<group>/validation).
NOT_REQUIRED = {
    # validateHTTPHeaders checks a header's name only; an empty value is a header without one
    "io.k8s.api.core.v1.HTTPHeader": ("value",),
    # validateSysctls checks names (and duplicates) only
    "io.k8s.api.core.v1.Sysctl": ("value",),
    # SetDefaults_RoleBinding / _ClusterRoleBinding (pkg/apis/rbac/v1/defaults.go) set
    # rbac.authorization.k8s.io; the documents of 1.31 to 1.35 list apiGroup as required
    "io.k8s.api.rbac.v1.RoleRef": ("apiGroup",),
    # never required by ValidateStatefulSetSpec; the documents up to 1.32 said so
    # (kubernetes/kubernetes#130233 made the marker optional)
    "io.k8s.api.apps.v1.StatefulSetSpec": ("serviceName",),
}


def _tighten_schema_unions(defs: dict) -> None:
    """Say what the apiserver accepts where the OpenAPI document says "anything".

    Kubernetes publishes JSONSchemaPropsOrArray, -OrBool and -OrStringArray as
    empty schemas because their Go types decode by hand.  Left empty, nothing
    under `items` or `additionalProperties` of a CRD schema would be checked.
    """
    for name in list(defs):
        prefix, _, short = name.rpartition(".")
        props = {"$ref": f"#/definitions/{prefix}.JSONSchemaProps"}
        if short == "JSONSchemaPropsOrArray":
            defs[name] = {"if": {"type": "array"}, "then": {"items": props}, "else": props}
        elif short == "JSONSchemaPropsOrBool":
            defs[name] = {"if": {"type": "boolean"}, "else": props}
        elif short == "JSONSchemaPropsOrStringArray":
            defs[name] = {"if": {"type": "array"}, "then": {"items": {"type": "string"}}, "else": props}


@functools.cache
def descriptions(minor: int) -> dict:
    return _read(f"v{version_name(require_known(minor))}.descriptions.json.gz")


def _api_version(gvk: dict) -> str:
    return f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]


@functools.cache
def kinds(minor: int) -> dict[tuple[str, str], str]:
    """(apiVersion, kind) -> definition name, for every top-level kind a release serves."""
    rows = _from_release("kinds", minor, lambda: [[*key, name] for key, name in _kinds(minor).items()])
    return {(api_version, kind): name for api_version, kind, name in rows}


def _kinds(minor: int) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    hidden = NOT_SERVED.get(minor, frozenset())
    for name, schema in _definitions(minor).items():  # sorted by name since the extraction
        if "properties" not in schema:
            continue  # old releases keep deprecated aliases that only hold a $ref
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            if (_api_version(gvk), gvk["kind"]) not in hidden:
                found.setdefault((_api_version(gvk), gvk["kind"]), name)
    return found


# Kinds a release's OpenAPI document still defines but its apiserver no longer serves by
# default: 1.16 stopped serving these (the 1.16 release notes, "the following APIs are no
# longer served by default"; a cluster had to re-enable them with --runtime-config), and 1.18
# removed them from the code and the documents.
_STOPPED_IN_16 = frozenset(
    (group, kind)
    for group, kinds_ in (
        ("apps/v1beta1", ("Deployment", "StatefulSet", "ControllerRevision")),
        ("apps/v1beta2", ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ControllerRevision")),
        ("extensions/v1beta1", ("Deployment", "DaemonSet", "ReplicaSet", "NetworkPolicy", "PodSecurityPolicy")),
    )
    for kind in kinds_
)
NOT_SERVED = {16: _STOPPED_IN_16, 17: _STOPPED_IN_16}


@functools.cache
def _served_data() -> dict:
    return orjson.loads((KUBE_SCHEMA_DIR / "served.json").read_bytes())


@functools.cache
def off_by_default(minor: int) -> frozenset[tuple[str, str]]:
    """(apiVersion, kind) pairs release ``minor`` defines but a default kube-apiserver does not
    serve: alpha versions, and from 1.24 the beta ones KEP-3136 leaves off (schemas/kubernetes/
    served.json, written by tools/extractors.served_document from DefaultAPIResourceConfigSource).
    A cluster serves them only with --runtime-config=GROUP/VERSION=true on the apiserver."""
    entry = _served_data()["releases"].get(version_name(require_known(minor)))
    if entry is None:
        raise UnknownVersionError(
            f"schemas/kubernetes/served.json has no entry for Kubernetes {version_name(minor)}: "
            "run generator.tools.extractors.served_document for it"
        )
    return frozenset((api_version, kind) for api_version, kinds_ in entry["disabled"].items() for kind in kinds_)


def served_basis(minor: int) -> str:
    """How served.json decided ``minor``: "source" (its DefaultAPIResourceConfigSource was read)
    or "policy" (alpha off; from 1.24 a beta kind new since 1.24 off, as KEP-3136 and that code say)."""
    return _served_data()["releases"][version_name(require_known(minor))]["basis"]


def served_kinds(minor: int) -> set[tuple[str, str]]:
    """The (apiVersion, kind) pairs a default apiserver of release ``minor`` serves."""
    return set(kinds(minor)) - off_by_default(minor)


def ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


@functools.cache
def closure(minor: int, root: str) -> dict:
    """The definitions reachable from ``root`` (itself included), by name; shared by every
    caller: read it, do not change it."""
    return _from_release(f"closure-{root}", minor, lambda: _closure(minor, root))


def _closure(minor: int, root: str) -> dict:
    defs = _definitions(minor)
    seen: dict[str, dict] = {}
    stack = [root]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen[name] = defs[name]
        stack.extend(_direct_refs(minor, name))
    return dict(sorted(seen.items()))


_REF = re.compile(rb'"\$ref":"#/definitions/([^"]+)"')


@functools.cache
def _direct_refs(minor: int, name: str) -> frozenset[str]:
    # the compact JSON text holds every $ref: a regex over it is much faster than walking the tree
    return frozenset(m.decode() for m in _REF.findall(orjson.dumps(_definitions(minor)[name])))


def schema_props(minor: int, apiextensions: str) -> set[str]:
    """The fields a CRD schema node may carry on that release (JSONSchemaProps)."""
    name = f"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.{apiextensions}.JSONSchemaProps"
    defs = definitions(minor)
    if name not in defs:
        raise UnknownVersionError(
            f"Kubernetes {version_name(minor)} does not serve apiextensions.k8s.io/{apiextensions}"
        )
    return set(defs[name]["properties"])


def crd_spec_fields(minor: int, apiextensions: str) -> set[str]:
    name = f"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.{apiextensions}.CustomResourceDefinitionSpec"
    return set(definitions(minor)[name]["properties"])


# Tanka's order: what others need comes first.
KIND_ORDER = [
    "Namespace",
    "CustomResourceDefinition",
    "ServiceAccount",
    "ClusterRole",
    "Role",
    "ClusterRoleBinding",
    "RoleBinding",
    "ConfigMap",
    "Secret",
    "Service",
    "Deployment",
    "NetworkPolicy",
]


def apply_order(obj: dict) -> tuple:
    """Sort key: the order `kubectl apply -f` needs (a namespace before what lives in it)."""
    kind = obj.get("kind", "")
    rank = KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return rank, str(kind), str(meta.get("namespace") or ""), str(meta.get("name") or "")
