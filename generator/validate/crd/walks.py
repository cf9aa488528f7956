"""The walks a custom resource takes through its CRD's schema, document by document: nulls pruned,
defaults applied, and the checks jsonschema-rs cannot make (formats, list-sets and list-maps)
run along a plan of the schema. Compiled by mypyc (core/compiled.py): every document of a custom
kind goes through here.

The plans are made once per validator, from the schema's marks (validator.py): a plan has a node
only on the way to a node that matters, so a document costs the paths of the plan it has, not
the schema's size.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any, Final

from generator.core.findings import Finding

# a mapping or a list (a tuple for isinstance: `dict | list` is a new union each time it is run)
_CONTAINERS: Final = (dict, list)
_ATOMIC: Final = (str, int, float, bool, type(None))  # what copy.deepcopy gives back as it is

Test = Callable[[object], bool]  # a node's check of a value: False if it has a finding
FoundAt = Callable[[dict[Any, Any], object, tuple[Any, ...], list[Finding]], None]


class _Dropped:
    """prune_nulls: the mark of a null that is dropped."""


_DROPPED: Final = _Dropped()


def prune_nulls(data: object, schema: object) -> object:
    """``data`` as the apiserver holds it before validating (apiextensions-apiserver
    structuraldefaulting.PruneNonNullableNullsWithoutDefaults, from Kubernetes 1.20): the null
    of a field the schema declares, not nullable and without a default, is dropped. A null
    field the schema does not declare stays: pruning (schema/pruning/algorithm.go prune)
    removes an undeclared field whatever its value, and strict field validation reports it
    as unknown (`creationTimestamp: null` in a pod template's metadata). ``data`` is not
    changed: only the mappings and lists on the way to a dropped null are copied."""
    node: dict[Any, Any] = schema if isinstance(schema, dict) else {}
    if isinstance(data, dict):
        properties = node.get("properties") or {}
        extra = node.get("additionalProperties")
        extra = extra if isinstance(extra, dict) else None
        changed: dict[Any, object] = {}  # key -> the value pruned, or _DROPPED
        for key, value in data.items():
            if value is None:
                declared = properties.get(key, extra)
                if declared is not None and not declared.get("nullable") and "default" not in declared:
                    changed[key] = _DROPPED
            elif isinstance(value, _CONTAINERS):
                pruned = prune_nulls(value, properties.get(key, extra))
                if pruned is not value:
                    changed[key] = pruned
        if not changed:
            return data
        return {key: changed.get(key, value) for key, value in data.items() if changed.get(key) is not _DROPPED}
    if isinstance(data, list):
        items = node.get("items")
        return changed_items(data, lambda item: prune_nulls(item, items if isinstance(items, dict) else None))
    return data


def changed_items(items: list[Any], change: Callable[[object], object]) -> list[Any]:
    """``items`` with ``change`` applied to each mapping or list among them: ``items`` itself
    when it changes none, else a copy made at the first change (prune_nulls, apply_defaults)."""
    out = items
    for i, item in enumerate(items):
        if isinstance(item, _CONTAINERS):
            new = change(item)
            if new is not item:
                if out is items:
                    out = list(items)
                out[i] = new
    return out


# -- the checks along a plan -------------------------------------------------------------------


class Plan:
    """The nodes of a schema that one walk visits (the ones on the way to a node with its mark),
    made once per validator: a document then costs only the paths of the plan it has."""

    def __init__(
        self,
        schema: dict[Any, Any],
        test: Test | None,
        properties: dict[str, Plan],
        extra: Plan | None,
        items: Plan | None,
    ) -> None:
        self.schema = schema
        self.test = test  # the node's own check of a value
        self.properties = properties  # the properties on the way, in the schema's order
        self.extra = extra  # additionalProperties
        self.items = items


def cleaner(plan: Plan) -> Test:
    """``plan`` as a function of a value: whether it has nothing for the walk to report. It
    builds no path and stops at the first finding: most objects have none, and the ones that
    do are walked again by report for the findings' paths and messages. One function per node,
    of the node's shape (a leaf's test, an object's, a list's); every one is true of None, so
    that an object's null field is passed over."""
    names: list[str] = []
    while plan.test is None and plan.extra is None and plan.items is None and len(plan.properties) == 1:
        ((name, plan),) = plan.properties.items()
        names.append(name)
    if names:
        return _path_cleaner(tuple(names), cleaner(plan))
    test = plan.test
    properties = {name: cleaner(sub) for name, sub in plan.properties.items()}
    extra = cleaner(plan.extra) if plan.extra is not None else None
    items = cleaner(plan.items) if plan.items is not None else None
    if properties or extra is not None:
        fields = _object_cleaner(properties, extra)
        if test is None and items is None:
            return fields
        rest = _list_cleaner(test, items)
        return lambda value: fields(value) and rest(value)
    if items is not None:
        return _list_cleaner(test, items)
    return test if test is not None else _nothing


def _path_cleaner(names: tuple[str, ...], sub: Test) -> Test:
    """A chain of objects of one field each (spec.template.spec on the way to a pod's lists)."""

    def clean(value: object) -> bool:
        for name in names:
            if not isinstance(value, dict):
                return True
            value = value.get(name)
            if value is None:
                return True
        return sub(value)

    return clean


def _nothing(_value: object) -> bool:
    return True


def _object_cleaner(properties: dict[str, Test], extra: Test | None) -> Test:
    """An object's fields on the way: looked up from the shorter side (a pod spec plans ten
    fields, has two)."""
    count = len(properties)

    def clean(value: object) -> bool:
        if not isinstance(value, dict):
            return True
        if len(value) < count:
            for name, item in value.items():
                sub = properties.get(name)
                if sub is not None and not sub(item):
                    return False
        else:
            for name, sub in properties.items():
                item = value.get(name)
                if item is not None and not sub(item):
                    return False
        if extra is not None:
            for item in value.values():
                if not extra(item):
                    return False
        return True

    return clean


def _list_cleaner(test: Test | None, items: Test | None) -> Test:
    """A node's own test, then a list's items."""

    def clean(value: object) -> bool:
        if test is not None and not test(value):
            return False
        if items is not None and isinstance(value, list):
            for item in value:
                if not items(item):
                    return False
        return True

    return clean


def report(plan: Plan, value: object, path: tuple[Any, ...], found_at: FoundAt, out: list[Finding]) -> None:
    """The findings of ``value`` along ``plan``: ``found_at(schema, value, path, out)`` adds a
    node's own, in the schema's order of properties, then additionalProperties, then items."""
    found_at(plan.schema, value, path, out)
    if isinstance(value, dict):
        for name, sub in plan.properties.items():
            if name in value:
                report(sub, value[name], (*path, name), found_at, out)
        if plan.extra is not None:
            for name, item in value.items():
                report(plan.extra, item, (*path, name), found_at, out)
    elif isinstance(value, list) and plan.items is not None:
        for i, item in enumerate(value):
            report(plan.items, item, (*path, i), found_at, out)


class Walk:
    """A walk of documents along a schema's plan: its cleaner for every document, report only
    for one with a finding."""

    def __init__(self, plan: Plan, found_at: FoundAt) -> None:
        self.plan = plan
        self.clean = cleaner(plan)
        self.found_at = found_at

    def add(self, value: object, out: list[Finding]) -> None:
        """Adds the findings of ``value`` to ``out``."""
        if not self.clean(value):
            report(self.plan, value, (), self.found_at, out)


# -- defaults ----------------------------------------------------------------------------------


class DefaultField:
    """A property with a default of its own."""

    def __init__(self, name: str, plan: DefaultsPlan, default: object, nullable: bool) -> None:
        self.name = name
        self.plan = plan  # the property's own
        self.default = default
        self.atomic = default.__class__ in _ATOMIC  # neither copied nor walked
        self.nullable = nullable


class DefaultsPlan:
    """The nodes of a schema with a default at or below them, made once per validator: what
    apply_defaults visits, with no mark to look up per node and document."""

    def __init__(
        self,
        defaulted: tuple[DefaultField, ...],
        below: dict[str, DefaultsPlan],
        extra: DefaultsPlan | None,
        items: DefaultsPlan | None,
    ) -> None:
        self.defaulted = defaulted  # the properties with a default of their own
        self.below = below  # the others with a default below them, in the schema's order
        self.extra = extra  # additionalProperties
        self.items = items


def apply_defaults(plan: DefaultsPlan, value: object) -> object:
    """``value`` with the schema's defaults applied, as structuraldefaulting.Default does: a
    property that is absent (or null where the schema is not nullable) takes its default, in
    objects, in list items and in map values. ``value`` is not changed: the mappings and lists
    a default goes into are copied. A property without a default of its own matters only when
    the object has it (as a mapping or list): those are looked up from the shorter side, and
    they only replace values, so the defaults added come in the schema's order all the same."""
    if isinstance(value, dict):
        out = value
        for field in plan.defaulted:
            name = field.name
            current = value.get(name)
            if current is None and (not field.nullable or name not in value):
                new = field.default if field.atomic else apply_defaults(field.plan, copy.deepcopy(field.default))
            elif isinstance(current, _CONTAINERS):
                new = apply_defaults(field.plan, current)
                if new is current:
                    continue
            else:
                continue
            if out is value:
                out = dict(value)
            out[name] = new
        below = plan.below
        if below:
            for name in value if len(value) < len(below) else below:
                sub, current = below.get(name), value.get(name)
                if sub is not None and isinstance(current, _CONTAINERS):
                    new = apply_defaults(sub, current)
                    if new is not current:
                        if out is value:
                            out = dict(value)
                        out[name] = new
        extra = plan.extra
        if extra is not None:
            for name, current in value.items():
                new = apply_defaults(extra, current) if isinstance(current, _CONTAINERS) else current
                if new is not current:
                    if out is value:
                        out = dict(value)
                    out[name] = new
        return out
    items = plan.items
    if isinstance(value, list) and items is not None:
        return changed_items(value, lambda item: apply_defaults(items, item))
    return value


_LIST_KINDS: Final = ("set", "map")  # the list types whose items are compared (atomic: none)


def list_test(schema: dict[Any, Any]) -> Test | None:
    """The check of a list-set's or list-map's value (structurallisttype.ValidateListSetsAndMaps):
    no item repeats an earlier one."""
    if schema.get("x-kubernetes-list-type") not in _LIST_KINDS:
        return None
    return lambda value: not isinstance(value, list) or len(value) < 2 or next(repeats(schema, value), None) is None


def repeats(schema: dict[Any, Any], value: list[Any]) -> Iterator[tuple[int, int]]:
    """(i, j) for each item i of a list-set (list-map) the same as (with the same keys as) an
    earlier item j."""
    kind, keys = schema.get("x-kubernetes-list-type"), schema.get("x-kubernetes-list-map-keys")
    keys = keys if isinstance(keys, list) else None
    seen: dict[object, int] = {}
    for i, item in enumerate(value):
        if kind == "set":
            key = hashable(item)
        elif keys is not None and isinstance(item, dict):
            key = tuple(hashable(item[k] if k in item else _key_default(schema, k)) for k in keys)
        else:
            continue
        if key not in seen:
            seen[key] = i
        else:
            yield i, seen[key]


def _key_default(schema: dict[Any, Any], key: object) -> object:
    """The default of a list-map key (the apiserver defaults before it compares items)."""
    items = schema.get("items")
    props = items.get("properties") if isinstance(items, dict) else None
    sub = props.get(key) if isinstance(props, dict) else None
    return sub.get("default") if isinstance(sub, dict) else None


_SCALAR_KINDS: Final = {str: "s", bool: "b", int: "n", float: "n", type(None): "z"}


def hashable(value: object) -> object:
    """``value`` as a key two equal items share: 1 and 1.0 are one number; True is not 1."""
    kind = _SCALAR_KINDS.get(value.__class__)
    if kind is not None:
        return (kind, value)
    if isinstance(value, dict):
        return ("{}", tuple(sorted((k, hashable(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("[]", tuple(hashable(v) for v in value))
    return (type(value).__name__, value)
