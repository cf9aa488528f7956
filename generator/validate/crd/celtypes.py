"""The types a CRD's x-kubernetes-validations rules are type-checked with when the CRD is created.

The apiextensions apiserver compiles each rule with `self` (and `oldSelf`) typed by the schema
node it is attached to (apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go
ValidateCustomResourceDefinitionOpenAPISchema: `cel.Compile(typeInfo.Schema, typeInfo.DeclType,
...)`, the DeclType from k8s.io/apiserver pkg/cel/common/schemas.go SchemaDeclType), so a rule
that selects a property the schema does not have fails: "compilation failed: ERROR: <input>:1:6:
undefined field 'foo'". cel-cpp's Python binding declares variables of protobuf message types
only, so each object node of the schema becomes a message of a descriptor pool made here, as
SchemaDeclType makes a DeclType of it:

- x-kubernetes-int-or-string: dyn (google.protobuf.Value);
- the root of the resource and each x-kubernetes-embedded-resource: apiVersion and kind strings,
  metadata with name and generateName only (WithTypeAndObjectMeta), besides its properties;
- array: a list of its items' type (no items, or items of no type: the field is not exposed);
- object: a map of its additionalProperties' type, else a message of its properties under their
  escaped names (a name no rule can spell is left out); x-kubernetes-preserve-unknown-fields
  exposes no unknown field (the declared ones only);
- string: bytes, duration or timestamp for the formats byte, duration, date and date-time;
  boolean, number (double), integer (int);
- anything else (no type): not exposed, so a rule that selects it fails as there.

A list of lists and a map of maps become google.protobuf.ListValue and Struct (list(dyn) and
map(string, dyn)): what is below them is not checked. Only the "undefined field" errors of such
a compilation are reported (structural.py): other type errors depend on overloads (heterogeneous
numeric comparisons, the libraries' declared types) this environment does not declare as the
apiserver's does.
"""

from __future__ import annotations

import itertools

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, descriptor_pool, duration_pb2, struct_pb2, timestamp_pb2

from generator.core.grammar import CEL_RESERVED_WORDS
from generator.validate.crd.cel import escaped

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "int": (_F.TYPE_INT64, None, cel.Type.INT),
    "double": (_F.TYPE_DOUBLE, None, cel.Type.DOUBLE),
    "bool": (_F.TYPE_BOOL, None, cel.Type.BOOL),
    "string": (_F.TYPE_STRING, None, cel.Type.STRING),
    "bytes": (_F.TYPE_BYTES, None, cel.Type.BYTES),
    "timestamp": (_F.TYPE_MESSAGE, ".google.protobuf.Timestamp", cel.Type.TIMESTAMP),
    "duration": (_F.TYPE_MESSAGE, ".google.protobuf.Duration", cel.Type.DURATION),
    "dyn": (_F.TYPE_MESSAGE, ".google.protobuf.Value", cel.Type.DYN),
}
_STRING = {"type": "string"}
_OBJECT_META = {"type": "object", "properties": {"name": _STRING, "generateName": _STRING}}
_MAX_FIELD = 18_999  # protobuf reserves 19000-19999: an object with more properties is dyn
_FILES = itertools.count()


def _with_type_and_object_meta(node: dict) -> dict:
    """WithTypeAndObjectMeta: kind, apiVersion and metadata (name, generateName) are always there."""
    props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
    meta = props.get("metadata") if isinstance(props.get("metadata"), dict) else {}
    meta_props = meta.get("properties") if isinstance(meta.get("properties"), dict) else {}

    def string(value) -> bool:
        return isinstance(value, dict) and value.get("type") == "string"

    if (
        string(props.get("kind"))
        and string(props.get("apiVersion"))
        and meta.get("type") == "object"
        and string(meta_props.get("name"))
        and string(meta_props.get("generateName"))
    ):
        return node
    return {**node, "properties": {**props, "kind": _STRING, "apiVersion": _STRING, "metadata": _OBJECT_META}}


class SchemaTypes:
    """The DeclTypes of one openAPIV3Schema as protobuf messages; ``self_type(node)`` is the type a
    rule attached to ``node`` (a dict of that schema) sees, None where the apiserver exposes none."""

    def __init__(self, root: dict):
        self._package = f"crd{next(_FILES)}"
        self._file = descriptor_pb2.FileDescriptorProto(
            name=f"{self._package}.proto", package=self._package, syntax="proto2"
        )
        self._file.dependency.extend(
            ["google/protobuf/struct.proto", "google/protobuf/timestamp.proto", "google/protobuf/duration.proto"]
        )
        self._types: dict[int, tuple | None] = {}
        self._keep: list[dict] = []  # the nodes made here (WithTypeAndObjectMeta), so their ids stay theirs
        self._messages = 0
        self._root = root
        self._decl(root, True)
        self.pool = descriptor_pool.DescriptorPool()
        for module in (struct_pb2, timestamp_pb2, duration_pb2):
            proto = descriptor_pb2.FileDescriptorProto()
            module.DESCRIPTOR.CopyToProto(proto)
            self.pool.Add(proto)
        self.pool.Add(self._file)
        self._envs: dict[tuple, object] = {}

    def self_type(self, node: dict):
        decl = self._types.get(id(node))
        return _cel_type(decl, self._package) if decl is not None else None

    def environment(self, kube_env, node: dict):
        """``kube_env`` (a kubecel.Environment) with ``self`` typed as the rules at ``node`` see it,
        or None where the apiserver gives them no type."""
        decl = self._types.get(id(node))
        if decl is None:
            return None
        key = (kube_env.minor, decl)
        if key not in self._envs:
            try:
                self._envs[key] = kube_env.typed(self.pool, _cel_type(decl, self._package))
            except (RuntimeError, ValueError, TypeError):  # no environment, no verdict
                self._envs[key] = None
        return self._envs[key]

    def _decl(self, node, resource_root: bool) -> tuple | None:
        """SchemaDeclType; memoised by node (a node's resource_root is a fact of the node itself,
        but for the root)."""
        if not isinstance(node, dict):
            return None
        key = id(node)
        if key in self._types:
            return self._types[key]
        self._types[key] = None  # no cycles in a CRD schema; this guards anyway
        decl = self._make(node, resource_root)
        self._types[key] = decl
        return decl

    def _make(self, node: dict, resource_root: bool) -> tuple | None:
        if node.get("x-kubernetes-int-or-string") is True:
            return ("dyn",)
        if resource_root:
            node = _with_type_and_object_meta(node)
            self._keep.append(node)
        kind = node.get("type")
        if not isinstance(kind, str):  # a schema the structural rules refuse: no type to declare
            return None
        if kind == "array":
            items = node.get("items")
            if not isinstance(items, dict):
                return None
            inner = self._decl(items, items.get("x-kubernetes-embedded-resource") is True)
            return ("list", inner) if inner is not None else None
        if kind == "object":
            extra = node.get("additionalProperties")
            if isinstance(extra, dict):
                inner = self._decl(extra, extra.get("x-kubernetes-embedded-resource") is True)
                return ("map", inner) if inner is not None else None
            if extra is True:
                return ("dyn",)  # any key, of no known schema (not structural; nothing to check)
            return self._message(node)
        if kind == "string":
            return {
                "byte": ("bytes",),
                "duration": ("duration",),
                "date": ("timestamp",),
                "date-time": ("timestamp",),
            }.get(node.get("format") if isinstance(node.get("format"), str) else "", ("string",))
        return {"boolean": ("bool",), "number": ("double",), "integer": ("int",)}.get(kind)

    def _message(self, node: dict) -> tuple:
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        self._messages += 1
        name = f"M{self._messages}"
        message = self._file.message_type.add(name=name)
        fields: list[tuple[str, tuple]] = []
        for prop, sub in props.items():
            decl = self._decl(sub, isinstance(sub, dict) and sub.get("x-kubernetes-embedded-resource") is True)
            alias = escaped(prop) if isinstance(prop, str) else None
            if decl is None or alias is None:
                continue
            fields.append((alias, decl))
            if prop in CEL_RESERVED_WORDS:
                fields.append((prop, decl))  # read unescaped too, as the rules' runtime does (cel.py)
        if len(fields) > _MAX_FIELD:
            return ("dyn",)
        for number, (field, decl) in enumerate(fields, 1):
            self._field(message, field, number, decl)
        return ("msg", name)

    def _field(self, message, field: str, number: int, decl: tuple) -> None:
        entry = message.field.add(name=field, number=number, json_name=f"f{number}")
        if decl[0] == "list":
            entry.label = _F.LABEL_REPEATED
            self._set_type(entry, _flat(decl[1]))
        elif decl[0] == "map":
            entry.label = _F.LABEL_REPEATED
            # protobuf names a map's entry after its field (descriptor.cc ValidateMapEntry)
            entry_name = _camel(field) + "Entry"
            if any(nested.name == entry_name for nested in message.nested_type):
                self._set_type(entry, ("struct",))  # two fields camel-cased alike: map(string, dyn)
                return
            map_entry = message.nested_type.add(name=entry_name)
            map_entry.options.map_entry = True
            map_entry.field.add(name="key", number=1, label=_F.LABEL_OPTIONAL, type=_F.TYPE_STRING, json_name="key")
            value = map_entry.field.add(name="value", number=2, label=_F.LABEL_OPTIONAL, json_name="value")
            self._set_type(value, _flat(decl[1]))
            entry.type = _F.TYPE_MESSAGE
            entry.type_name = f".{self._package}.{message.name}.{entry_name}"
        else:
            entry.label = _F.LABEL_OPTIONAL
            self._set_type(entry, decl)

    def _set_type(self, entry, decl: tuple) -> None:
        if decl[0] == "msg":
            entry.type = _F.TYPE_MESSAGE
            entry.type_name = f".{self._package}.{decl[1]}"
        else:
            kind, type_name, _ = _SCALARS[decl[0]]
            entry.type = kind
            if type_name:
                entry.type_name = type_name


def _camel(name: str) -> str:
    """protobuf's ToCamelCase(name, lower_first=false)."""
    out, upper = [], True
    for char in name:
        if char == "_":
            upper = True
        elif upper:
            out.append(char.upper())
            upper = False
        else:
            out.append(char)
    return "".join(out)


def _flat(decl: tuple) -> tuple:
    """What a list's items or a map's values can be in a protobuf field: a list or a map there is
    google.protobuf.ListValue or Struct (list(dyn), map(string, dyn))."""
    if decl[0] == "list":
        return ("listvalue",)
    if decl[0] == "map":
        return ("struct",)
    return decl


_SCALARS["listvalue"] = (_F.TYPE_MESSAGE, ".google.protobuf.ListValue", cel.Type.List(cel.Type.DYN))
_SCALARS["struct"] = (_F.TYPE_MESSAGE, ".google.protobuf.Struct", cel.Type.Map(cel.Type.STRING, cel.Type.DYN))


def _cel_type(decl: tuple, package: str):
    if decl[0] == "msg":
        return cel.Type(f"{package}.{decl[1]}")
    if decl[0] == "list":
        return cel.Type.List(_cel_type(_flat(decl[1]), package))
    if decl[0] == "map":
        return cel.Type.Map(cel.Type.STRING, _cel_type(_flat(decl[1]), package))
    return _SCALARS[decl[0]][2]


def undefined_fields(error: str) -> list[str]:
    """The "undefined field" errors of a compilation's error text, as `undefined field 'NAME'`."""
    out = []
    for line in error.splitlines():
        at = line.find("undefined field '")
        if at >= 0:
            name = line[at + len("undefined field '") :].split("'", 1)[0]
            if name:
                out.append(name)
    return out
