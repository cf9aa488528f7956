"""The static cost estimate the apiserver makes of a CRD's x-kubernetes-validations rules.

When a CRD is created, each rule is compiled and its worst-case cost estimated
(apiextensions-apiserver pkg/apiserver/schema/cel/compilation.go compileRule, lines 245-251:
``ruleEnv.EstimateCost(ast, estimator)``); ValidateCustomResourceDefinitionOpenAPISchema
(pkg/apis/apiextensions/validation/validation.go lines 1247-1275) refuses a rule whose cost times
the number of times its node can occur exceeds StaticEstimatedCostLimit (10,000,000, line 58),
a messageExpression whose cost alone does, and (lines 950-959) a schema whose rules together
exceed StaticEstimatedCRDCostLimit (100,000,000, line 60). Kubernetes v1.31.1 sources, as
vendored by openshift/microshift at 519f384f, cel-go v0.20.1. This module ports:

- the estimator, cel-go checker/cost.go (Cost, costIdent, costSelect, costCall,
  costComprehension, sizeEstimate, functionCost) with common/cost.go's unit costs (a constant
  costs 0, an identifier or a select 1, a list 10, a map 30, a message 40) and the option
  Kubernetes sets, has() costing nothing (apiserver pkg/cel/environment/base.go line 80);
- the Kubernetes libraries' call costs, apiserver pkg/cel/library/cost.go EstimateCallCost
  (lines 245-483), and ext.Sets' (cel-go ext/sets.go lines 104-109, 220-240);
- the sizes, from the schema as SchemaDeclType makes its DeclType (apiserver
  pkg/cel/common/schemas.go lines 40-183: maxItems, maxProperties, maxLength times 4, the longest
  enum value, else what fits in a 3 MiB request: estimateMaxStringLengthPerRequest,
  estimateMaxArrayItemsFromMinSize, estimateMaxAdditionalPropertiesFromMinSize), looked up by
  the path of the expression (compilation.go sizeEstimator.EstimateSize, lines 313-345);
- the cardinality of a rule's node (validation/cel_validation.go childContext and
  extractMaxElements, lines 181-210 and 303-325; compilation.go maxCardinality, lines 357-360)
  and the total over the schema (TotalCost.ObserveExpressionCost, lines 269-287).

The expression is cel-cpp's checked AST (cel_expr_python's ``serialize()``: a google.protobuf.Any
holding a cel.expr.CheckedExpr), decoded here from the protobuf wire format; its macros expand as
cel-go's do (the accumulator is called ``@result`` there, ``__result__`` in cel-go).

Not modelled, so no estimate is made (the rule passes here, whatever it costs there):
- a rule that does not compile in the typed environment of celtypes.py, or uses optionalOldSelf
  (oldSelf is an optional there, not the node's type);
- below a list of lists, a map of maps or lists, or a list of maps (celtypes.py gives their
  members google.protobuf.Value, dyn): a rule there whose expression has a dyn value that is not
  a field of the schema, as cel-go would type it differently;
- the lists library's sum(), min() and max() are typed dyn here; their result is taken to be of
  the list's item type, as cel-go's T; the format library's value() (dyn here): no estimate.
An update whose schema is unchanged is not judged at all upstream (suppressPerExpressionCost):
validate judges a CRD as created. The estimate is 1.31's (cel-go v0.20.1) for every release
whose rules are checked; releases before it vendored other cel-go versions, whose estimates
differ in places.

What it finds is the apiserver's verdict, however surprising: a messageExpression that
concatenates a string() conversion (``'got ' + string(self.x)``) is refused, as string()'s
result has no size bound (the cost saturates); ``'got %d'.format([self.x])`` is not.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from generator.validate.crd.cel import escaped

MAX_U64 = (1 << 64) - 1
# k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go lines 57-60
STATIC_ESTIMATED_COST_LIMIT = 10_000_000
STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000
# k8s.io/apiserver pkg/apis/cel/config.go line 40
MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024
# k8s.io/apiserver pkg/cel/limits.go lines 27-51
MAX_DURATION_SIZE_JSON = 32
MAX_DATETIME_SIZE_JSON = 32
MIN_DURATION_SIZE_JSON = 3
JSON_DATE_SIZE = 12
MIN_DATETIME_SIZE_JSON = 21
MIN_STRING_SIZE = 2
MIN_BOOL_SIZE = 4
MIN_NUMBER_SIZE = 1
MAX_NAME_FORMAT_REGEX_SIZE = 128
# cel-go common/cost.go lines 17-46
SELECT_AND_IDENT_COST = 1
CONST_COST = 0
LIST_CREATE_BASE_COST = 10
MAP_CREATE_BASE_COST = 30
STRUCT_CREATE_BASE_COST = 40
STRING_TRAVERSAL_COST_FACTOR = 0.1
REGEX_STRING_LENGTH_COST_FACTOR = 0.25

_TWO_TO_64 = math.ldexp(1.0, 64)
_ACCUMULATORS = ("__result__", "@result")  # cel-go parser.AccumulatorName; cel-cpp's name
_SCALAR_KINDS = ("bool", "double", "duration", "int", "timestamp", "uint")  # cost.go isScalar

Range = tuple[int, int]  # a SizeEstimate or a CostEstimate: (min, max), uint64 each


# -- arithmetic of cel-go checker/cost.go lines 119-246 ------------------------------------------


def _add(a: Range, b: Range) -> Range:
    return (min(a[0] + b[0], MAX_U64), min(a[1] + b[1], MAX_U64))


def _mul(a: Range, b: Range) -> Range:
    return (min(a[0] * b[0], MAX_U64), min(a[1] * b[1], MAX_U64))


def _factor_one(x: int, y: float) -> int:
    """multiplyByCostFactor: x times y, rounded up, saturating at 2^64-1."""
    xf = float(x)
    if xf > 0 and y > 0 and xf > float(MAX_U64) / y:
        return MAX_U64
    product = math.ceil(xf * y)
    if product >= _TWO_TO_64:
        return MAX_U64
    return int(product)


def _factor(a: Range, y: float) -> Range:
    return (_factor_one(a[0], y), _factor_one(a[1], y))


def _union(a: Range, b: Range) -> Range:
    return (min(a[0], b[0]), max(a[1], b[1]))


def _sub_floor(x: int, y: int) -> int:
    return x - y if x >= y else (x - y) & MAX_U64  # Go's uint64 wraps


# -- the schema's DeclType (apiserver pkg/cel/common/schemas.go) ----------------------------------


class Decl:
    """What cost estimation reads of a DeclType: its kind, MaxElements, MinSerializedSize, the
    type of its items (list) or values (map) and its fields (object, by escaped name)."""

    __slots__ = ("kind", "max_elements", "min_size", "elem", "fields", "flattened")

    def __init__(self, kind: str, max_elements: int = 0, min_size: int = 1) -> None:
        self.kind = kind  # list map object string bytes duration timestamp bool double int dyn
        self.max_elements = max_elements
        self.min_size = min_size
        self.elem: Decl | None = None
        self.fields: dict[str, Decl] = {}
        # a list or map in a list or map below (celtypes.py types those members dyn)
        self.flattened = False


_KEY = Decl("string", 0, MIN_STRING_SIZE)  # apiservercel.StringType, a map's KeyType


def _collection(kind: str, max_size: int, inner: Decl) -> Decl:
    """A list or map Decl of ``inner`` items; flattened below a list or map, as SchemaDeclType marks it."""
    decl = Decl(kind, max_size, 2)
    decl.elem = inner
    decl.flattened = inner.flattened or inner.kind in ("list", "map")
    return decl


def schema_decl(node: object, resource_root: bool, cache: dict[int, tuple[Decl | None, object]]) -> Decl | None:
    """SchemaDeclType(node, resource_root) (schemas.go lines 40-183); ``cache`` by node, which it
    keeps alive (so that its id stays its own)."""
    if not isinstance(node, dict):
        return None
    key = id(node) * 2 + resource_root
    if key in cache:
        return cache[key][0]
    cache[key] = (None, node)  # a CRD schema has no cycles; this guards anyway
    decl = _make_decl(node, resource_root, cache)
    cache[key] = (decl, node)
    return decl


def _request_string_length(node: dict[str, object]) -> int:
    """estimateMaxStringLengthPerRequest (schemas.go lines 229-244)."""
    if node.get("x-kubernetes-int-or-string") is True:
        return MAX_REQUEST_SIZE_BYTES - 2
    fmt = node.get("format")
    sizes = {"duration": MAX_DURATION_SIZE_JSON, "date": JSON_DATE_SIZE, "date-time": MAX_DATETIME_SIZE_JSON}
    return sizes.get(fmt if isinstance(fmt, str) else "", MAX_REQUEST_SIZE_BYTES - 2)


def _limit(node: dict[str, object], key: str) -> int | None:
    value = node.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return max(value, 0)  # zeroIfNegative
    return None


def _make_decl(
    node: dict[str, object], resource_root: bool, cache: dict[int, tuple[Decl | None, object]]
) -> Decl | None:
    from generator.validate.crd.celtypes import _with_type_and_object_meta

    if node.get("x-kubernetes-int-or-string") is True:
        return Decl("dyn", MAX_REQUEST_SIZE_BYTES - 2, 1)
    if resource_root:
        node = _with_type_and_object_meta(node)  # its properties are the node's, or constants
    kind = node.get("type")
    if kind == "array":
        items = node.get("items")
        if not isinstance(items, dict):
            return None
        inner = schema_decl(items, items.get("x-kubernetes-embedded-resource") is True, cache)
        if inner is None:
            return None
        max_items = _limit(node, "maxItems")
        if max_items is None:  # estimateMaxArrayItemsFromMinSize
            max_items = (MAX_REQUEST_SIZE_BYTES - 2) // (inner.min_size + 1)
        return _collection("list", max_items, inner)
    if kind == "object":
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            inner = schema_decl(extra, extra.get("x-kubernetes-embedded-resource") is True, cache)
            if inner is None:
                return None
            max_props = _limit(node, "maxProperties")
            if max_props is None:  # estimateMaxAdditionalPropertiesFromMinSize
                max_props = (MAX_REQUEST_SIZE_BYTES - 2) // (inner.min_size + 6)
            return _collection("map", max_props, inner)
        props = node.get("properties")
        props = props if isinstance(props, dict) else {}
        required = node.get("required")
        required = required if isinstance(required, list) else []
        decl = Decl("object", 0, 2)
        decl.flattened = extra is True  # celtypes.py: dyn
        for name, prop in props.items():
            sub = schema_decl(
                prop, isinstance(prop, dict) and prop.get("x-kubernetes-embedded-resource") is True, cache
            )
            if sub is None or not isinstance(name, str):
                continue
            alias = escaped(name)
            if alias is not None:
                decl.fields[alias] = sub
            decl.flattened = decl.flattened or sub.flattened
            if name in required and isinstance(prop, dict) and prop.get("default") is None:
                decl.min_size += len(name.encode()) + sub.min_size + 4
        return decl
    if kind == "string":
        fmt = node.get("format")
        if fmt == "byte":
            max_length = _limit(node, "maxLength")
            return Decl("bytes", _request_string_length(node) if max_length is None else max_length, MIN_STRING_SIZE)
        if fmt == "duration":
            return Decl("duration", _request_string_length(node), MIN_DURATION_SIZE_JSON)
        if fmt == "date":
            return Decl("timestamp", _request_string_length(node), JSON_DATE_SIZE)
        if fmt == "date-time":
            return Decl("timestamp", _request_string_length(node), MIN_DATETIME_SIZE_JSON)
        max_length = _limit(node, "maxLength")
        if max_length is not None:
            return Decl("string", max_length * 4, MIN_STRING_SIZE)
        enum = node.get("enum")
        if isinstance(enum, list) and enum:  # estimateMaxStringEnumLength
            longest = max((len(v.encode()) for v in enum if isinstance(v, str)), default=0)
            return Decl("string", longest, MIN_STRING_SIZE)
        return Decl("string", _request_string_length(node), MIN_STRING_SIZE)
    if kind == "boolean":
        return Decl("bool", 0, MIN_BOOL_SIZE)
    if kind == "number":
        return Decl("double", 0, MIN_NUMBER_SIZE)
    if kind == "integer":
        return Decl("int", 0, MIN_NUMBER_SIZE)
    return None


# -- cardinality (validation/cel_validation.go) ---------------------------------------------------


def _max_elements(node: dict[str, object]) -> int | None:
    """extractMaxElements (cel_validation.go lines 303-325); None: unbounded."""
    kind = node.get("type")
    if kind == "object":
        if node.get("additionalProperties") is not None:
            return _limit(node, "maxProperties")
        return 1
    if kind == "array":
        return _limit(node, "maxItems")
    return 1


def multiply_guarded(base: int, cardinality: int) -> int:
    """multiplyWithOverflowGuard (validation.go lines 1303-1311)."""
    if base == 0:
        return 0
    if MAX_U64 // base < cardinality:
        return MAX_U64
    return base * cardinality


def cardinalities(root: dict[str, object]) -> dict[int, int | None]:
    """MaxCardinality of each node a rule may sit on (by id): the root 1, a child its parent's
    times extractMaxElements(parent) (childContext, lines 181-210); None: unbounded. The
    junctors (allOf, anyOf, oneOf, not) have no CEL context: they are not here."""
    out: dict[int, int | None] = {}
    stack: list[tuple[object, int | None]] = [(root, 1)]
    while stack:
        node, card = stack.pop()
        if not isinstance(node, dict) or id(node) in out:
            continue
        out[id(node)] = card
        factor = _max_elements(node)
        below = None if card is None or factor is None else multiply_guarded(card, factor)
        props = node.get("properties")
        children = list(props.values()) if isinstance(props, dict) else []
        children += [node.get("additionalProperties"), node.get("items")]
        stack += [(sub, below) for sub in children if isinstance(sub, dict)]
    return out


def expression_cost(max_cost: int, cardinality: int | None, decl: Decl) -> int:
    """getExpressionCost (validation.go lines 1313-1318): the rule's cost times its node's
    cardinality, or, unbounded, times maxCardinality(MinSerializedSize) (compilation.go 357)."""
    if cardinality is None:
        cardinality = MAX_REQUEST_SIZE_BYTES // (decl.min_size + 1)
    return multiply_guarded(max_cost, cardinality)


def cost_message(name: str, cost: int, limit: int) -> str:
    """getCostErrorMessage (validation.go lines 1320-1335)."""
    factor = cost / limit
    if factor > 100.0:
        shown = "more than 100x"
    elif factor < 1.5:
        shown = f"{factor:f}x"
    else:
        shown = f"{factor:.1f}x"
    return (
        f"{name} exceeds budget by factor of {shown} (try simplifying the rule, or adding maxItems, "
        "maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )


class TotalCost:
    """TotalCost (cel_validation.go lines 260-293): the sum over a schema and its (at most 4)
    most expensive rules of at least 1% of the limit, as (cost, order seen, path)."""

    __slots__ = ("total", "most_expensive", "seen")

    def __init__(self) -> None:
        self.total = 0
        self.most_expensive: list[tuple[int, int, str]] = []
        self.seen = 0


def observe(total: TotalCost, path: str, cost: int) -> None:
    """ObserveExpressionCost; ties keep the order seen (Go's sort.Slice leaves it open)."""
    total.total = min(total.total + cost, MAX_U64)
    if cost < STATIC_ESTIMATED_CRD_COST_LIMIT // 100:
        return
    total.seen += 1
    total.most_expensive.append((cost, total.seen, path))
    total.most_expensive.sort(key=lambda entry: (-entry[0], entry[1]))
    del total.most_expensive[4:]


# -- the checked expression (cel.expr.CheckedExpr, syntax.proto and checked.proto) ---------------

Fields = dict[int, list[int | bytes]]


def _varint(buf: bytes, at: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = buf[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _fields(buf: bytes) -> Fields:
    """A protobuf message's fields by number: varints as int, the rest as bytes."""
    out: Fields = {}
    at, end = 0, len(buf)
    while at < end:
        key, at = _varint(buf, at)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, at = _varint(buf, at)
        elif wire == 2:
            length, at = _varint(buf, at)
            value, at = buf[at : at + length], at + length
        elif wire == 1:
            value, at = buf[at : at + 8], at + 8
        elif wire == 5:
            value, at = buf[at : at + 4], at + 4
        else:
            raise ValueError(f"wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def _one(fields: Fields, number: int) -> bytes:
    values = fields.get(number)
    return values[-1] if values and isinstance(values[-1], bytes) else b""


def _int(fields: Fields, number: int) -> int:
    values = fields.get(number)
    return values[-1] if values and isinstance(values[-1], int) else 0


def _all(fields: Fields, number: int) -> list[bytes]:
    return [value for value in fields.get(number, []) if isinstance(value, bytes)]


def _text(fields: Fields, number: int) -> str:
    return _one(fields, number).decode("utf-8", "replace")


class Expr:
    """A node of cel.expr.Expr: kind is const, ident, select, call, list, map, struct or
    comprehension; ``parts`` its sub-expressions in cel-go's order (a call's target first, then
    its args; a comprehension's range, init, condition, step, result)."""

    __slots__ = ("id", "kind", "name", "test_only", "parts", "has_target", "literal", "int_value", "iter_var")

    def __init__(self, ident: int, kind: str) -> None:
        self.id = ident
        self.kind = kind
        self.name = ""  # ident name, select field, call function, comprehension accumulator
        self.test_only = False
        self.parts: list[Expr] = []
        self.has_target = False
        self.literal: int | None = None  # a constant's ComputedSize
        self.int_value: int | None = None  # an int64 constant, as Go's uint64(i)
        self.iter_var = ""


def _expr(buf: bytes) -> Expr:
    f = _fields(buf)
    ident = _int(f, 2)
    if 3 in f:  # const_expr
        out = Expr(ident, "const")
        constant = _fields(_one(f, 3))
        if 6 in constant:  # string: runes
            out.literal = len(_text(constant, 6))
        elif 7 in constant:  # bytes
            out.literal = len(_one(constant, 7))
        elif any(n in constant for n in (1, 2, 3, 4, 5, 8, 9)):  # null bool int uint double duration timestamp
            out.literal = 1
        if 3 in constant:
            out.int_value = _int(constant, 3)
        return out
    if 4 in f:
        out = Expr(ident, "ident")
        out.name = _text(_fields(_one(f, 4)), 1)
        return out
    if 5 in f:
        select = _fields(_one(f, 5))
        out = Expr(ident, "select")
        out.name = _text(select, 2)
        out.test_only = bool(_int(select, 3))
        out.parts = [_expr(_one(select, 1))]
        return out
    if 6 in f:
        call = _fields(_one(f, 6))
        out = Expr(ident, "call")
        out.name = _text(call, 2)
        out.has_target = 1 in call
        out.parts = ([_expr(_one(call, 1))] if out.has_target else []) + [_expr(a) for a in _all(call, 3)]
        return out
    if 7 in f:
        out = Expr(ident, "list")
        out.parts = [_expr(e) for e in _all(_fields(_one(f, 7)), 1)]
        return out
    if 8 in f:
        create = _fields(_one(f, 8))
        out = Expr(ident, "struct" if _text(create, 1) else "map")
        for entry in _all(create, 2):
            e = _fields(entry)
            if 3 in e:  # map_key
                out.parts.append(_expr(_one(e, 3)))
            out.parts.append(_expr(_one(e, 4)))
        out.literal = len(_all(create, 2))
        return out
    if 9 in f:
        comp = _fields(_one(f, 9))
        out = Expr(ident, "comprehension")
        out.iter_var = _text(comp, 1)
        out.name = _text(comp, 3)
        out.parts = [_expr(_one(comp, n)) for n in (2, 4, 5, 6, 7)]
        return out
    return Expr(ident, "none")


class Type(NamedTuple):
    """A CEL type: its kind, as cel-go's (bool int uint double string bytes duration timestamp
    null list map struct dyn type_param type opaque error wrapper), and parameters (a list's
    item type, a map's key and value types)."""

    kind: str
    params: tuple[Type, ...] = ()


_DYN = Type("dyn")
_STRING_TYPE = Type("string")
_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "dyn", 2: "timestamp", 3: "duration"}
_MESSAGES: dict[str, Type] = {
    "google.protobuf.Value": _DYN,
    "google.protobuf.Any": _DYN,
    "google.protobuf.ListValue": Type("list", (_DYN,)),
    "google.protobuf.Struct": Type("map", (_STRING_TYPE, _DYN)),
    "google.protobuf.Timestamp": Type("timestamp"),
    "google.protobuf.Duration": Type("duration"),
}


def _type(buf: bytes) -> Type:
    f = _fields(buf)
    if 3 in f:
        return Type(_PRIMITIVES.get(_int(f, 3), "dyn"))
    if 5 in f:
        return Type(_WELL_KNOWN.get(_int(f, 5), "dyn"))
    if 6 in f:
        return Type("list", (_type(_one(_fields(_one(f, 6)), 1)),))
    if 7 in f:
        entry = _fields(_one(f, 7))
        return Type("map", (_type(_one(entry, 1)), _type(_one(entry, 2))))
    if 9 in f:
        return _MESSAGES.get(_text(f, 9), Type("struct"))
    kinds = {2: "null", 4: "wrapper", 10: "type_param", 11: "type", 12: "error", 14: "opaque"}
    for number, kind in kinds.items():
        if number in f:
            return Type(kind)
    return _DYN


def _has_dyn(t: Type) -> bool:
    return t.kind == "dyn" or any(_has_dyn(p) for p in t.params)


def decode(serialized: bytes) -> tuple[Expr, dict[int, Type], dict[int, list[str]]]:
    """The expression, type_map and reference_map's overload ids of a serialized CheckedExpr."""
    checked = _fields(_one(_fields(serialized), 2))  # google.protobuf.Any value
    types: dict[int, Type] = {}
    for entry in _all(checked, 3):
        e = _fields(entry)
        types[_int(e, 1)] = _type(_one(e, 2))
    overloads: dict[int, list[str]] = {}
    for entry in _all(checked, 2):
        e = _fields(entry)
        reference = _fields(_one(e, 2))
        overloads[_int(e, 1)] = [o.decode() for o in _all(reference, 3)]
    return _expr(_one(checked, 4)), types, overloads


# -- the estimator (cel-go checker/cost.go) -----------------------------------------------------


class Unestimable(Exception):
    """The expression uses what this port cannot estimate as cel-go would."""


class _State:
    __slots__ = ("root", "types", "overloads", "paths", "ranges", "sizes", "strict")

    def __init__(self, root: Decl, types: dict[int, Type], overloads: dict[int, list[str]]) -> None:
        self.root = root
        self.types = types
        self.overloads = overloads
        self.paths: dict[int, list[str]] = {}  # exprPath
        self.ranges: dict[str, list[Expr]] = {}  # iterRanges
        self.sizes: dict[int, Range] = {}  # computedSizes
        self.strict = root.flattened  # types below may be celtypes.py's dyn, not cel-go's


class _Node:
    """checker.AstNode: the path, type, expression and derived size of an expression (or of a
    list's items, library cost.go itemsNode: no expression)."""

    __slots__ = ("path", "type", "expr", "derived")

    def __init__(self, path: list[str] | None, type_: Type, expr: Expr | None, derived: Range | None) -> None:
        self.path = path
        self.type = type_
        self.expr = expr
        self.derived = derived


def _resolve(root: Decl, path: list[str] | None) -> Decl | None:
    """sizeEstimator.EstimateSize's walk (compilation.go lines 313-345): from the rule's node,
    path[0] (self, oldSelf, ...) cut off."""
    if not path:
        return None
    node: Decl | None = root
    for name in path[1:]:
        if node is None:
            return None
        if name in ("@items", "@values"):
            node = node.elem
        elif name == "@keys":
            node = _KEY if node.kind == "map" else None
        else:
            node = node.fields.get(name)
    return node


def _decl_type(decl: Decl) -> Type:
    """The CEL type of a DeclType."""
    if decl.kind == "list":
        return Type("list", (_decl_type(decl.elem) if decl.elem is not None else _DYN,))
    if decl.kind == "map":
        return Type("map", (_STRING_TYPE, _decl_type(decl.elem) if decl.elem is not None else _DYN))
    if decl.kind == "object":
        return Type("struct")
    return Type(decl.kind)


def _get_type(state: _State, e: Expr) -> Type:
    """The type cel-go's checker gives ``e``: a field of the schema is the schema's DeclType
    (celtypes.py may have flattened it to dyn), anything else cel-cpp's type."""
    path = state.paths.get(e.id)
    if path and path[0] in ("self", "oldSelf"):
        decl = _resolve(state.root, path)
        if decl is not None:
            return _decl_type(decl)
    found = state.types.get(e.id, _DYN)
    if e.kind == "call" and e.name in ("sum", "min", "max") and e.has_target:
        target = _get_type(state, e.parts[0])
        if target.kind == "list":  # lists library: list(T) -> T
            return target.params[0]
    if state.strict and _has_dyn(found):
        derived = _derived_type(state, e)
        if derived is None or _has_dyn(derived):
            raise Unestimable("a dyn value where cel-go would know its type")
        return derived
    return found


def _derived_type(state: _State, e: Expr) -> Type | None:
    """What cel-go's checker makes of a value read from a typed list or map (a map's value by
    select or index, a list's item by index, a comprehension variable)."""
    if e.kind == "select" and not e.test_only:
        container = _get_type(state, e.parts[0])
        return container.params[1] if container.kind == "map" else None
    if e.kind == "call" and e.name == "_[_]" and len(e.parts) == 2:
        container = _get_type(state, e.parts[0])
        if container.kind == "list":
            return container.params[0]
        return container.params[1] if container.kind == "map" else None
    if e.kind == "ident" and state.ranges.get(e.name):
        container = _get_type(state, state.ranges[e.name][-1])
        return container.params[0] if container.kind in ("list", "map") else None
    return None


def _add_path(state: _State, e: Expr, path: list[str]) -> None:
    state.paths[e.id] = path


def _new_node(state: _State, e: Expr) -> _Node:
    """newAstNode (cost.go lines 675-690): paths of the accumulator are dropped."""
    path = state.paths.get(e.id)
    if path and path[0] in _ACCUMULATORS:
        path = None
    return _Node(path, _get_type(state, e), e, state.sizes.get(e.id))


def _computed_size(node: _Node) -> Range | None:
    """astNode.ComputedSize (cost.go lines 86-117)."""
    if node.derived is not None:
        return node.derived
    e = node.expr
    if e is None:
        return None
    if e.kind == "const" and e.literal is not None:
        return (e.literal, e.literal)
    if e.kind == "list":
        return (len(e.parts), len(e.parts))
    if e.kind == "map" and e.literal is not None:
        return (e.literal, e.literal)
    return None


def _estimate_size(state: _State, node: _Node) -> Range | None:
    """sizeEstimator.EstimateSize: (0, MaxElements) of the schema node at the path."""
    decl = _resolve(state.root, node.path)
    return None if decl is None else (0, decl.max_elements)


def _size(state: _State, node: _Node) -> Range:
    """coster.sizeEstimate (cost.go lines 518-535)."""
    found = _computed_size(node)
    if found is None:
        found = _estimate_size(state, node)
    if found is not None:
        return found
    if node.type.kind in _SCALAR_KINDS:
        return (1, 1)
    return (0, MAX_U64)


def _lib_size(state: _State, node: _Node) -> Range:
    """library CostEstimator.sizeEstimate (library/cost.go lines 496-504) and ext/sets.go's."""
    found = _computed_size(node)
    if found is None:
        found = _estimate_size(state, node)
    return found if found is not None else (0, MAX_U64)


def _cost(state: _State, e: Expr) -> Range:
    """coster.cost (cost.go lines 342-368)."""
    if e.kind == "const":
        return (CONST_COST, CONST_COST)
    if e.kind == "ident":
        return _cost_ident(state, e)
    if e.kind == "select":
        return _cost_select(state, e)
    if e.kind == "call":
        return _cost_call(state, e)
    if e.kind in ("list", "map", "struct"):
        total: Range = (0, 0)
        for part in e.parts:
            total = _add(total, _cost(state, part))
        base = {"list": LIST_CREATE_BASE_COST, "map": MAP_CREATE_BASE_COST}.get(e.kind, STRUCT_CREATE_BASE_COST)
        return _add(total, (base, base))
    if e.kind == "comprehension":
        return _cost_comprehension(state, e)
    return (0, 0)


def _cost_ident(state: _State, e: Expr) -> Range:
    """costIdent (cost.go lines 370-385)."""
    ranges = state.ranges.get(e.name)
    if ranges:
        iter_range = ranges[-1]
        kind = _get_type(state, iter_range).kind
        if kind in ("list", "map"):
            _add_path(state, e, [*state.paths.get(iter_range.id, []), "@items" if kind == "list" else "@keys"])
    else:
        _add_path(state, e, [e.name])
    return (SELECT_AND_IDENT_COST, SELECT_AND_IDENT_COST)


def _cost_select(state: _State, e: Expr) -> Range:
    """costSelect (cost.go lines 387-410), has() costing 0 (PresenceTestHasCost(false))."""
    operand = e.parts[0]
    if e.test_only:
        return _cost(state, operand)
    total = _cost(state, operand)
    if _get_type(state, operand).kind in ("map", "struct", "type_param"):
        total = _add(total, (SELECT_AND_IDENT_COST, SELECT_AND_IDENT_COST))
    _add_path(state, e, [*state.paths.get(operand.id, []), e.name])
    return total


def _cost_call(state: _State, e: Expr) -> Range:
    """costCall (cost.go lines 412-464)."""
    args = e.parts[1:] if e.has_target else e.parts
    arg_nodes: list[_Node] = []
    arg_costs: list[Range] = []
    for arg in args:
        arg_costs.append(_cost(state, arg))
        arg_nodes.append(_new_node(state, arg))
    overloads = state.overloads.get(e.id, [])
    if not overloads:
        return (0, 0)
    total: Range = (0, 0)
    target: _Node | None = None
    if e.has_target:
        total = _add(total, _cost(state, e.parts[0]))
        target = _new_node(state, e.parts[0])
    fn_cost: Range = (MAX_U64, 0)
    result: Range | None = None
    for overload in overloads:
        cost, size = _function_cost(state, e.name, overload, target, arg_nodes, arg_costs)
        fn_cost = _union(fn_cost, cost)
        if size is not None:
            result = size if result is None else _union(result, size)
        if overload == "index_list" and args:
            _add_path(state, e, [*state.paths.get(args[0].id, []), "@items"])
        elif overload == "index_map" and args:
            _add_path(state, e, [*state.paths.get(args[0].id, []), "@values"])
    if result is not None:
        state.sizes[e.id] = result
    return _add(total, fn_cost)


def _cost_comprehension(state: _State, e: Expr) -> Range:
    """costComprehension (cost.go lines 496-516)."""
    iter_range, init, condition, step, result = e.parts
    total = _add(_cost(state, iter_range), _cost(state, init))
    state.ranges.setdefault(e.iter_var, []).append(iter_range)
    loop = _cost(state, condition)
    steps = _cost(state, step)
    state.ranges[e.iter_var].pop()
    total = _add(total, _cost(state, result))
    count = _size(state, _new_node(state, iter_range))
    state.sizes[e.id] = count
    return _add(total, _mul(count, _add(steps, loop)))


_STRING_COMPARISONS = frozenset(
    f"{op}_{kind}" for op in ("less", "greater", "less_equals", "greater_equals") for kind in ("string", "bytes")
) | {"equals", "not_equals"}
_SETS = {"list_sets_contains_list": 1.0, "list_sets_intersects_list": 1.0, "list_sets_equivalent_list": 2.0}


def _function_cost(
    state: _State, function: str, overload: str, target: _Node | None, args: list[_Node], arg_costs: list[Range]
) -> tuple[Range, Range | None]:
    """functionCost (cost.go lines 537-661): ext.Sets' estimators, then the Kubernetes library's,
    then cel-go's own; (cost, result size or None)."""
    arg_sum: Range = (0, 0)
    for cost in arg_costs:
        arg_sum = _add(arg_sum, cost)
    if overload in _SETS and len(args) == 2:  # ext/sets.go estimateSetsCost
        product = _mul(_lib_size(state, args[0]), _lib_size(state, args[1]))
        return _add(_add(_factor(product, _SETS[overload]), (1, 1)), arg_sum), None
    library = _library_cost(state, function, overload, target, args)
    if library is not None:
        return _add(library[0], arg_sum), library[1]
    traversal = STRING_TRAVERSAL_COST_FACTOR
    if overload == "string_format" and target is not None:
        return _add(_factor(_size(state, target), traversal), arg_sum), None
    if overload == "string_to_bytes" and len(args) == 1:
        size = _size(state, args[0])
        return _add(_factor(size, traversal), arg_sum), (size[0], min(size[1] * 4, MAX_U64))
    if overload == "bytes_to_string" and len(args) == 1:
        size = _size(state, args[0])
        return _add(_factor(size, traversal), arg_sum), (size[0] // 4, size[1])
    if overload == "strings_quote" and len(args) == 1:
        size = _size(state, args[0])
        return _add(_factor(size, traversal), arg_sum), (size[0] + 2, min(size[1] * 2 + 2, MAX_U64))
    if overload in ("starts_with_string", "ends_with_string") and len(args) == 1:
        return _add(_factor(_size(state, args[0]), traversal), arg_sum), None
    if overload == "in_list" and len(args) == 2:
        return _add(_factor(_size(state, args[1]), 1), arg_sum), None
    if overload == "matches_string" and target is not None and len(args) == 1:
        text = _factor(_add(_size(state, target), (1, 1)), traversal)
        regex = _factor(_size(state, args[0]), REGEX_STRING_LENGTH_COST_FACTOR)
        return _add(_mul(text, regex), arg_sum), None
    if overload == "contains_string" and target is not None and len(args) == 1:
        text = _factor(_size(state, target), traversal)
        sub = _factor(_size(state, args[0]), traversal)
        return _add(_mul(text, sub), arg_sum), None
    if overload in ("logical_or", "logical_and"):
        lhs, rhs = arg_costs[0], arg_costs[1]
        return (lhs[0], _add(lhs, rhs)[1]), None
    if overload == "conditional":
        size = _union(_size(state, args[1]), _size(state, args[2]))
        return _add(arg_costs[0], _union(arg_costs[1], arg_costs[2])), size
    if overload in ("add_string", "add_bytes", "add_list") and len(args) == 2:
        size = _add(_size(state, args[0]), _size(state, args[1]))
        if overload == "add_list":
            return _add((1, 1), arg_sum), size
        return _add(_factor(size, traversal), arg_sum), size
    if overload in _STRING_COMPARISONS:
        smallest = min(_size(state, args[0])[1], _size(state, args[1])[1])
        return _add(_factor((1 if smallest > 0 else 0, smallest), traversal), arg_sum), None
    return _add((1, 1), arg_sum), None


def _list_element(node: _Node) -> _Node | None:
    """library CostEstimator.listElementNode (library/cost.go lines 506-523)."""
    if not node.type.params:
        return None
    path = [*node.path, "@items"] if node.path is not None else None
    return _Node(path, node.type.params[0], None, None)


def _library_cost(
    state: _State, function: str, overload: str, target: _Node | None, args: list[_Node]
) -> tuple[Range, Range | None] | None:
    """CostEstimator.EstimateCallCost (library/cost.go lines 245-483) for the functions a CRD
    rule's environment has (not the authorizer's). cel-go always hands it a target (a pointer to
    a possibly nil node): its `target != nil` holds for global calls too."""
    traversal = STRING_TRAVERSAL_COST_FACTOR
    if function in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"):
        if target is None:
            raise Unestimable(f"{function}() without a target")
        element = _list_element(target)
        if element is not None:
            each: Range = (1, 1)
            if element.type.kind in ("string", "bytes"):
                each = _add(each, _factor(_lib_size(state, element), traversal))
            return _mul(_lib_size(state, target), each), None
        return _factor(_lib_size(state, target), traversal), None
    if function == "url" and len(args) == 1:
        return _factor(_lib_size(state, args[0]), traversal), None
    if function in ("lowerAscii", "upperAscii", "substring", "trim"):
        if target is None:
            raise Unestimable(f"{function}() without a target")
        size = _lib_size(state, target)
        return _factor(size, traversal), size
    if function == "replace" and len(args) >= 2:
        if target is None:
            raise Unestimable("replace() without a target")
        return _replace_cost(state, target, args)
    if function == "split":
        if target is None:
            raise Unestimable("split() without a target")
        size = _lib_size(state, target)
        most = size[1]
        if len(args) > 1 and args[1].expr is not None and args[1].expr.int_value is not None:
            most = args[1].expr.int_value
        return _factor(size, 2 * traversal), (0, most)
    if function == "join":
        if target is None:
            raise Unestimable("join() without a target")
        joined: Range = (0, 0)
        count = _lib_size(state, target)
        element = _list_element(target)
        if element is not None:
            joined = _mul(count, _lib_size(state, element))
        if args:
            separators = (_sub_floor(count[0], 1) if count[0] > 0 else 0, count[1] - 1 if count[1] > 0 else 0)
            joined = _add(joined, _mul(_lib_size(state, args[0]), separators))
        return _factor(joined, traversal), joined
    if function in ("find", "findAll") and args:
        if target is None:
            raise Unestimable(f"{function}() without a target")
        size = _lib_size(state, target)
        text = _factor(_add(size, (1, 1)), traversal)
        regex = _factor(_lib_size(state, args[0]), REGEX_STRING_LENGTH_COST_FACTOR)
        return _mul(text, regex), (0, size[1])
    if function in ("cidr", "isIP", "isCIDR", "quantity", "isQuantity"):
        if not args:
            raise Unestimable(f"{function}() without an argument")  # Go would index args[0]
        return _factor(_lib_size(state, args[0]), traversal), None
    if function == "ip":
        if args:
            if overload == "cidr_ip":
                return (1, 1), None
            return _factor(_lib_size(state, args[0]), traversal), None
        return (1, 1), None
    if function == "ip.isCanonical" and args:
        return _factor(_lib_size(state, args[0]), 2 * traversal), None
    if function in (
        "masked",
        "prefixLength",
        "family",
        "isUnspecified",
        "isLoopback",
        "isLinkLocalMulticast",
        "isLinkLocalUnicast",
        "isGlobalUnicast",
    ):
        return (1, 1), None
    if function in ("containsIP", "containsCIDR") and args:
        ip: Range = (4, 16)
        cost = _factor(_add(ip, ip), traversal)
        if function == "containsCIDR":
            cost = _add(_add(cost, _factor(ip, traversal)), (1, 1))
        if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
            cost = _add(cost, _factor(_lib_size(state, args[0]), traversal))
        return cost, None
    if function == "validate":
        if not args:
            raise Unestimable("validate() without an argument")
        text = _factor(_lib_size(state, args[0]), traversal)
        return _factor(text, MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR), None
    if function == "format.named":
        return (1, 1), None
    if function in ("sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan"):
        return (1, 1), None
    if function in ("compareTo", "add", "sub"):
        return (1, 1), None
    if function in ("getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery"):
        return (1, 1), None
    if function == "value" and overload == "k8s_optional_value":
        raise Unestimable("the format library's value() is typed dyn here")
    return None


def _replace_cost(state: _State, target: _Node, args: list[_Node]) -> tuple[Range, Range | None]:
    """The replace() case of EstimateCallCost (library/cost.go lines 288-338)."""
    size = _lib_size(state, target)
    before = _lib_size(state, args[0])
    after = _lib_size(state, args[1])
    if before[0] == 0:
        count_max = size[1] + 1 if size[1] < MAX_U64 else size[1]
        kept_max = size[1]
    elif after[1] <= before[0]:
        count_max, kept_max = 0, size[1]
    else:
        count_max, kept_max = _ceil_div(size[1], before[0]), 0
    if before[1] == 0:
        count_min = size[0] + 1 if size[0] < MAX_U64 else size[0]
        kept_min = size[0]
    elif before[1] <= after[0]:
        count_min, kept_min = 0, size[0]
    else:
        count_min, kept_min = _ceil_div(size[0], before[1]), 0
    result = _add(_mul((count_min, count_max), after), (kept_min, kept_max))
    return _factor(size, 2 * STRING_TRAVERSAL_COST_FACTOR), result


def _ceil_div(x: int, y: int) -> int:
    """uint64(math.Ceil(float64(x) / float64(y)))."""
    value = math.ceil(float(x) / float(y))
    return MAX_U64 if value >= _TWO_TO_64 else int(value)


def max_cost(serialized: bytes, root: Decl) -> int | None:
    """The estimated worst-case cost (CostEstimate.Max) of a compiled expression whose `self` is
    ``root``; None where this port cannot estimate it faithfully."""
    try:
        expr, types, overloads = decode(serialized)
        return _cost(_State(root, types, overloads), expr)[1]
    except Unestimable:
        return None
    except (KeyError, IndexError, ValueError):  # not a CheckedExpr this decoder knows
        return None
