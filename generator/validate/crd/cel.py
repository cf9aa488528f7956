"""A CRD's x-kubernetes-validations rules run over an object, as the apiextensions apiserver
runs them on a create (apiextensions-apiserver pkg/apiserver/schema/cel/validation.go,
Validator.Validate): every node with a value, `self` built from it as the apiserver builds it,
transition rules (oldSelf) skipped. The CEL environment is kubecel.py's."""

from __future__ import annotations

import base64
import datetime
import re

from generator.core.findings import Finding, child
from generator.core.grammar import CEL_RESERVED_WORDS
from generator.validate.crd import kubecel
from generator.validate.crd.formats import parse_datetime, parse_duration

# k8s.io/apiserver/pkg/cel/escaping.go: how a property name is spelt in a rule

_ACCESSIBLE = re.compile(r"^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$")


def escaped(name: str) -> str | None:
    """The name a rule reads a property by (None: no rule can read it)."""
    if name in CEL_RESERVED_WORDS:
        return f"__{name}__"
    if not _ACCESSIBLE.match(name):
        return None
    return (
        name.replace("__", "__underscores__").replace(".", "__dot__").replace("-", "__dash__").replace("/", "__slash__")
    )


def cel_value(schema: dict, value, root: bool = False):
    """``value`` as the apiserver hands it to CEL (UnstructuredToVal in k8s.io/apiserver/pkg/cel/
    common/values.go): numbers are doubles, date-time and date strings timestamps, durations
    durations, bytes bytes; an object's properties under their escaped names, without the fields
    its schema prunes; the metadata of the root (and of an embedded resource) holds only name and
    generateName."""
    if not isinstance(schema, dict):  # no schema (preserved unknown fields, metadata): as it is
        return value
    if isinstance(value, dict):
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else None
        extra = schema.get("additionalProperties")
        if props is None and isinstance(extra, dict):
            return {k: cel_value(extra, v) for k, v in value.items()}
        props = props or {}
        keeps = schema.get("x-kubernetes-preserve-unknown-fields") is True
        always = ("apiVersion", "kind", "metadata") if root or schema.get("x-kubernetes-embedded-resource") else ()
        out = {}
        for name, item in value.items():
            if name not in props and not keeps and name not in always:
                continue  # pruned before the rules run
            sub = props.get(name)
            if (root or schema.get("x-kubernetes-embedded-resource")) and name == "metadata" and isinstance(item, dict):
                item = {k: item[k] for k in ("name", "generateName") if k in item}
                sub = None
            alias = escaped(name)
            if alias is None:
                continue  # no rule can read it
            converted = cel_value(sub, item)
            out[alias] = converted
            if name in CEL_RESERVED_WORDS:
                # released CRDs read `metadata.namespace` unescaped (JobSet v0.12, Kueue v0.19),
                # which the apiserver accepts: both spellings are there
                out[name] = converted
        return out
    if isinstance(value, list):
        items = schema.get("items") if isinstance(schema.get("items"), dict) else None
        return [cel_value(items, item) for item in value]
    kind = schema.get("type")
    if kind == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == "string" and isinstance(value, str):
        fmt = schema.get("format")
        if fmt in ("date-time", "datetime", "date"):
            moment = parse_datetime(value if fmt != "date" else value + "T00:00:00Z")
            return _timestamp(moment) if moment is not None else value
        if fmt == "duration":
            span = parse_duration(value)
            return _duration(span) if span is not None else value
        if fmt == "byte":
            try:
                return base64.b64decode(value, validate=True)
            except ValueError:
                return value
    return value


def _timestamp(moment: datetime.datetime):
    """A CEL timestamp: cel-expr-python takes protobuf's Timestamp (not a datetime)."""
    from google.protobuf import timestamp_pb2

    since = moment - datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    seconds = since.days * 86400 + since.seconds
    return timestamp_pb2.Timestamp(seconds=seconds, nanos=since.microseconds * 1000)


def _duration(span: datetime.timedelta):
    """A CEL duration: protobuf's Duration."""
    from google.protobuf import duration_pb2

    whole = span.days * 86400 + span.seconds
    micros = span.microseconds
    if whole < 0 and micros:  # Duration's seconds and nanos share a sign
        whole, micros = whole + 1, micros - 1_000_000
    return duration_pb2.Duration(seconds=whole, nanos=micros * 1000)


class RuleRunner:
    """Runs the x-kubernetes-validations rules of a schema over an object (cel/validation.go's
    Validator.Validate, for a create: no oldSelf)."""

    def __init__(self, minor: int | None, marked=None):
        from generator.schema import kubernetes as kube

        self.env = kubecel.environment(minor if minor is not None else kube.newest())
        self.marked = marked  # which schema nodes have rules at or below them (None: all)

    def run(self, schema: dict, obj: dict) -> list[Finding]:
        out: list[Finding] = []
        self._node(schema, obj, "", out, root=True)
        return out

    def _node(self, schema, value, path: str, out: list[Finding], root: bool = False) -> None:
        if not isinstance(schema, dict) or value is None or (self.marked is not None and not self.marked(schema)):
            return
        rules = schema.get("x-kubernetes-validations")
        if isinstance(rules, list) and rules:
            self._rules(rules, schema, value, path, out, root)
        if isinstance(value, dict):
            props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
            for name, sub in props.items():
                if name in value and not (root and name == "metadata"):
                    self._node(sub, value[name], child(path, name), out)
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict):
                for name, item in value.items():
                    self._node(extra, item, child(path, name), out)
        elif isinstance(value, list) and isinstance(schema.get("items"), dict):
            for i, item in enumerate(value):
                self._node(schema["items"], item, child(path, i), out)

    def _rules(self, rules: list, schema: dict, value, path: str, out: list[Finding], root: bool) -> None:
        self_value = None
        for rule in rules:
            if not isinstance(rule, dict) or not isinstance(rule.get("rule"), str):
                continue
            text = rule["rule"]
            if re.search(r"\boldSelf\b", text):
                if rule.get("optionalOldSelf") is True:  # runs on create too, with oldSelf none
                    out.append(_unsupported(path, text, "optionalOldSelf (oldSelf as optional.none() on create)"))
                continue  # a transition rule: the apiserver runs it on update only
            try:
                program = self.env.compile(text)
            except kubecel.CelProblem as problem:
                out.append(_unsupported(path, text, str(problem)))
                continue
            if self_value is None:
                self_value = cel_value(schema, value, root=root)
            result, error = program.run({"self": self_value})
            where = _field_path(path, rule.get("fieldPath"))
            if error is not None:
                if error.split(":", 1)[0] in ("UNIMPLEMENTED",):
                    out.append(_unsupported(where, text, error))
                else:
                    out.append(Finding("error", where, "cel-rule", f"{error} evaluating rule: {_shown_rule(text)}"))
            elif result is not True:
                out.append(Finding("error", where, "cel-rule", self._message(rule, self_value)))

    def _message(self, rule: dict, self_value) -> str:
        """messageExpression's result, else message, else "failed rule: RULE" (validation.go)."""
        message = rule.get("message") if isinstance(rule.get("message"), str) and rule.get("message") else None
        expression = rule.get("messageExpression")
        if isinstance(expression, str):
            try:
                result, error = self.env.compile(expression).run({"self": self_value})
            except kubecel.CelProblem:
                result, error = None, "cannot compile"
            if error is None and isinstance(result, str) and result.strip():
                message = result
        shown = _shown_rule(rule["rule"])
        message = f"{message} (x-kubernetes-validations rule: {shown})" if message else f"failed rule: {shown}"
        prefix = {
            "FieldValueForbidden": "Forbidden: ",
            "FieldValueRequired": "Required value: ",
            "FieldValueDuplicate": "Duplicate value: ",
        }.get(rule.get("reason"), "")
        return prefix + message


def _shown_rule(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 120 else text[:117] + "..."


def _unsupported(path: str, rule: str, why: str) -> Finding:
    return Finding("warning", path, "cel-unsupported", f"the rule {_shown_rule(rule)!r} was not checked: {why}")


_FIELD_PATH_TOKEN = re.compile(r"\.([A-Za-z0-9_$-]+)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]")


def _field_path(path: str, field_path) -> str:
    """The node's path with the rule's fieldPath (".spec.a", ".m['key']", ".l[0]") under it."""
    if not isinstance(field_path, str) or not field_path:
        return path
    out, position = path, 0
    while position < len(field_path):
        match = _FIELD_PATH_TOKEN.match(field_path, position)
        if not match:
            return path
        name, quoted, index = match.groups()
        out = child(out, int(index) if index is not None else (name if name is not None else quoted))
        position = match.end()
    return out
