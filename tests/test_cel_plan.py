"""The CEL rules run along a plan of the schema made once per validator (cel.py: _plan, _Node,
_Converter), `self` given only the fields a rule reads when it reads nothing else (_reads), and
prune_nulls copies only what it drops. These tests pin what they give: the findings' paths,
messages and order, `self` as the apiserver builds it, and the pruned object."""

from __future__ import annotations

import copy
import datetime

import pytest

from generator.validate.crd import cel
from generator.validate.crd.validator import CustomResourceValidator
from generator.validate.crd.walks import prune_nulls


def rules(*texts: str, **extra) -> list[dict]:
    return [{"rule": text, **extra} for text in texts]


ITEM = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "size": {"type": "integer"}},
    "x-kubernetes-validations": rules("self.size < 10", "self.name != 'bad'"),
}
SCHEMA = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.mode != 'off'", "messageExpression": "'mode off, limit ' + string(self.limit)"},
                {"rule": "self.size() < 5", "fieldPath": ".items"},
                {"rule": "self == oldSelf"},  # a transition rule: not run on a create
            ],
            "properties": {
                "mode": {"type": "string"},
                "limit": {"type": "number"},
                "items": {"type": "array", "items": ITEM},
                "labels": {
                    "type": "object",
                    "additionalProperties": {"type": "string", "x-kubernetes-validations": rules("self != 'x'")},
                },
                "plain": {"type": "string"},
            },
        },
    },
    "x-kubernetes-validations": rules("self.metadata.name.startsWith('ok')"),
}


def run(obj: dict) -> list[tuple[str, str]]:
    """RuleRunner's findings in its own order (the validator sorts them), with the validator's marks."""
    marks = CustomResourceValidator(SCHEMA, minor=35)._rules
    return [(f.path, f.message) for f in cel.RuleRunner(35, marks).run(SCHEMA, obj)]


def test_a_clean_object_has_no_finding():
    obj = {"metadata": {"name": "ok-1"}, "spec": {"mode": "on", "items": [{"name": "a", "size": 1}]}}
    assert run(obj) == []


def test_findings_name_their_node_in_lists_and_maps_and_the_rule_field_path():
    spec = {
        "mode": "on",
        "items": [{"name": "a", "size": 1}, {"name": "bad", "size": 20}],
        "labels": {"a.b/c": "x", "fine": "y"},
        "plain": "z",
        "limit": 1,
        "unknown": 1,  # pruned before the rules run: not counted by self.size()
    }
    found = run({"metadata": {"name": "no"}, "spec": spec})
    assert found == [
        ("", "failed rule: self.metadata.name.startsWith('ok')"),
        ("spec.items", "failed rule: self.size() < 5"),
        ("spec.items[1]", "failed rule: self.size < 10"),
        ("spec.items[1]", "failed rule: self.name != 'bad'"),
        ('spec.labels["a.b/c"]', "failed rule: self != 'x'"),
    ]


def test_a_message_expression_sees_fields_its_rule_does_not_read():
    # the rule reads only `mode` (_reads): its messageExpression reads `limit`, a double in CEL
    found = run({"metadata": {"name": "ok"}, "spec": {"mode": "off", "limit": 3}})
    assert found == [("spec", "mode off, limit 3 (x-kubernetes-validations rule: self.mode != 'off')")]


def test_the_plan_is_made_once_per_schema_and_leaves_out_what_has_no_rule():
    validator = CustomResourceValidator(SCHEMA, minor=35)
    validator.findings({"metadata": {"name": "ok"}, "spec": {}})
    ((schema, plan),) = cel._PLANS[validator._rules].values()
    validator.findings({"metadata": {"name": "ok"}, "spec": {"mode": "on"}})
    assert cel._PLANS[validator._rules][35, id(SCHEMA)][1] is plan and schema is SCHEMA
    (spec,) = [sub for name, sub in plan.properties if name == "spec"]
    assert [name for name, _ in spec.properties] == ["items", "labels"]  # not mode, limit, plain
    assert [rule.text for rule in spec.rules] == ["self.mode != 'off'", "self.size() < 5"]  # no oldSelf


@pytest.mark.parametrize(
    ("text", "reads"),
    [
        ("self.metadata.name.matches('^a')", {"metadata": None}),
        ("has(self.a) && self.b.size() > 0", {"a": None, "b": None}),
        ("[has(self.torch), has(self.mpi)].filter(x, x).size() <= 1", {"torch": None, "mpi": None}),
        ("'self' == self.x // self.size()", {"x": None}),  # in a string and a comment: no read
        ("'''it\\''' self''' == self.q", {"q": None}),
        ("r'\\' == self.z", {"z": None}),
        ("self.__namespace__ == 'a'", {"__namespace__": None}),
        # JobSet's: of each replicated job, only dependsOn
        (
            "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
            "self.replicatedJobs.exists(x, has(x.dependsOn)))",
            {"startupPolicy": None, "replicatedJobs": {"dependsOn": None}},
        ),
        ("self.a.all(x, x.b > 0 && self.c.exists(y, y.d == x.e))", {"a": {"b": None, "e": None}, "c": {"d": None}}),
        ("self.a.exists(x, x.b) && self.a.all(y, y.c)", {"a": {"b": None, "c": None}}),
        ("self.a.exists(x, x.b) && self.a.size() > 1", {"a": None}),
        ("self.a.all(x, x > 0)", {"a": None}),
        ("self.a.all(x, x.b.all(x, x > 0))", {"a": None}),
        ("self.a.map(x, x.b).size() > 0", {"a": None}),
        ("self.a.all(x, y.x)", {"a": None}),
        ("self == 1", None),
        ("self.size() > 0", None),
        ("self.startsWith ('a')", None),
        ("self['a'] == 1", None),
        ("self.?a.hasValue()", None),
        ("'a' in self", None),
        ("self.a.all(self, self > 0)", None),
        ("x.self == self.a", None),
        (".self.a == 1", None),
        ("self.`a-b` == 1", None),
        ("'''it\\'''' == self.a && self", None),
    ],
)
def test_reads_names_the_fields_a_rule_reads_of_self(text, reads):
    assert cel._reads(text) == reads


def test_self_is_built_as_the_apiserver_builds_it():
    schema = {
        "type": "object",
        "properties": {
            "metadata": {"type": "object"},
            "namespace": {"type": "string"},
            "a.b": {"type": "number"},
            "1st": {"type": "string"},
            "when": {"type": "string", "format": "date-time"},
            "wait": {"type": "string", "format": "duration"},
            "data": {"type": "string", "format": "byte"},
            "map": {"type": "object", "additionalProperties": {"type": "number"}},
            "inner": {
                "type": "object",
                "x-kubernetes-embedded-resource": True,
                "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            },
        },
    }
    value = {
        "apiVersion": "v1",
        "kind": "K",
        "metadata": {"name": "n", "labels": {"a": "b"}, "generateName": "g"},
        "namespace": "ns",
        "a.b": 2,
        "1st": "x",
        "when": "2020-01-01T00:00:01Z",
        "wait": "1m30s",
        "data": "aGk=",
        "map": {"k.1": 1},
        "inner": {"kind": "Pod", "metadata": {"name": "p", "namespace": "q"}, "spec": {"any": 1}, "other": 2},
        "unknown": 1,
    }
    converted = cel._Converter(schema, root=True).convert(value)
    when, wait = converted.pop("when"), converted.pop("wait")
    assert datetime.datetime.fromtimestamp(when.seconds, datetime.UTC).isoformat() == "2020-01-01T00:00:01+00:00"
    assert (wait.seconds, wait.nanos) == (90, 0)
    assert converted == {
        "apiVersion": "v1",
        "kind": "K",
        "metadata": {"name": "n", "generateName": "g"},
        "__namespace__": "ns",
        "namespace": "ns",
        "a__dot__b": 2.0,
        "data": b"hi",
        "map": {"k.1": 1.0},
        "inner": {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"any": 1}},
    }
    assert list(converted) == [
        "apiVersion",
        "kind",
        "metadata",
        "__namespace__",
        "namespace",
        "a__dot__b",
        "data",
        "map",
        "inner",
    ]
    assert cel._Converter(schema, root=True).convert(value, {"namespace": None}) == {
        "__namespace__": "ns",
        "namespace": "ns",
    }


def test_prune_nulls_copies_only_the_way_to_a_dropped_null():
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "a": {"type": "string"},
                    "b": {"type": "string", "nullable": True},
                    "c": {"type": "string", "default": "x"},
                    "list": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "string"}}}},
                },
            },
            "status": {"type": "object", "properties": {"s": {"type": "string"}}},
        },
    }
    obj = {
        "status": {"s": "ok"},
        "spec": {"list": [{"v": "1"}, {"v": None, "w": None}], "a": None, "b": None, "c": None, "d": None},
    }
    before = copy.deepcopy(obj)
    pruned = prune_nulls(obj, schema)
    assert obj == before  # not changed
    assert pruned == {
        "status": {"s": "ok"},
        "spec": {"list": [{"v": "1"}, {"w": None}], "b": None, "c": None, "d": None},
    }
    assert list(pruned["spec"]) == ["list", "b", "c", "d"]
    assert pruned["status"] is obj["status"] and pruned["spec"]["list"][0] is obj["spec"]["list"][0]
    assert prune_nulls(before, {}) is before  # nothing declared, nothing dropped: no copy


def test_a_list_a_macro_runs_over_keeps_only_the_fields_its_items_are_read_by():
    spec = cel._Converter(SCHEMA["properties"]["spec"])
    value = {"mode": "on", "items": [{"name": "a", "size": 1}, "odd"], "labels": {"a": "x"}}
    assert spec.convert(value, {"items": {"name": None}}) == {"items": [{"name": "a"}, "odd"]}
    assert spec.convert(value, {"items": None}) == {"items": [{"name": "a", "size": 1}, "odd"]}
    # a macro over a map runs over its keys: the map is whole
    assert spec.convert(value, {"labels": {"b": None}}) == {"labels": {"a": "x"}}
