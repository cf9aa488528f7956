"""The CEL cost estimate of CRD rules (generator/validate/crd/celcost.py) against Kubernetes' own
numbers: TestCostEstimation in staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/
cel/compilation_test.go (kubernetes v1.31), each case once with no bounds (expectedCalcCost) and
once with maxItems/maxProperties/maxLength set (expectedSetCost); then the cardinality, the
message and the per-schema total of validation.go and cel_validation.go, and the largest maxItems
the apiserver's ValidateCustomResourceDefinition accepts for `self.all(x, x.contains('gpu'))`,
as measured by binary search against it (909,090 items of at most 16 characters, 333,333 of 63,
94,339 of 253, 24,154 of 1,024)."""

from __future__ import annotations

import pytest

from generator.validate.crd import celcost, celtypes, kubecel, structural


def estimate(schema: dict, rule: str) -> int | None:
    """MaxCost of ``rule`` on ``schema``, as compilation_test.go's schemaChecker computes it:
    Compile(schema, SchemaDeclType(schema, false), ...) (not a resource root)."""
    env = celtypes.SchemaTypes(schema).environment(kubecel.environment(31), schema)
    decl = celcost.schema_decl(schema, False, {})
    assert env is not None and decl is not None
    return celcost.max_cost(env.compile(rule).serialize(), decl)


def _scalar(kind: str) -> dict:
    if kind in ("duration", "date", "date-time"):  # parseRuleType
        return {"type": "string", "format": kind}
    if kind == "int-or-string":
        return {"x-kubernetes-int-or-string": True}
    return {"type": kind}


def _bounded(schema: dict, key: str, bound: int | None) -> dict:
    return schema if bound is None else {**schema, key: bound}


def array(kind):  # genArrayWithRule
    return lambda n: _bounded({"type": "array", "items": _scalar(kind)}, "maxItems", n)


def array_of_arrays(kind):  # genArrayOfArraysWithRule
    return lambda n: _bounded({"type": "array", "items": {"type": "array", "items": {"type": kind}}}, "maxItems", n)


_OBJECT = {  # genObjectForMap and the items of genObjectArrayWithRule
    "type": "object",
    "properties": {"required": {"type": "string"}, "optional": {"type": "string"}},
    "required": ["required"],
}


def object_array(n):  # genObjectArrayWithRule
    return _bounded({"type": "array", "items": _OBJECT}, "maxItems", n)


def a_map(kind):  # genMapWithRule, genMapWithCustomItemRule
    values = _scalar(kind) if isinstance(kind, str) else kind
    return lambda n: _bounded({"type": "object", "additionalProperties": values}, "maxProperties", n)


def map_array(kind):  # getMapArrayWithRule
    items = {"type": "object", "additionalProperties": {"type": kind}}
    return lambda n: _bounded({"type": "array", "items": items}, "maxItems", n)


def string(n):  # genStringWithRule
    return _bounded({"type": "string"}, "maxLength", n)


def bytes_(n):  # genBytesWithRule
    return _bounded({"type": "string", "format": "byte"}, "maxLength", n)


def nested_spec(n):  # genNestedSpecWithRule
    return _bounded({"type": "object", "additionalProperties": string(n)}, "maxProperties", n)


def all_max_nested(n):  # genAllMaxNestedSpecWithRootRule
    inner = _bounded({**_OBJECT}, "maxProperties", n)
    items = _bounded({"type": "object", "additionalProperties": inner}, "maxProperties", n)
    return _bounded({"type": "array", "items": items}, "maxItems", n)


def one_max_nested(n):  # genOneMaxNestedSpecWithRootRule
    items = _bounded({"type": "object", "additionalProperties": _OBJECT}, "maxProperties", n)
    return {"type": "array", "items": items}


def strings_array(n):  # the join and isSorted cases
    return _bounded({"type": "array", "items": string(n)}, "maxItems", n)


def replace_object(n):
    return {
        "type": "object",
        "properties": {
            "str": string(n),
            "before": {"type": "string", "maxLength": 2},
            "after": {"type": "string", "maxLength": 4},
        },
    }


def split_object(n):
    return {"type": "object", "properties": {"str": string(n), "separator": string(n)}}


def enum(n):  # genEnumWithRuleAndValues("self.contains('A')", "A", "B", "C", "LongValue")
    return _bounded({"type": "string", "enum": ["A", "B", "C", "LongValue"]}, "maxLength", n)


# (name, schema generator, rule, expectedCalcCost, setMaxElements, expectedSetCost), as there
UPSTREAM = [
    ("number array with all", array("number"), "self.all(x, true)", 4718591, 10, 32),
    ("string array with all", array("string"), "self.all(x, true)", 3145727, 20, 62),
    ("boolean array with all", array("boolean"), "self.all(x, true)", 1887437, 5, 17),
    ("array of number arrays with all", array_of_arrays("number"), "self.all(x, true)", 3145727, 100, 302),
    ("array of objects with all", object_array, "self.all(x, true)", 555128, 50, 152),
    ("map of numbers with all", a_map("number"), "self.all(x, true)", 1348169, 10, 32),
    ("map of strings with all", a_map("string"), "self.all(x, true)", 1179647, 3, 11),
    ("map of booleans with all", a_map("boolean"), "self.all(x, true)", 943718, 100, 302),
    ("string with contains", string, "self.contains('test')", 314574, 10, 5),
    ("string with startsWith", string, "self.startsWith('test')", 2, 15, 2),
    ("string with endsWith", string, "self.endsWith('test')", 2, 30, 2),
    ("concat string", string, 'size(self + "hello") > size("hello")', 314578, 4, 7),
    ("index of array with numbers", array("number"), "self[1] == 0.0", 2, 5000, 2),
    ("index of array with strings", array("string"), "self[1] == self[1]", 314577, 8, 314577),
    ("O(n^2) loop with numbers", array("number"), "self.all(x, self.all(y, true))", None, 10, 352),
    ("O(n^3) loop with numbers", array("number"), "self.all(x, self.all(y, self.all(z, true)))", None, 10, 3552),
    ("regex matches simple", string, 'self.matches("x")', 314574, 50, 22),
    ("regex matches empty string", string, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7),
    ("regex matches empty regex", string, 'self.matches("")', 1, 100, 1),
    ("map of strings with value length", nested_spec, "self.all(x, x.contains(self[x]))", 2752507, 10, 72),
    ("set array maxLength to zero", array("number"), "self[3] == 0.0", 2, 0, 2),
    ("set map maxLength to zero", a_map("number"), 'self["x"] == 0.0', 2, 0, 2),
    ("set string maxLength to zero", string, 'self == "x"', 2, 0, 1),
    ("set bytes maxLength to zero", bytes_, 'self == b"x"', 2, 0, 1),
    ("set maxLength greater than estimated", array("number"), "self.all(x, x == 0.0)", 6291454, 6291456, 25165826),
    ("nested, all supporting maxLength", all_max_nested, 'self.all(x, x["y"].required == "z")', 7340027, 10, 72),
    ("nested, one supporting maxLength", one_max_nested, 'self.all(x, x["y"].required == "z")', 7340027, 10, 7340027),
    ("int-or-string array with all", array("int-or-string"), "self.all(x, true)", 4718591, 10, 32),
    ("index of array with int-or-strings", array("int-or-string"), "self[0] == 5", 3, 10, 3),
    ("index of array with booleans", array("boolean"), "self[0] == false", 2, 25, 2),
    ("index of array of objects", object_array, "self[0] == null", 2, 422, 2),
    ("index of array of array of numbers", array_of_arrays("number"), "self[0][0] == -1.0", 3, 51, 3),
    ("array of number maps with all", map_array("number"), "self.all(x, x.y == 25.2)", 6291452, 12, 74),
    ("index of array of number maps", map_array("number"), "self[0].x > 2.0", 4, 3000, 4),
    ("duration array with all", array("duration"), "self.all(x, true)", 2359295, 5, 17),
    ("index of duration array", array("duration"), "self[0].getHours() == 2", 4, 525, 4),
    ("date array with all", array("date"), "self.all(x, true)", 725936, 15, 47),
    ("index of date array", array("date"), "self[2].getDayOfMonth() == 13", 4, 42, 4),
    ("date-time array with all", array("date-time"), "self.all(x, true)", 428963, 25, 77),
    ("index of date-time array", array("date-time"), "self[2].getMinutes() == 45", 4, 99, 4),
    ("map of int-or-strings with all", a_map("int-or-string"), "self.all(x, true)", 1348169, 15, 47),
    ("map of objects with all", a_map(_OBJECT), "self.all(x, true)", 428963, 20, 62),
    ("map of durations with all", a_map("duration"), "self.all(x, true)", 1048577, 5, 17),
    ("map of dates with all", a_map("date"), "self.all(x, true)", 524288, 10, 32),
    ("map of date-times with all", a_map("date-time"), "self.all(x, true)", 349526, 25, 77),
    ("extended library regex find", string, "self.find('[0-9]+') == ''", 629147, 10, 11),
    ("extended library join", strings_array, "self.join(' ') == 'aa bb'", 329853068905, 10, 43),
    ("extended library isSorted", strings_array, "self.isSorted() == true", 329854432052, 10, 52),
    (
        "extended library replace",
        replace_object,
        "self.str.replace(self.before, self.after) == 'does not matter'",
        629154,
        4,
        12,
    ),
    ("extended library split", split_object, "self.str.split(self.separator) == []", 629160, 10, 22),
    ("extended library lowerAscii", string, "self.lowerAscii() == 'lower!'", 314575, 10, 6),
    ("check cost of size call", a_map("integer"), "oldSelf.size() == self.size()", 5, 10, 5),
    ("check cost of timestamp comparison", a_map("date-time"), 'self["a"] == self["b"]', 8, 7, 8),
    ("check cost of duration comparison", a_map("duration"), 'self["c"] == self["d"]', 8, 42, 8),
    ("enums with maxLength of the longest value", enum, "self.contains('A')", 2, 1000, 401),
]


@pytest.mark.parametrize(("name", "schema", "rule", "calc", "bound", "bounded"), UPSTREAM, ids=[c[0] for c in UPSTREAM])
def test_upstream_cost_estimation(name, schema, rule, calc, bound, bounded):
    got = estimate(schema(None), rule)
    if calc is None:  # expectCalcCostExceedsLimit: costLimit (100,000,000) there
        assert got is not None and got >= 100_000_000
    else:
        assert got == calc
    assert estimate(schema(bound), rule) == bounded


def test_ext_sets_cost():
    # ext/sets.go estimateSetsCost: |a| * |b| * factor + 1, plus the arguments
    schema = {"type": "array", "maxItems": 10, "items": {"type": "integer"}}
    assert estimate(schema, "sets.contains(self, [1, 2])") == 10 * 2 + 1 + 1 + 10
    assert estimate(schema, "sets.equivalent(self, [1, 2])") == 10 * 2 * 2 + 1 + 1 + 10


def test_unestimable_rules_get_no_estimate():
    # below a list of lists celtypes.py types the members dyn: a dyn result cel-go would type
    lists = {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}
    inner = 2 + 1572863 * (2 + 1 + 2)  # 3 MiB of [0,...]: 1572863 items; x > 0 costs 2
    assert estimate(lists, "self.all(l, l.all(x, x > 0))") == 2 + 1048575 * (2 + 1 + inner)
    assert estimate(lists, "self.map(l, l[0] + 1).all(x, x > 0)") is not None  # cel-go's types too
    assert estimate(lists, "self.all(l, dyn(l).size() > 0)") is None
    # the format library's value() is typed dyn here
    names = {"type": "string", "maxLength": 10}
    assert estimate(names, "!format.dns1123Label().validate(self).hasValue()") is not None
    assert estimate(names, "format.dns1123Label().validate(self).value().size() == 0") is None


def test_cardinality_multiplies_bounds_and_stops_at_unbounded():
    leaf = {"type": "string"}
    inner = {"type": "array", "maxItems": 5, "items": leaf}
    obj = {"type": "object", "properties": {"inner": inner}}
    outer = {"type": "array", "maxItems": 4, "items": obj}
    unbounded = {"type": "object", "additionalProperties": {"type": "integer"}}
    root = {"type": "object", "properties": {"outer": outer, "free": unbounded}}
    found = celcost.cardinalities(root)
    assert found[id(root)] == 1 and found[id(outer)] == 1
    assert found[id(obj)] == 4 and found[id(inner)] == 4 and found[id(leaf)] == 20
    assert found[id(unbounded["additionalProperties"])] is None
    # unbounded: maxCardinality(MinSerializedSize) = 3 MiB / (size + 1)
    decl = celcost.schema_decl(leaf, False, {})
    assert decl is not None
    assert celcost.expression_cost(3, None, decl) == 3 * (3 * 1024 * 1024 // 3)
    assert celcost.expression_cost(3, 20, decl) == 60


def test_cost_message_as_get_cost_error_message():
    tail = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps,"
    assert celcost.cost_message("estimated rule cost", 12_000_000, 10_000_000).startswith(
        f"estimated rule cost exceeds budget by factor of 1.200000x {tail}"
    )
    assert "factor of 2.5x" in celcost.cost_message("estimated rule cost", 25_000_000, 10_000_000)
    assert "factor of more than 100x" in celcost.cost_message("estimated rule cost", 2 * 10**9, 10_000_000)


def test_total_keeps_the_four_most_expensive():
    total = celcost.TotalCost()
    for i, cost in enumerate([5, 2_000_000, 3_000_000, 1_000_000, 9_000_000, 2_000_000, 999_999]):
        celcost.observe(total, f"r{i}", cost)
    assert total.total == 18_000_004
    assert [path for _cost, _seen, path in total.most_expensive] == ["r4", "r2", "r1", "r5"]


def _crd(spec_schema: dict) -> dict:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Thing", "plural": "things"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec_schema}}},
                }
            ],
        },
    }


def _cost_findings(spec_schema: dict) -> list[tuple[str, str]]:
    return [(f.path, f.message) for f in structural.crd_findings(_crd(spec_schema), 31) if f.rule == "crd-cel-cost"]


RULE = "self.all(h, h.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'))"
WHERE = "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.hosts.x-kubernetes-validations[0]"
ROOT = "spec.versions[0].schema.openAPIV3Schema"


def test_per_rule_limit_and_its_near_miss():
    hosts = {"type": "array", "items": {"type": "string"}, "x-kubernetes-validations": [{"rule": RULE}]}
    found = _cost_findings({"type": "object", "properties": {"hosts": hosts}})
    assert [path for path, _ in found] == [f"{WHERE}.rule", f"{WHERE}.rule", ROOT]
    assert found[0][1].startswith("estimated rule cost exceeds budget by factor of more than 100x")
    assert found[1][1] == "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
    bounded = {**hosts, "maxItems": 16, "items": {"type": "string", "maxLength": 253}}
    assert _cost_findings({"type": "object", "properties": {"hosts": bounded}}) == []


def test_messageexpression_cost_is_not_multiplied_by_cardinality():
    # validation.go line 1267: cr.MessageExpressionMaxCost alone against the limit
    message = "self.map(h, h + ', ').join('') + ' are not all DNS labels'"
    hosts = {"type": "array", "items": {"type": "string"}, "x-kubernetes-validations": [
        {"rule": "size(self) > 0", "messageExpression": message}]}  # fmt: skip
    found = _cost_findings({"type": "object", "properties": {"hosts": hosts}})
    assert [path for path, _ in found][:1] == [f"{WHERE}.messageExpression"]
    assert found[0][1].startswith("estimated messageExpression cost exceeds budget")


def test_optional_old_self_rules_are_not_estimated():
    hosts = {"type": "array", "items": {"type": "string"}, "x-kubernetes-validations": [
        {"rule": f"oldSelf.hasValue() || {RULE}", "optionalOldSelf": True}]}  # fmt: skip
    assert _cost_findings({"type": "object", "properties": {"hosts": hosts}}) == []


def test_string_conversion_in_a_messageexpression_is_refused():
    # string()'s result has no size bound: '+' saturates (as a real apiserver answers: "estimated
    # messageExpression cost exceeds budget by factor of more than 100x"); format() does not
    replicas = {"type": "object", "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}}}
    concat = "'min (' + string(self.min) + ') is above max'"
    formatted = "'min (%d) is above max'.format([self.min])"
    rules = [{"rule": "self.min <= self.max", "messageExpression": message} for message in (concat, formatted)]
    found = _cost_findings({**replicas, "x-kubernetes-validations": rules})
    where = "spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations"
    assert found[0][0] == f"{where}[0].messageExpression"
    assert "more than 100x" in found[0][1]
    assert all(not path.startswith(f"{where}[1]") for path, _ in found)


@pytest.mark.parametrize(("max_length", "largest"), [(16, 909_090), (63, 333_333), (253, 94_339), (1024, 24_154)])
def test_largest_accepted_max_items_as_measured_on_the_validator(max_length, largest):
    # `self.all(x, x.contains('gpu'))` on spec.tags, binary-searched against the apiserver's own
    # ValidateCustomResourceDefinition: the largest maxItems it accepts for each maxLength
    def tags(max_items: int) -> dict:
        items = {"type": "string", "maxLength": max_length}
        rule = {"rule": "self.all(x, x.contains('gpu'))"}
        tags = {"type": "array", "maxItems": max_items, "items": items, "x-kubernetes-validations": [rule]}
        return {"type": "object", "properties": {"tags": tags}}

    assert _cost_findings(tags(largest)) == []
    assert _cost_findings(tags(largest + 1)) != []
