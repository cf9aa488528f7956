"""From schemas/paddlejob.v1.yaml to the openAPIV3Schema of one CRD target.

The hand-written API file references Kubernetes types (``$ref:
kubernetes#/definitions/NAME``).  Here each reference becomes a structural
schema derived from the Kubernetes definitions of the target release, the way
controller-gen does it for Go types:

- IntOrString and Quantity become ``x-kubernetes-int-or-string`` (Quantity
  keeps its pattern), Time a date-time string;
- an embedded ObjectMeta keeps labels, annotations, name, namespace and
  finalizers (controller-gen's generateEmbeddedObjectMeta), otherwise the
  apiserver would prune the pod labels;
- list and map markers are kept where Kubernetes declares them;
- a schema field is only written when the oldest release of the target knows
  it (read from that release's JSONSchemaProps, not from a hand-kept table), so
  a v1beta1 CRD for Kubernetes 1.11 carries no ``x-kubernetes-*`` at all.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import NamedTuple

from generator.core.errors import Error
from generator.core.paths import KUBE_SCHEMA_DIR, PADDLEJOB_SCHEMA
from generator.schema import cache as schemacache
from generator.schema import kubernetes

# apiextensions.k8s.io/v1 is served from Kubernetes 1.16; v1beta1 bundles are for the releases before.
FIRST_V1 = 16

KUBE_REF = "kubernetes#/definitions/"
LOCAL_REF = "#/definitions/"

QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)

# Defaults the Kubernetes API documents for list-map keys that are not required.
# A v1 CRD must give such a key a default (the apiserver enforces it since 1.18);
# these are the values controller-gen writes from the +default markers of k8s.io/api.
LIST_MAP_KEY_DEFAULTS = {
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.LocalObjectReference", "name"): "",
}

# Formats the apiextensions apiserver understands; any other is dropped.
CRD_FORMATS = {"int32", "int64", "float", "double", "byte", "date", "date-time", "duration", "uuid", "uri", "email"}

# Keys copied from a Kubernetes definition node as they are (when the target knows them).
_COPIED = ("enum", "pattern", "minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength", "required")
_MARKERS = ("x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type")


class Target(NamedTuple):
    """One CRD flavour: an apiextensions version for a range of Kubernetes releases."""

    apiextensions: str  # "v1" or "v1beta1"
    min_minor: int  # oldest release served: decides which schema fields may appear
    max_minor: int  # newest release served: the pod template is derived from it

    @property
    def allowed(self) -> frozenset[str]:
        return _schema_props(self.min_minor, self.apiextensions)

    @property
    def defaults(self) -> bool:
        # v1beta1 forbids `default`; v1 accepts it on every release that serves v1.
        return self.apiextensions == "v1" and "default" in self.allowed

    @property
    def int_or_string(self) -> bool:
        return "x-kubernetes-int-or-string" in self.allowed


@functools.cache
def _schema_props(minor: int, apiextensions: str) -> frozenset[str]:
    """The fields a CRD schema may use on release ``minor`` (Target.allowed)."""
    return frozenset(kubernetes.schema_props(minor, apiextensions))


class SchemaError(Error, ValueError):
    pass


@functools.cache
def api_source(path: Path = PADDLEJOB_SCHEMA) -> dict:
    """An API file: group, version, names, openAPIV3Schema and its local definitions."""
    import yaml  # here: validate reads these files from the schema cache

    with open(path, encoding="utf-8") as fh:
        source = yaml.load(fh, Loader=yaml.CSafeLoader)
    source["_file"] = path.name
    return source


def openapi_schema(target: Target, keep_descriptions: bool = False, path: Path = PADDLEJOB_SCHEMA) -> dict:
    """The openAPIV3Schema of the CRD described by ``path`` (PaddleJob by default) for ``target``.
    Without descriptions (what validate checks with) it is kept on disk between runs (schemacache)."""
    if keep_descriptions:
        return _derive(target, True, path)
    definitions = KUBE_SCHEMA_DIR / f"v{kubernetes.version_name(target.max_minor)}.json.gz"
    name = f"openapi-{path.stem}-{target.apiextensions}-{target.min_minor}-{target.max_minor}"
    inputs = [path, definitions, Path(__file__), Path(kubernetes.__file__)]
    return schemacache.cached(name, inputs, lambda: _derive(target, False, path))


def _derive(target: Target, keep_descriptions: bool, path: Path) -> dict:
    source = api_source(path)
    builder = _Builder(target, keep_descriptions, source.get("definitions", {}), source["_file"])
    return builder.local(source["openAPIV3Schema"])


class _Builder:
    def __init__(self, target: Target, keep_descriptions: bool, local_defs: dict, file_name: str):
        self.file_name = file_name
        self.target = target
        self.keep = keep_descriptions
        self.local_defs = local_defs
        self.defs = kubernetes.definitions(target.max_minor)
        self.texts = kubernetes.descriptions(target.max_minor) if keep_descriptions else {}

    # -- the hand-written part -------------------------------------------------
    def local(self, node: dict) -> dict:
        ref = node.get("$ref")
        if ref is not None:
            if ref.startswith(KUBE_REF):
                out = self.kubernetes(ref[len(KUBE_REF) :], stack=())
            elif ref.startswith(LOCAL_REF):
                out = self.local(self.local_defs[ref[len(LOCAL_REF) :]])
            else:
                raise SchemaError(f"{self.file_name}: unknown $ref {ref!r}")
            if self.keep and "description" in node:
                out["description"] = node["description"]
            return out
        out = {}
        for key, value in node.items():
            if key == "description" and not self.keep:
                continue
            if key == "properties":
                out[key] = {name: self.local(sub) for name, sub in value.items()}
            elif key in ("items", "additionalProperties") and isinstance(value, dict):
                out[key] = self.local(value)
            else:
                out[key] = copy.deepcopy(value)
        return self._gate(out)

    # -- the part derived from Kubernetes ---------------------------------------
    def kubernetes(self, name: str, stack: tuple[str, ...]) -> dict:
        if name in stack:
            raise SchemaError(f"{' -> '.join(stack + (name,))}: a recursive type cannot be a structural schema")
        special = self._special(name)
        if special is not None:
            return special
        return self.node(self.defs[name], name, stack + (name,))

    def _special(self, name: str) -> dict | None:
        short = name.rsplit(".", 1)[-1]
        if name == "io.k8s.apimachinery.pkg.util.intstr.IntOrString":
            return self._int_or_string()
        if name == "io.k8s.apimachinery.pkg.api.resource.Quantity":
            return {**self._int_or_string(), "pattern": QUANTITY_PATTERN}
        if name.startswith("io.k8s.apimachinery.pkg.apis.meta.v1.") and short in ("Time", "MicroTime"):
            return {"type": "string", "format": "date-time"}
        if name == "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta":
            return self._embedded_object_meta()
        if short in ("RawExtension", "JSON"):
            if "x-kubernetes-preserve-unknown-fields" in self.target.allowed:
                return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
            return {"type": "object"}
        return None

    def _int_or_string(self) -> dict:
        out = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
        if self.target.int_or_string:
            out["x-kubernetes-int-or-string"] = True
        return out

    def _embedded_object_meta(self) -> dict:
        string_map = {"type": "object", "additionalProperties": {"type": "string"}}
        return {
            "type": "object",
            "properties": {
                "annotations": string_map,
                "finalizers": {"type": "array", "items": {"type": "string"}},
                "labels": copy.deepcopy(string_map),
                "name": {"type": "string"},
                "namespace": {"type": "string"},
            },
        }

    def node(self, schema: dict, owner: str | None, stack: tuple[str, ...]) -> dict:
        if "$ref" in schema:
            return self.kubernetes(kubernetes.ref_name(schema["$ref"]), stack)
        out: dict = {}
        kind = _single_type(schema.get("type"))
        if kind is None and "properties" in schema:
            kind = "object"
        if kind is not None:
            out["type"] = kind
        fmt = schema.get("format")
        if fmt in CRD_FORMATS:
            out["format"] = fmt
        for key in _COPIED:
            if key in schema:
                out[key] = copy.deepcopy(schema[key])
        if "properties" in schema:
            texts = self.texts.get(owner, {}) if owner else {}
            props = {}
            for prop, sub in schema["properties"].items():
                child = self.node(sub, None, stack)
                if self.keep and texts.get(prop):
                    child["description"] = texts[prop]
                props[prop] = child
            out["properties"] = props
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            out["additionalProperties"] = self.node(extra, None, stack)
        if "items" in schema:
            out["items"] = self.node(schema["items"], None, stack)
        for marker in _MARKERS:
            if marker in schema:
                out[marker] = copy.deepcopy(schema[marker])
        if out.get("x-kubernetes-list-type") == "map":
            self._list_map_keys(out, schema)
        return self._gate(out)

    def _list_map_keys(self, out: dict, schema: dict) -> None:
        """A list-map key must be required, or (v1 only) have a default; else drop the markers."""
        item_ref = schema.get("items", {}).get("$ref")
        item_def = kubernetes.ref_name(item_ref) if item_ref else None
        item = out["items"]
        required = set(item.get("required", []))
        for key in out.get("x-kubernetes-list-map-keys", []):
            if key in required:
                continue
            owner = _defining_type(self.defs, item_def, key)
            default = LIST_MAP_KEY_DEFAULTS.get((owner, key))
            if self.target.defaults and default is not None:
                item["properties"][key]["default"] = default
            else:
                out.pop("x-kubernetes-list-type", None)
                out.pop("x-kubernetes-list-map-keys", None)
                return

    def _gate(self, out: dict) -> dict:
        """Drop the fields the oldest target release does not know."""
        for key in [k for k in out if k not in self.target.allowed]:
            del out[key]
        return out


def _single_type(value) -> str | None:
    if isinstance(value, list):
        kinds = [v for v in value if v != "null"]
        return kinds[0] if len(kinds) == 1 else None
    return value


def _defining_type(defs: dict, item_def: str | None, key: str) -> str | None:
    """ContainerPort defines `protocol` itself; ImagePullSecrets' item is LocalObjectReference."""
    if item_def is None:
        return None
    schema = defs[item_def]
    if "$ref" in schema:
        return _defining_type(defs, kubernetes.ref_name(schema["$ref"]), key)
    return item_def


def capabilities(target: Target) -> dict:
    """What the oldest release of the target supports, read from its API definitions."""
    pod_security = kubernetes.definitions(target.min_minor)["io.k8s.api.core.v1.PodSecurityContext"]
    return {
        "preserveUnknownFields": "preserveUnknownFields"
        in kubernetes.crd_spec_fields(target.min_minor, target.apiextensions),
        "seccompProfile": "seccompProfile" in pod_security["properties"],
    }


def spec_enums() -> dict[str, list]:
    """spec's fields that take one of a list of values, with the values: what the job library
    and `job`'s flags offer (cleanPodPolicy, intranet, withGloo)."""
    spec = api_source()["openAPIV3Schema"]["properties"]["spec"]["properties"]
    return {name: field["enum"] for name, field in sorted(spec.items()) if "enum" in field}


def api_data(target: Target, keep_descriptions: bool = False) -> dict:
    """Everything the jsonnet CRD needs about the PaddleJob API for ``target``."""
    source = api_source()
    columns = source["printerColumns"]
    if not keep_descriptions:
        columns = [{k: v for k, v in column.items() if k != "description"} for column in columns]
    return {
        "group": source["group"],
        "version": source["version"],
        "names": source["names"],
        "scope": source["scope"],
        "printerColumns": columns,
        "openAPIV3Schema": openapi_schema(target, keep_descriptions),
        "target": {
            "apiextensions": target.apiextensions,
            "kubeVersions": {
                "min": kubernetes.version_name(target.min_minor),
                "max": kubernetes.version_name(target.max_minor),
            },
        },
        "capabilities": capabilities(target),
    }
