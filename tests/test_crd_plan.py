"""The custom resource validator's walks follow plans of the schema made once per validator
(validator.py): the defaults (_defaults_plan), the list types and formats (_plan, _cleaner,
_report: an object without a finding is checked without building a path, one with a finding
walked again for paths and messages). These tests pin what they give: the defaulted object and
its keys' order, the findings' paths, messages and order."""

from __future__ import annotations

import copy

import pytest

from generator.validate.crd.validator import CustomResourceValidator

ENV = {
    "type": "array",
    "nullable": True,
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["name"],
    "items": {"type": "object", "properties": {"name": {"type": "string"}, "value": {"type": "string"}}},
}
CONTAINERS = {
    "type": "array",
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["name"],
    "items": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "image": {"type": "string"},
            "env": ENV,
            "ports": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
                "items": {
                    "type": "object",
                    "properties": {
                        "containerPort": {"type": "integer"},
                        "protocol": {"type": "string", "default": "TCP"},
                    },
                },
            },
        },
    },
}
SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "template": {
                    "type": "object",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "properties": {
                                "containers": CONTAINERS,
                                "initContainers": CONTAINERS,
                                "hostname": {"type": "string"},
                                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                            },
                        }
                    },
                },
                "groups": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "array",
                        "x-kubernetes-list-type": "set",
                        "items": {"type": "integer"},
                    },
                },
                "schedule": {
                    "type": "object",
                    "properties": {"at": {"type": "array", "items": {"type": "string", "format": "cidr"}}},
                },
            },
        },
    },
}


# An RE2 pattern jsonschema-rs refuses: checked with the formats, along every node of the schema
RE2_SCHEMA = copy.deepcopy(SCHEMA)
RE2_SCHEMA["properties"]["spec"]["properties"]["code"] = {"type": "string", "pattern": "^(?i)[a-z]+$"}


@pytest.fixture(scope="module", params=[SCHEMA, RE2_SCHEMA], ids=["marks", "re2"])
def validator(request):
    return CustomResourceValidator(request.param, strict=False, minor=35)


@pytest.fixture(scope="module")
def re2_validator():
    return CustomResourceValidator(RE2_SCHEMA, strict=False, minor=35)


def job(**spec) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": spec}


def pod(*containers, **fields) -> dict:
    return {"template": {"spec": {"containers": list(containers), **fields}}}


def found(validator, obj) -> list[tuple[str, str, str, str]]:
    return [tuple(f) for f in validator.findings(obj)]


def test_an_object_without_a_finding_has_none_and_a_list_of_its_own(validator):
    obj = job(
        **pod({"name": "a", "env": [{"name": "X"}, {"name": "Y"}]}, {"name": "b", "env": None}, tags=["x", "y"]),
        groups={"g": [1, 2]},
        schedule={"at": ["10.0.0.0/8"]},
    )
    first = validator.findings(obj)
    assert first == []
    first.append("changed by a caller")
    assert validator.findings(obj) == []


def test_a_duplicate_deep_in_list_maps_has_its_path(validator):
    obj = job(**pod({"name": "a"}, {"name": "b", "env": [{"name": "X"}, {"name": "Y", "value": "1"}, {"name": "X"}]}))
    assert found(validator, obj) == [
        (
            "error",
            "spec.template.spec.containers[1].env[2]",
            "schema",
            'Duplicate value: two items of the list-map have the same name="X" (see [0])',
        )
    ]


def test_a_list_map_key_takes_its_default_before_items_are_compared(validator):
    ports = [{"containerPort": 80}, {"containerPort": 80, "protocol": "TCP"}, {"containerPort": 80, "protocol": "UDP"}]
    assert found(validator, job(**pod({"name": "a", "ports": ports}))) == [
        (
            "error",
            "spec.template.spec.containers[0].ports[1]",
            "schema",
            'Duplicate value: two items of the list-map have the same containerPort=80, protocol="TCP" (see [0])',
        )
    ]


def test_fields_are_found_whether_the_object_or_the_plan_has_more(validator):
    """A pod spec plans three fields: one object has one of them, one has them all and more."""
    few = job(**pod({"name": "a"}, {"name": "a"}))
    many = job(replicas=1, **pod({"name": "a"}, hostname="h", tags=["t", "t"], initContainers=[], extra=1))
    assert [f[1] for f in found(validator, few)] == ["spec.template.spec.containers[1]"]
    assert found(validator, many) == [
        ("error", "spec.template.spec.tags[1]", "schema", 'Duplicate value: "t" is in the list-set twice (see [0])')
    ]


def test_a_list_set_under_additional_properties_is_named_by_its_key(validator):
    assert found(validator, job(groups={"a.b": [1, 2, 1, 1], "c": [1]})) == [
        ("error", 'spec.groups["a.b"][2]', "schema", "Duplicate value: 1 is in the list-set twice (see [0])"),
        ("error", 'spec.groups["a.b"][3]', "schema", "Duplicate value: 1 is in the list-set twice (see [0])"),
    ]


def test_formats_and_foreign_patterns_are_checked_in_lists_and_sorted_with_the_rest(re2_validator):
    assert re2_validator.findings(job(code="ABC")) == []
    obj = job(**pod({"name": "a"}, {"name": "a"}), schedule={"at": ["10.0.0.0/8", "10.0.0.0/33"]}, code="a-b")
    assert found(re2_validator, obj) == [
        ("error", "spec.code", "schema", "\"a-b\" does not match '^(?i)[a-z]+$'"),
        ("error", "spec.schedule.at[1]", "schema", "\"10.0.0.0/33\" is not a valid 'cidr'"),
        (
            "error",
            "spec.template.spec.containers[1]",
            "schema",
            'Duplicate value: two items of the list-map have the same name="a" (see [0])',
        ),
    ]


def test_a_format_is_checked_in_a_list(validator):
    assert found(validator, job(schedule={"at": ["10.0.0.0/8", "10.0.0.0/33", "10.0.0.0/33"]})) == [
        ("error", "spec.schedule.at[1]", "schema", "\"10.0.0.0/33\" is not a valid 'cidr'"),
        ("error", "spec.schedule.at[2]", "schema", "\"10.0.0.0/33\" is not a valid 'cidr'"),
    ]


def test_a_value_of_another_type_on_the_way_is_the_schemas_finding_only(validator):
    obj = job(template={"spec": "none"}, groups={"g": 3}, schedule={"at": "10.0.0.0/8"})
    assert [(f[1], f[2]) for f in found(validator, obj)] == [
        ("spec.groups.g", "type"),
        ("spec.schedule.at", "type"),
        ("spec.template.spec", "type"),
    ]


DEFAULTED = {
    "type": "object",
    "required": ["spec"],
    "properties": {
        "spec": {
            "type": "object",
            "required": ["mode"],
            "properties": {
                "mode": {"type": "string", "default": "fast"},
                "limit": {"type": "integer", "nullable": True, "default": 3},
                "tags": {"type": "array", "items": {"type": "string"}, "default": ["a"]},
                "workers": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "port": {"type": "integer", "default": 80}},
                    },
                },
                "pools": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "properties": {"size": {"type": "integer", "default": 1}},
                    },
                },
                **{
                    f"unused{i}": {"type": "object", "properties": {"x": {"type": "integer", "default": i}}}
                    for i in range(4)
                },
            },
        }
    },
}


@pytest.fixture(scope="module")
def defaults():
    """The defaults the validator applies (apply_defaults along its plan) to an object."""
    from generator.validate.crd.walks import apply_defaults

    validator = CustomResourceValidator(DEFAULTED, strict=False, minor=35)
    return lambda obj: apply_defaults(validator._defaults_plan, obj)


def test_defaults_are_added_in_the_schemas_order_and_the_object_is_not_changed(defaults):
    spec = {
        "workers": [{"name": "w"}, {"name": "v", "port": 8080}],
        "limit": None,
        "pools": {"p": {}, "q": {"size": 2}},
    }
    obj = {"spec": spec}
    out = defaults(obj)
    assert out["spec"] == {
        "workers": [{"name": "w", "port": 80}, {"name": "v", "port": 8080}],
        "limit": None,  # nullable: a null stays
        "pools": {"p": {"size": 1}, "q": {"size": 2}},
        "mode": "fast",
        "tags": ["a"],
    }
    assert list(out["spec"]) == ["workers", "limit", "pools", "mode", "tags"]
    assert obj == {"spec": spec} and spec["workers"][0] == {"name": "w"} and spec["pools"]["p"] == {}
    assert out["spec"]["workers"][1] is spec["workers"][1]  # what takes no default is not copied


def test_a_default_is_a_copy_and_an_object_with_every_default_is_itself(defaults):
    first, second = defaults({"spec": {}}), defaults({"spec": {}})
    assert first["spec"]["tags"] == ["a"] and first["spec"]["tags"] is not second["spec"]["tags"]
    full = {"spec": {"mode": "slow", "limit": 1, "tags": [], "unused2": {"x": 5}, "workers": [{"port": 1}]}}
    assert defaults(full) is full
    assert defaults({"spec": {"mode": None, "unused3": {}}})["spec"] == {
        "mode": "fast",
        "unused3": {"x": 3},
        "tags": ["a"],
        "limit": 3,
    }
