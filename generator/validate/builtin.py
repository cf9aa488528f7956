"""Validate built-in Kubernetes objects against the API definitions of one or more releases.

Strict, like the apiserver's strict field validation: unknown fields, wrong
types and missing required fields are errors.  Each (release, kind) schema is
the closure of definitions reachable from the kind; releases whose closure is
equal share one compiled validator, so checking an object against
twenty releases costs about as much as checking it against the few that differ.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import jsonschema_rs

from generator.core.findings import Finding, joined, version_span
from generator.schema import kubernetes as kube
from generator.validate.admission import builtin_defaults
from generator.validate.schemaerrors import describe, integer_bounds

_DRAFT = "https://json-schema.org/draft/2020-12/schema"


class KubeValidator:
    def __init__(self) -> None:
        # definition -> [(closure, validator)]: releases with an equal closure share a validator
        self._compiled: dict[str, list[tuple[dict[Any, Any], jsonschema_rs.Validator]]] = {}
        self._by_version_kind: dict[tuple[int, str], jsonschema_rs.Validator] = {}

    def _validator(self, minor: int, definition: str) -> jsonschema_rs.Validator:
        """The compiled validator of ``definition`` on release ``minor`` (shared where equal)."""
        key = (minor, definition)
        if key not in self._by_version_kind:
            closure = kube.closure(minor, definition)
            known = self._compiled.setdefault(definition, [])
            # dict equality runs in C and stops at the first difference
            validator = next((v for seen, v in known if seen == closure), None)
            if validator is None:
                definitions = _with_integer_bounds(closure)  # decode: int32/int64 as Go reads them
                schema = {"$schema": _DRAFT, "$ref": f"#/definitions/{definition}", "definitions": definitions}
                validator = jsonschema_rs.validator_for(schema)
                known.append((closure, validator))
            self._by_version_kind[key] = validator
        return self._by_version_kind[key]

    def validate_as(self, value: Any, definition: str, minor: int, prefix: str) -> list[Finding]:
        """Findings for ``value`` checked as the Kubernetes type ``definition`` (e.g. ObjectMeta)."""
        validator = self._validator(minor, definition)
        if validator.is_valid(value):  # it stops at the first error, and most values have none
            return []
        out: list[Finding] = []
        for error in validator.iter_errors(value):
            for path, rule, message in describe(error):
                out.append(Finding("error", joined(prefix, path), rule, message))
        return out

    def validate(self, obj: dict[Any, Any], minors: list[int]) -> list[Finding]:
        """Findings for ``obj`` on each release in ``minors``, merged across releases."""
        api_version: Any = obj.get("apiVersion")  # any value: one not a string is served by no release
        kind: Any = obj.get("kind")
        obj = builtin_defaults(obj)  # decode, default, validate: the apiserver's order
        problems: dict[tuple[str, str, str], list[int]] = {}
        verdicts: dict[jsonschema_rs.Validator, list[tuple[str, str, str]]] = {}  # per shared validator: runs once
        for minor in minors:
            definition = kube.kinds(minor).get((api_version, kind))
            found: list[tuple[str, str, str]]
            if definition is None:
                found = [("apiVersion", "kind-not-served", f"{api_version} {kind} is not served")]
            else:
                validator = self._validator(minor, definition)
                verdict = verdicts.get(validator)
                if verdict is None:  # is_valid first: it stops at the first error, and most objects have none
                    errors: Iterable[jsonschema_rs.ValidationError] = (
                        () if validator.is_valid(obj) else validator.iter_errors(obj)
                    )
                    verdict = verdicts[validator] = [
                        problem for error in errors for problem in describe(error) if not _status_required(problem)
                    ]
                found = verdict
            for problem in found:
                problems.setdefault(problem, []).append(minor)
        findings: list[Finding] = []
        for (path, rule, message), where in problems.items():
            scope = "" if len(minors) == 1 else f" (on {version_span(where)})"
            findings.append(Finding("error", path, rule, message + scope))
        return sorted(findings, key=lambda f: (f.path, f.message))


def _status_required(problem: tuple[str, str, str]) -> bool:
    """A `required` of the OpenAPI document under a built-in object's status: no finding. The
    document's `required` is a Go field without omitempty, not a check of the apiserver, which
    validates built-in kinds in Go (pkg/apis/<group>/validation) and on create drops the status
    a manifest gives (each strategy's PrepareForCreate: `pod.Status = api.PodStatus{...}`), so a
    container status without imageID (`kubectl get -o yaml` output) is created. What the status
    holds is still decoded: a wrong type or an unknown field there stays a finding."""
    path, rule, _ = problem
    return rule == "required" and path.startswith("status.")


def _with_integer_bounds(node: Any) -> Any:
    """``node`` (a closure of definitions, or a schema in it) with the range of each integer's
    format as its minimum and maximum (schemaerrors.integer_bounds): the documents of every release
    say int32 or int64 of each integer field, which the apiserver decodes into that Go type first.
    Copied where it changes, once per compiled closure."""
    if isinstance(node, dict):
        if INT_OR_STRING in node:  # IntOrString.UnmarshalJSON reads a number into its int32 IntVal
            node = {**node, INT_OR_STRING: _int_or_string_bounds(node[INT_OR_STRING])}
        bounded = integer_bounds(node) if "format" in node else None
        out = bounded or node
        for key, value in node.items():
            if isinstance(value, dict | list):
                new = _with_integer_bounds(value)
                if new is not value:
                    if out is node:
                        out = dict(node)
                    out[key] = new
        return out
    if isinstance(node, list):
        items = [_with_integer_bounds(item) for item in node]
        return items if any(a is not b for a, b in zip(items, node, strict=True)) else node
    return node


INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"


def _int_or_string_bounds(schema: Any) -> Any:
    """The integer branch of IntOrString's schema (a oneOf of string and integer) bounded as int32."""
    branches = schema.get("oneOf") if isinstance(schema, dict) else None
    if not isinstance(branches, list):
        return schema
    return {**schema, "oneOf": [_int32_branch(b) for b in branches]}


def _int32_branch(branch: Any) -> Any:
    if isinstance(branch, dict) and "format" not in branch:
        return integer_bounds(branch, "int32") or branch
    return branch
