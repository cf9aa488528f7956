"""Validate custom resources against a CRD's openAPIV3Schema, as the apiserver would.

The order is the apiextensions apiserver's (pkg/registry/customresource/strategy.go, Validate,
after the decoder's pruning and defaulting):

1. defaults: every `default` of the structural schema is applied to the object first
   (structuraldefaulting.Default), so rules see the defaulted object; with a status
   subresource, a create's status is dropped (PrepareForCreate);
2. the schema: types, required, enum, patterns, bounds and unknown fields (jsonschema-rs), the
   formats (crformats.py), embedded resources (schema/objectmeta) and duplicates in list-sets
   and list-maps (ValidateListSetsAndMaps);
3. the CEL rules (x-kubernetes-validations, celrules.py) of every node with a value, unless
   step 2 found a blocking error (hasBlockingErr: a wrong type, a missing required field, a
   value outside an enum, too long or too many), as the apiserver skips them then.

The apiserver prunes fields a structural schema does not name, silently: a
misspelt ``cleanPolicy`` disappears instead of failing.  ``strict=True`` turns
every such field into an error (what a user wants before ``kubectl apply``, and what
kubectl's default strict field validation does since 1.25); ``strict=False`` gives the
apiserver's verdict without it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Final, cast

import jsonschema_rs

from generator.core.findings import Finding, child, dotted, joined
from generator.core.grammar import lazy_pattern
from generator.schema import cache as schemacache
from generator.validate.crd import deadline, walks
from generator.validate.crd import formats as crformats
from generator.validate.crd.formats import CHECKED_FORMATS
from generator.validate.schemaerrors import describe, integer_bounds


class _Everything:
    """Marked for every node: walks visit everything."""

    def __call__(self, _node: object) -> bool:
        return True

    def properties(self, node: dict[str, Any]) -> list[tuple[str, Any]]:
        props = node.get("properties")
        return [(k, v) for k, v in props.items() if isinstance(v, dict)] if isinstance(props, dict) else []


_everything: Final = _Everything()

# a mapping or a list (a tuple for isinstance: `dict | list` is a new union each time it is run)
_CONTAINERS: Final = (dict, list)


_MARKERS_TO_DROP: Final = (
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-embedded-resource",
    "nullable",
)


def to_json_schema(schema: Any, strict: bool, object_meta: bool = True) -> dict[str, Any]:
    """An OpenAPI v3 CRD schema as a draft-4 JSON schema, closed where the apiserver prunes.
    ``object_meta``: the node's `metadata` property is an ObjectMeta (the root's, an embedded
    resource's), which the apiserver validates itself rather than by this schema."""
    out: dict[Any, Any] = {}
    for key, value in schema.items():
        if key in _MARKERS_TO_DROP or key == "x-kubernetes-preserve-unknown-fields":
            continue
        if key == "properties" and isinstance(value, dict):  # not a mapping: the CRD's own rules say so
            embedded = bool(schema.get("x-kubernetes-embedded-resource"))
            out[key] = {
                name: (
                    to_json_schema(sub, False, False)
                    if object_meta and name == "metadata"
                    else to_json_schema(sub, strict, embedded)
                )
                for name, sub in value.items()
            }
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = to_json_schema(value, strict, False)
        elif key == "not" and isinstance(value, dict):
            # A junctor's properties are value validation only: pruning, and so unknown fields,
            # follow the structural schema (apiextensions-apiserver pkg/apiserver/schema/pruning),
            # so nothing inside allOf/anyOf/oneOf/not is closed.
            out[key] = to_json_schema(value, False, False)
        elif key in ("anyOf", "allOf", "oneOf"):
            out[key] = [to_json_schema(sub, False, object_meta) for sub in value]
        else:
            out[key] = value
    if out.get("type") == "integer":
        # decode: the apiserver reads a custom resource's integers as int64 (a larger one becomes a
        # float64, which `type: integer` refuses); format int32 is its operator's Go type
        out = integer_bounds(out, "int64") or out
    if schema.get("nullable"):
        kind = out.get("type")
        if kind:
            out["type"] = [kind, "null"]
    if schema.get("x-kubernetes-embedded-resource"):
        # an embedded object always has apiVersion, kind and metadata (ObjectMeta), declared or not
        fields = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"}}
        out["properties"] = {**fields, **out.get("properties", {})}
    closed = strict and not schema.get("x-kubernetes-preserve-unknown-fields")
    # pruning (apiextensions-apiserver schema/pruning/algorithm.go) keeps only declared fields,
    # so an object schema without properties keeps none: `torch: {type: object}` takes no field
    if closed and "additionalProperties" not in schema and ("properties" in out or schema.get("type") == "object"):
        out.setdefault("properties", {})  # so that an unknown field is reported by its name
        out["additionalProperties"] = False
    return out


def compiled_form(openapi_schema: dict[str, Any], strict: bool) -> dict[str, Any]:
    """What a validator derives from an openAPIV3Schema before it compiles it, as JSON data, so
    that it is derived once and kept on disk between runs (schemacache, by the schema's content):
    the draft-4 JSON schema for jsonschema-rs, whether RE2 patterns were taken out of it, and
    whether a default can change a verdict."""
    import orjson

    content = orjson.dumps([openapi_schema, strict], option=orjson.OPT_SORT_KEYS)
    code = [Path(__file__), Path(crformats.__file__)]
    form = schemacache.cached("jsonschema", code, lambda: _derive_form(openapi_schema, strict), content)
    return cast(dict[str, Any], form)


def _derive_form(openapi_schema: dict[str, Any], strict: bool) -> dict[str, Any]:
    root = to_json_schema(openapi_schema, strict)
    # The apiserver validates the object's metadata itself; the CRD only says `type: object`.
    # apiVersion and kind are always there, declared or not.
    props = root.setdefault("properties", {})
    props["metadata"] = {"type": "object"}
    props.setdefault("apiVersion", {"type": "string"})
    props.setdefault("kind", {"type": "string"})
    # A pattern in RE2 syntax that is no ECMA regex (`^(?i)[a-z]+$`, Kueue's) would stop
    # jsonschema-rs: such patterns are checked by _format_findings with Python's re instead.
    foreign = _drop_foreign_patterns(root)
    return {
        "jsonSchema": _shared_subschemas(root),
        "foreignPatterns": foreign,
        "defaultsMayMatter": _default_may_matter(openapi_schema),
        "marks": SchemaMarks(_MARKED).dump(openapi_schema),
    }


# The keys the walks over a schema look for (SchemaMarks), and which of their values count.
# (a value's test takes Any: a schema may hold anything under a key)
_MARKED: Final[dict[str, Callable[[Any], bool] | None]] = {
    "default": None,
    "x-kubernetes-validations": None,
    "x-kubernetes-list-type": lambda kind: kind in ("set", "map"),
    "x-kubernetes-embedded-resource": None,
    "format": lambda fmt: isinstance(fmt, str) and fmt in CHECKED_FORMATS,
}


# Subschemas at least this large (bytes of JSON) that a schema holds more than once are compiled
# once: a PaddleJob's pod template is in ps and in worker, and jsonschema-rs compiled it twice.
_SHARED_BYTES: Final = 1024
# where a JSON schema keeps subschemas: keyword -> how (one, a mapping of them, a list of them)
_SUBSCHEMAS: Final = {
    "items": "one",
    "additionalProperties": "one",
    "not": "one",
    "properties": "mapping",
    "patternProperties": "mapping",
    "allOf": "list",
    "anyOf": "list",
    "oneOf": "list",
}


def _shared_subschemas(root: dict[str, Any]) -> dict[str, Any]:
    """``root`` with each large subschema it holds more than once moved to `definitions` and
    referred to (`$ref`): the same schema, compiled once. CRD schemas have no `$ref` or
    `definitions` of their own (structural schemas forbid them)."""
    import orjson

    def key(node: dict[Any, Any]) -> bytes:
        text: bytes = orjson.dumps(node, option=orjson.OPT_SORT_KEYS)
        return text

    counts: dict[bytes, int] = {}
    for node in _subschemas(root):
        text = key(node)
        if len(text) >= _SHARED_BYTES:
            counts[text] = counts.get(text, 0) + 1
    definitions: dict[str, Any] = {}
    names: dict[bytes, str] = {}

    def rewrite(node: Any, top: bool = False) -> Any:
        if not isinstance(node, dict):
            return node
        if not top:
            text = key(node)
            if counts.get(text, 0) > 1:
                if text not in names:
                    names[text] = f"shared{len(names)}"
                    definitions[names[text]] = rewrite(node, top=True)
                return {"$ref": f"#/definitions/{names[text]}"}
        out: dict[Any, Any] = {}
        for keyword, value in node.items():
            how = _SUBSCHEMAS.get(keyword)
            if how == "one":
                out[keyword] = rewrite(value)
            elif how == "mapping" and isinstance(value, dict):
                out[keyword] = {name: rewrite(sub) for name, sub in value.items()}
            elif how == "list" and isinstance(value, list):
                out[keyword] = [rewrite(sub) for sub in value]
            else:
                out[keyword] = value
        return out

    if not counts or max(counts.values()) < 2:
        return root
    shared: dict[str, Any] = rewrite(root, top=True)
    shared["definitions"] = definitions
    return shared


def _subschemas(node: Any) -> Iterator[dict[Any, Any]]:
    """Every subschema below ``node`` (a JSON schema), in document order."""
    if not isinstance(node, dict):
        return
    for keyword, value in node.items():
        how = _SUBSCHEMAS.get(keyword)
        subs: list[Any]
        if how == "one":
            subs = [value]
        elif how == "mapping" and isinstance(value, dict):
            subs = list(value.values())
        elif how == "list" and isinstance(value, list):
            subs = value
        else:
            continue
        for sub in subs:
            if isinstance(sub, dict):
                yield sub
                yield from _subschemas(sub)


class CustomResourceValidator:
    """One version of a custom resource: its schema compiled once, its CEL rules compiled once
    per run for ``minor`` (the Kubernetes release whose CEL libraries the rules get; None: the
    newest this tool knows)."""

    def __init__(
        self,
        openapi_schema: dict[str, Any],
        strict: bool = True,
        minor: int | None = None,
        status_subresource: bool = False,
    ) -> None:
        self.schema = openapi_schema
        self.status_subresource = status_subresource
        form = compiled_form(openapi_schema, strict)
        self._re2_patterns: bool = form["foreignPatterns"]
        self._validator: jsonschema_rs.Validator = jsonschema_rs.Draft4Validator(form["jsonSchema"])
        # which parts of the schema have defaults, rules, list types: the walks skip the rest
        marks = SchemaMarks(_MARKED)
        marks.load(openapi_schema, form["marks"])
        self._defaults = marks.marked("default")
        rules = marks.marked("x-kubernetes-validations")
        # cel.py keeps the rules' plans by these marks in a WeakKeyDictionary, so they are a
        # partial (a type of Python's own): a compiled (native) Marked takes no weak reference,
        # and a compiled lambda, which does, is freed without clearing it (mypyc/mypyc#1102: the
        # entry outlives its key, and the garbage collector crashed on it in a test run)
        self._rules: Callable[[object], bool] = functools.partial(rules)
        self._list_types = marks.marked("x-kubernetes-list-type")
        self._embedded = marks.marked("x-kubernetes-embedded-resource")
        # Defaults change a verdict through the rules, a required field, or an object's property
        # count (list-map keys take their defaults in walks.repeats); else they are skipped.
        self._defaults_matter: bool = form["defaultsMayMatter"] and self._defaults(openapi_schema)
        self._formats: _Marks = marks.marked("format") if not self._re2_patterns else _everything
        # which walks a document needs is a fact of the schema: asked once, not per document
        self._has_embedded = self._embedded(openapi_schema)
        self._has_rules = self._rules(openapi_schema)
        self.minor = minor
        # The walks' plans of the schema (the properties below): made for the first document
        # that needs them, kept while the validator lives (one node of a plan per node of the
        # schema on the way to a mark, at most). Many validators check no document: not here.
        self._defaults_planned = False
        self._defaults_made: walks.DefaultsPlan | None = None
        self._format_planned = False
        self._format_made: walks.Walk | None = None
        self._list_planned = False
        self._list_made: walks.Walk | None = None

    @property
    def _defaults_plan(self) -> walks.DefaultsPlan | None:
        if not self._defaults_planned:
            self._defaults_made = _defaults_plan(self.schema, self._defaults) if self._defaults_matter else None
            self._defaults_planned = True
        return self._defaults_made

    @property
    def _format_walk(self) -> walks.Walk | None:
        if not self._format_planned:
            self._format_made = _walk(self.schema, self._formats, _format_test, _format_findings)
            self._format_planned = True
        return self._format_made

    @property
    def _list_walk(self) -> walks.Walk | None:
        if not self._list_planned:
            self._list_made = _walk(self.schema, self._list_types, walks.list_test, _duplicates)
            self._list_planned = True
        return self._list_made

    def findings(self, obj: Any, defaulted: bool = True) -> list[Finding]:
        """What the apiserver says of ``obj`` as a custom resource: its defaults applied first
        (``defaulted``; a CRD's `default` values are judged as written: structural.py, which
        passes a default of any type)."""
        if defaulted:
            defaults = self._defaults_plan
            if defaults is not None:
                obj = walks.apply_defaults(defaults, obj)
        # is_valid first: it stops at the first error, and most objects have none
        errors: Iterable[jsonschema_rs.ValidationError] = (
            () if self._validator.is_valid(obj) else self._validator.iter_errors(obj)
        )
        found = [Finding("error", *problem) for error in errors for problem in describe(error)]
        if self.status_subresource and "status" in obj:
            # With a status subresource a create cannot set status: PrepareForCreate deletes it
            # before validation (strategy.go); its unknown fields were found when decoding.
            found = [f for f in found if not _under_status(f.path) or f.rule == "unknown-field"]
            obj = {k: v for k, v in obj.items() if k != "status"}
        format_walk = self._format_walk
        if format_walk is not None:
            format_walk.add(obj, found)
        if self._has_embedded:
            found += embedded_findings(self.schema, obj, "", self._embedded, root=True)
        list_walk = self._list_walk
        if list_walk is not None:
            list_walk.add(obj, found)
        if self._has_rules and (self.minor is None or self.minor >= RULES_SINCE) and not any(map(_blocking, found)):
            from generator.validate.crd.cel import RuleRunner  # here: CEL (and its engine) only for schemas with rules

            found += RuleRunner(self.minor, self._rules).run(self.schema, obj)
        return sorted(found, key=_sort_key) if len(found) > 1 else found


def _sort_key(finding: Finding) -> tuple[str, str]:
    return finding.path, finding.message


def _plan(schema: Any, marked: _Marks, test_of: _TestOf) -> walks.Plan | None:
    """The plan of ``schema`` for the nodes ``marked`` (at or below which a mark is);
    ``test_of``: the check of a node's own value, or None where the node has nothing to check."""
    if not isinstance(schema, dict) or not marked(schema):
        return None
    properties: dict[str, walks.Plan] = {}
    for name, sub in marked.properties(schema):
        if (found := _plan(sub, marked, test_of)) is not None:
            properties[name] = found
    return walks.Plan(
        schema,
        test_of(schema),
        properties,
        _plan(schema.get("additionalProperties"), marked, test_of),
        _plan(schema.get("items"), marked, test_of),
    )


def _walk(schema: dict[str, Any], marked: _Marks, test_of: _TestOf, found_at: walks.FoundAt) -> walks.Walk | None:
    """The walk of ``schema``'s nodes ``marked``, or None when it has none."""
    plan = _plan(schema, marked, test_of)
    return walks.Walk(plan, found_at) if plan is not None else None


def _duplicates(schema: dict[Any, Any], value: object, path: tuple[Any, ...], out: list[Finding]) -> None:
    """Duplicates in a list-set or list-map: the apiserver's Duplicate value error."""
    if schema.get("x-kubernetes-list-type") not in ("set", "map") or not isinstance(value, list) or len(value) < 2:
        return
    keys: Any = schema.get("x-kubernetes-list-map-keys")  # a list: repeats yields no item of a list-map else
    for i, first in walks.repeats(schema, value):
        item = value[i]
        if schema["x-kubernetes-list-type"] == "set":
            what = f"{_short(item)} is in the list-set twice"
        else:
            same = ", ".join(f"{k}={_short(item.get(k))}" for k in keys)
            what = f"two items of the list-map have the same {same}"
        message = f"Duplicate value: {what} (see [{first}])"
        out.append(Finding("error", dotted([*path, i]), "schema", message))


def _format_check(schema: dict[Any, Any]) -> Callable[[str], bool] | None:
    """The check of a node's `format`, if kube-openapi checks it (CHECKED_FORMATS)."""
    fmt = schema.get("format")
    return CHECKED_FORMATS.get(fmt) if isinstance(fmt, str) else None


def _foreign_pattern(schema: dict[Any, Any]) -> str | None:
    """A node's `pattern` that jsonschema-rs refuses (_drop_foreign_patterns), checked here."""
    pattern = schema.get("pattern")
    return pattern if isinstance(pattern, str) and not _ecma_ok(pattern) else None


def _format_test(schema: dict[Any, Any]) -> walks.Test | None:
    """The check of a string of a node with a checked `format` or a foreign `pattern`. A string
    under a foreign pattern always takes _report: its match runs under a time limit, once."""
    if _foreign_pattern(schema) is not None:
        return lambda value: not isinstance(value, str)
    check = _format_check(schema)
    if check is None:
        return None
    return lambda value: not isinstance(value, str) or check(value)


def _format_findings(schema: dict[Any, Any], value: object, path: tuple[Any, ...], out: list[Finding]) -> None:
    """Strings that are not of their schema's `format` (CHECKED_FORMATS: the ones kube-openapi checks),
    or do not match an RE2 pattern jsonschema-rs cannot take (_drop_foreign_patterns)."""
    if not isinstance(value, str):
        return
    check = _format_check(schema)
    if check is not None and not check(value):
        out.append(Finding("error", dotted(path), "schema", f"{_short(value)} is not a valid {schema['format']!r}"))
    pattern = _foreign_pattern(schema)
    if pattern is not None:
        matched = _re2_matches(pattern, value)
        if matched is None:
            out.append(Finding("warning", dotted(path), "pattern-unchecked", _unchecked(pattern)))
        elif not matched:
            out.append(Finding("error", dotted(path), "schema", f"{_short(value)} does not match {pattern!r}"))


@functools.cache
def _ecma_ok(pattern: str) -> bool:
    try:
        jsonschema_rs.Draft4Validator({"pattern": pattern})
    except (jsonschema_rs.ValidationError, ValueError):
        return False
    return True


# What one RE2 `pattern` may take on Python's regex engine, which backtracks where the apiserver's
# RE2 runs in linear time: past it the value is not checked (a warning), never a hang.
PATTERN_SECONDS: float = 0.25


def _re2_matches(pattern: str, value: str) -> bool | None:
    """Whether ``value`` matches the RE2 ``pattern``; None when that could not be found out in
    PATTERN_SECONDS (or off the main thread, where no time limit can be set)."""
    try:
        with deadline.within(PATTERN_SECONDS):
            return _re2(pattern).search(value) is not None
    except (deadline.Expired, deadline.NotHere):
        return None


def _unchecked(pattern: str) -> str:
    shown = pattern if len(pattern) <= 60 else pattern[:57] + "..."
    return (
        f"not checked against the pattern {shown!r}: Python's regex engine took more than {PATTERN_SECONDS:g} s "
        "on it (a limit of this tool; the apiserver's RE2 does not backtrack)"
    )


@functools.cache
def _re2(pattern: str) -> re.Pattern[str]:
    """An RE2 pattern for Python's re, which takes inline flags only at the start."""
    flags = 0
    for letter, flag in (("i", re.IGNORECASE), ("s", re.DOTALL), ("m", re.MULTILINE)):
        if f"(?{letter})" in pattern:
            pattern, flags = pattern.replace(f"(?{letter})", ""), flags | flag
    try:
        return re.compile(pattern, flags)
    except re.error:
        return re.compile("")  # matches everything: the apiserver's verdict is unknown here


def _drop_foreign_patterns(schema: Any, names: bool = False) -> bool:
    """Remove the `pattern`s jsonschema-rs refuses from a JSON schema; True if there were any.
    ``names``: ``schema`` maps names to schemas (properties), so a key is no keyword there."""
    found = False
    if isinstance(schema, dict) and names:
        for value in schema.values():
            found = _drop_foreign_patterns(value) or found
    elif isinstance(schema, dict):
        if isinstance(schema.get("pattern"), str) and not _ecma_ok(schema["pattern"]):
            del schema["pattern"]
            found = True
        for key, value in schema.items():
            if key not in ("enum", "default"):
                found = _drop_foreign_patterns(value, key in NAME_MAPS) or found
    elif isinstance(schema, list):
        for item in schema:
            found = _drop_foreign_patterns(item) or found
    return found


_DNS1035: Final = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def embedded_findings(
    schema: Any, value: Any, path: str, marked: _Marks = _everything, root: bool = False
) -> list[Finding]:
    """An x-kubernetes-embedded-resource object's apiVersion, kind and metadata, as
    apiextensions-apiserver's schema/objectmeta Validate checks them (validateEmbeddedResource):
    apiVersion and kind required, kind a DNS-1035 label in any case, metadata's keys and values."""
    from generator.validate.rules.meta import metadata_findings

    if not isinstance(schema, dict) or not marked(schema):
        return []
    out: list[Finding] = []
    if isinstance(value, dict):
        if schema.get("x-kubernetes-embedded-resource") and not root:
            for key in ("apiVersion", "kind"):
                if not value.get(key):
                    out.append(Finding("error", child(path, key), "required", f"an embedded object needs {key}"))
            kind = value.get("kind")
            if isinstance(kind, str) and kind and not (len(kind) <= 63 and _DNS1035.match(kind.lower())):
                message = f"{kind!r} may have mixed case, but should otherwise be a DNS-1035 label"
                out.append(Finding("error", child(path, "kind"), "schema", message))
            if isinstance(value.get("metadata"), dict):
                for found in metadata_findings({"kind": kind, "metadata": value["metadata"]}, check_name=False):
                    out.append(Finding(found.severity, joined(path, found.path), found.rule, found.message))
        props: Any = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        extra = schema.get("additionalProperties")
        for name, item in value.items():
            sub = props.get(name, extra if isinstance(extra, dict) else None)
            if sub is not None:
                out += embedded_findings(sub, item, child(path, name), marked)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            out += embedded_findings(schema["items"], item, child(path, i), marked)
    return out


_COUNTED: Final = ("x-kubernetes-validations", "maxProperties", "minProperties")


# Keywords whose value maps names to schemas: a property may be called `default` or `enum`, and
# there it is a schema, not the keyword (a required property named `default` with a default).
NAME_MAPS: Final = frozenset({"properties", "patternProperties", "definitions"})


def _default_may_matter(schema: Any, names: bool = False) -> bool:
    """Whether a default can change a verdict somewhere in ``schema``: a CEL rule or a property
    count sees it, or a property is both required and defaulted (a default then satisfies it).
    One walk for all three: this runs for every schema a run compiles."""
    if isinstance(schema, dict) and names:
        return any(_default_may_matter(v) for v in schema.values())
    if isinstance(schema, dict):
        if any(key in schema for key in _COUNTED):
            return True
        props, required = schema.get("properties"), schema.get("required")
        if (
            isinstance(props, dict)
            and isinstance(required, list)
            and any(isinstance(props.get(name), dict) and "default" in props[name] for name in required)
        ):
            return True
        return any(_default_may_matter(v, k in NAME_MAPS) for k, v in schema.items() if k not in ("default", "enum"))
    if isinstance(schema, list):
        return any(_default_may_matter(v) for v in schema)
    return False


def _short(value: object) -> str:
    import json

    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


# x-kubernetes-validations (KEP-2876, feature gate CustomResourceValidationExpressions): alpha in
# 1.23 and off by default, beta and on from 1.25; a release without it drops the rules
RULES_SINCE: int = 25


def _under_status(path: str) -> bool:
    return path == "status" or path.startswith(("status.", "status["))


class SchemaMarks:
    """Which of several keys each schema node has at or below it (a bit per key), found for all
    keys in one walk of a subtree, when a node is first asked about; by identity: the schema
    lives as long as its validator. ``wanted``: key -> which of its values count (None: any)."""

    def __init__(self, wanted: dict[str, Callable[[Any], bool] | None]) -> None:
        self._wanted = [(1 << bit, key, accept) for bit, (key, accept) in enumerate(wanted.items())]
        self._bits = {key: bit for bit, key, _ in self._wanted}
        self._masks: dict[int, int] = {}
        self._complete = False

    def marked(self, key: str) -> Marked:
        return Marked(self, self._bits[key])

    def dump(self, schema: Any, names: bool = False) -> list[Any]:
        """The masks of ``schema``'s nodes as JSON data, for load: [mask, {key or index: ...}],
        with only the nodes that have a mark (most have none). ``names``: ``schema`` maps names
        to schemas (NAME_MAPS), where `default` and `enum` are property names, not keywords."""
        mask = self.mask(schema, names)
        keyword = isinstance(schema, dict) and not names
        items = schema.items() if isinstance(schema, dict) else enumerate(schema)
        below = {
            str(key): self.dump(value, keyword and key in NAME_MAPS)
            for key, value in items
            if not (keyword and key in ("default", "enum")) and self.mask(value, keyword and key in NAME_MAPS)
        }
        return [mask, below]

    def load(self, schema: Any, masks: list[Any]) -> None:
        """Takes the masks ``dump`` gave for ``schema``: no walk of the whole schema; a node
        of it that was not dumped has no mark."""
        self._complete = True

        def put(node: Any, entry: list[Any]) -> None:
            self._masks[id(node)] = entry[0]
            for key, below in entry[1].items():
                put(node[key] if isinstance(node, dict) else node[int(key)], below)

        put(schema, masks)

    def mask(self, node: Any, names: bool = False) -> int:
        """The marks at or below ``node``; ``names``: ``node`` maps names to schemas (NAME_MAPS)."""
        if not isinstance(node, _CONTAINERS):
            return 0
        found = self._masks.get(id(node))
        if found is None:
            found = 0
            if self._complete:  # loaded: a node not named has no mark
                return 0
            if isinstance(node, dict) and names:
                for value in node.values():
                    found |= self.mask(value)
            elif isinstance(node, dict):
                for bit, key, accept in self._wanted:
                    if key in node and (accept is None or accept(node[key])):
                        found |= bit
                for key, value in node.items():
                    if key not in ("default", "enum") and isinstance(value, _CONTAINERS):
                        found |= self.mask(value, key in NAME_MAPS)
            else:
                for value in node:
                    if isinstance(value, _CONTAINERS):
                        found |= self.mask(value)
            self._masks[id(node)] = found
        return found


class Marked:
    """Whether a schema node has one key of its SchemaMarks at or below it."""

    def __init__(self, marks: SchemaMarks, bit: int) -> None:
        self._marks = marks
        self._bit = bit
        self._masks = marks._masks  # looked up here first: the walks ask once per node and document
        self._properties: dict[int, list[tuple[str, Any]]] = {}

    def __call__(self, node: object) -> bool:
        found = self._masks.get(id(node)) if isinstance(node, _CONTAINERS) else 0
        if found is None:
            found = self._marks.mask(node)
        return bool(found & self._bit)

    def properties(self, node: dict[str, Any]) -> list[tuple[str, Any]]:
        """The properties of ``node`` that are marked (the ones a walk must visit)."""
        found = self._properties.get(id(node))
        if found is None:
            props = node.get("properties")
            found = [(k, v) for k, v in props.items() if self(v)] if isinstance(props, dict) else []
            self._properties[id(node)] = found
        return found


# The nodes a walk visits: the ones with a mark at or below them, or all of them.
_Marks = Marked | _Everything
# A node's check of its value (None: nothing to check at the node), from the node's schema.
_TestOf = Callable[[dict[Any, Any]], Callable[[object], bool] | None]


# hasBlockingErr in apiextensions-apiserver pkg/registry/customresource/strategy.go: these field
# errors (TypeInvalid, Required, NotSupported, TooLong, TooMany) stop the CEL rules.
_BLOCKING_MESSAGE: Final = lazy_pattern(r"is longer than|has more than|is too long|more than \d+ (items|properties)")


def _blocking(finding: Finding) -> bool:
    if finding.rule in ("type", "type-string", "required", "enum"):
        return True
    return finding.rule == "schema" and bool(_BLOCKING_MESSAGE().search(finding.message))


# -- defaults ----------------------------------------------------------------------------------


def _defaults_plan(schema: Any, marked: Marked) -> walks.DefaultsPlan | None:
    """The plan of ``schema`` for apply_defaults; ``marked``: the nodes with a default at or
    below them. None when ``schema`` has none."""
    if not isinstance(schema, dict) or not marked(schema):
        return None
    defaulted: list[walks.DefaultField] = []
    below: dict[str, walks.DefaultsPlan] = {}
    for name, sub in marked.properties(schema):
        # a marked property is a mapping or a list; only a mapping's plan is not None
        plan = _defaults_plan(sub, marked)
        if "default" in sub:
            default, nullable = sub["default"], bool(sub.get("nullable"))  # a list fails here
            assert plan is not None  # a mapping with a default is marked
            defaulted.append(walks.DefaultField(name, plan, default, nullable))
        elif plan is not None:  # a list's None was passed over by apply_defaults all the same
            below[name] = plan
    return walks.DefaultsPlan(
        tuple(defaulted),
        below,
        _defaults_plan(schema.get("additionalProperties"), marked),
        _defaults_plan(schema.get("items"), marked),
    )
