"""A CRD's x-kubernetes-validations rules run over an object, as the apiextensions apiserver
runs them on a create (apiextensions-apiserver pkg/apiserver/schema/cel/validation.go,
Validator.Validate): every node with a value, `self` built from it as the apiserver builds it,
transition rules (oldSelf) skipped. The CEL environment is kubecel.py's."""

from __future__ import annotations

import base64
import datetime
import functools
import re
import weakref
from typing import NamedTuple

from generator.core.findings import Finding, child, dotted
from generator.core.grammar import CEL_RESERVED_WORDS
from generator.validate.crd import kubecel
from generator.validate.crd.formats import parse_datetime, parse_duration

# k8s.io/apiserver/pkg/cel/escaping.go: how a property name is spelt in a rule

_ACCESSIBLE = re.compile(r"^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$")


@functools.lru_cache(maxsize=4096)
def escaped(name: str) -> str | None:
    """The name a rule reads a property by (None: no rule can read it)."""
    if name in CEL_RESERVED_WORDS:
        return f"__{name}__"
    if not _ACCESSIBLE.match(name):
        return None
    return (
        name.replace("__", "__underscores__").replace(".", "__dot__").replace("-", "__dash__").replace("/", "__slash__")
    )


class _Converter:
    """A schema node's values as the apiserver hands them to CEL (UnstructuredToVal in
    k8s.io/apiserver/pkg/cel/common/values.go): numbers are doubles, date-time and date strings
    timestamps, durations durations, bytes bytes; an object's properties under their escaped
    names, without the fields its schema prunes; the metadata of the root (and of an embedded
    resource) holds only name and generateName. ``schema`` None (preserved unknown fields,
    metadata): values as they are. What a node's properties are called in CEL is found on its
    first object, once per schema: a document then costs a lookup per field."""

    __slots__ = ("schema", "scalar", "_root", "_ready", "_fields", "_each", "_keeps", "_always", "_meta", "_items")

    def __init__(self, schema, root: bool = False):
        self.schema = schema if isinstance(schema, dict) else None
        self.scalar = _scalar_conversion(self.schema) if self.schema is not None else None
        self._root = root
        self._ready = False

    def _prepare(self) -> None:
        """The node's facts for objects and lists, looked up on its first one."""
        schema = self.schema
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else None
        extra = schema.get("additionalProperties")
        self._each = _Converter(extra) if props is None and isinstance(extra, dict) else None
        embedded = self._root or bool(schema.get("x-kubernetes-embedded-resource"))
        # the metadata of the root and of an embedded resource: only name and generateName (_other)
        self._meta = props.get("metadata") if embedded and props is not None else None
        self._fields = {
            name: (escaped(name), _Converter(sub), name in CEL_RESERVED_WORDS)
            for name, sub in (props or {}).items()
            if not (embedded and name == "metadata")
        }
        self._keeps = schema.get("x-kubernetes-preserve-unknown-fields") is True
        self._always = _ALWAYS if embedded else ()
        items = schema.get("items")
        self._items = _Converter(items) if isinstance(items, dict) else None
        self._ready = True

    def convert(self, value, only: dict | None = None):
        """``value`` for CEL; ``only``: of an object, the fields of these names in CEL are enough
        (all that a rule reads of it, _reads), of a field that holds a list, maybe only some
        fields of its items."""
        if self.schema is None:
            return value
        if not self._ready:
            self._prepare()
        if isinstance(value, dict):
            if self._each is not None:
                return {k: self._each.convert(v) for k, v in value.items() if only is None or k in only}
            fields, out = self._fields, {}
            for name, item in value.items():
                if only is not None and name not in only and escaped(name) not in only:
                    continue  # no CEL name of the field is read
                entry = fields.get(name)
                if entry is None:
                    self._other(name, item, out)
                    continue
                alias, sub, reserved = entry
                if alias is None:
                    continue  # no rule can read it
                below = only.get(name) if only is not None and alias == name else None
                if below is not None and isinstance(item, list):
                    item = sub.convert_items(item, below)
                elif item.__class__ not in _PLAIN or sub.scalar is not None:
                    item = sub.convert(item)
                out[alias] = item
                if reserved:
                    # released CRDs read `metadata.namespace` unescaped (JobSet v0.12, Kueue v0.19),
                    # which the apiserver accepts: both spellings are there
                    out[name] = item
            return out
        if isinstance(value, list):
            sub = self._items
            if sub is None:
                return list(value)
            if sub.scalar is None:
                return [item if item.__class__ in _PLAIN else sub.convert(item) for item in value]
            return [sub.convert(item) for item in value]
        return self.scalar(value) if self.scalar is not None else value

    def convert_items(self, value: list, only: dict):
        """A list for CEL, of its items (of objects) only the fields of these names in CEL."""
        if self.schema is None:
            return list(value)
        if not self._ready:
            self._prepare()
        items = self._items
        if items is None:
            return list(value)
        return [items.convert(item, only) if isinstance(item, dict) else items.convert(item) for item in value]

    def _other(self, name: str, item, out: dict) -> None:
        """A field of an object that its schema does not name (or the metadata of the root or of
        an embedded resource): kept as it is where the schema keeps unknown fields, else pruned
        before the rules run."""
        if name == "metadata" and self._always:
            if isinstance(item, dict):
                item = {k: item[k] for k in ("name", "generateName") if k in item}
            elif self._meta is not None:
                item = _Converter(self._meta).convert(item)
        elif not self._keeps and name not in self._always:
            return
        alias = escaped(name)
        if alias is None:
            return
        out[alias] = item
        if name in CEL_RESERVED_WORDS:
            out[name] = item


_ALWAYS = ("apiVersion", "kind", "metadata")  # what the root and an embedded resource always keep
_PLAIN = frozenset({str, int, float, bool, type(None)})  # values a node without a scalar conversion keeps


def _scalar_conversion(schema: dict):
    """How a node turns a number or a string into CEL's (None: it keeps them as they are)."""
    kind = schema.get("type")
    if kind == "number":
        return _double
    fmt = schema.get("format") if kind == "string" else None
    if fmt in ("date-time", "datetime"):
        return _moment
    if fmt == "date":
        return _day
    if fmt == "duration":
        return _span
    if fmt == "byte":
        return _bytes
    return None


def _double(value):
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _moment(value):
    moment = parse_datetime(value) if isinstance(value, str) else None
    return _timestamp(moment) if moment is not None else value


def _day(value):
    moment = parse_datetime(value + "T00:00:00Z") if isinstance(value, str) else None
    return _timestamp(moment) if moment is not None else value


def _span(value):
    span = parse_duration(value) if isinstance(value, str) else None
    return _duration(span) if span is not None else value


def _bytes(value):
    if not isinstance(value, str):
        return value
    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
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


# A node's path while the rules are run: (the parent's, key), None at the root; made into text
# (_path_text) only for a finding, as most documents have none.
_Path = tuple | None


def _path_text(path: _Path) -> str:
    keys = []
    while path is not None:
        path, key = path
        keys.append(key)
    return dotted(reversed(keys))


class _Rule(NamedTuple):
    """One x-kubernetes-validations rule of a node, compiled once per schema and environment."""

    rule: dict
    text: str
    program: kubecel.Program | None  # None: the rule is not checked (``problem`` says why)
    problem: str | None
    field_path: object
    reads: dict | None  # the fields of `self` the rule reads, if it reads nothing else (_reads)


class _Node(NamedTuple):
    """A schema node on the way to rules: what RuleRunner visits, in Validator.Validate's order
    (the node's rules, its properties in the schema's order, additionalProperties, items)."""

    rules: tuple[_Rule, ...]
    converter: _Converter | None  # the node's value as `self`, when a rule runs
    properties: tuple[tuple[str, _Node], ...]
    extra: _Node | None
    items: _Node | None


def _plan(schema, marked, env: kubecel.Environment, root: bool = False) -> _Node | None:
    """The plan of ``schema``'s nodes with rules at or below them (``marked``; None: found
    here), None when there are none. The root's metadata is the apiserver's, not the CRD's."""
    if not isinstance(schema, dict) or (marked is not None and not marked(schema)):
        return None
    rules = schema.get("x-kubernetes-validations")
    prepared = _prepared(rules, env) if isinstance(rules, list) else ()
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    below = ((name, _plan(sub, marked, env)) for name, sub in props.items() if not (root and name == "metadata"))
    properties = tuple((name, sub) for name, sub in below if sub is not None)
    extra = _plan(schema.get("additionalProperties"), marked, env)
    items = _plan(schema.get("items"), marked, env)
    if not prepared and not properties and extra is None and items is None:
        return None
    converter = _Converter(schema, root) if any(rule.program is not None for rule in prepared) else None
    return _Node(prepared, converter, properties, extra, items)


def _prepared(rules: list, env: kubecel.Environment) -> tuple[_Rule, ...]:
    """A node's rules that run on a create: a transition rule (oldSelf) runs on update only,
    one with optionalOldSelf would run with oldSelf none, which is not checked here."""
    out = []
    for rule in rules:
        if not isinstance(rule, dict) or not isinstance(rule.get("rule"), str):
            continue
        text = rule["rule"]
        if re.search(r"\boldSelf\b", text):
            if rule.get("optionalOldSelf") is True:
                out.append(
                    _Rule(rule, text, None, "optionalOldSelf (oldSelf as optional.none() on create)", None, None)
                )
            continue
        try:
            program = env.compile(text)
        except kubecel.CelProblem as problem:
            out.append(_Rule(rule, text, None, str(problem), None, None))
            continue
        out.append(_Rule(rule, text, program, None, rule.get("fieldPath"), _reads(text)))
    return tuple(out)


# CEL's tokens (cel-spec's lexis), enough to tell where a rule names `self`: comments, string and
# bytes literals (raw or not, quoted once or three times), numbers, identifiers, and one
# character of an operator or a bracket. Anything else (a backquoted field name) is not read.
_TOKEN = re.compile(
    r"(?P<space>\s+|//[^\n]*)"
    r"|(?P<long_raw>[bB]?[rR][bB]?(?:'''.*?'''|"
    r'""".*?"""))'
    r"|(?P<long>[bB]?(?:'''(?:\\.|[^\\])*?'''|"
    r'"""(?:\\.|[^\\])*?"""))'
    r"|(?P<raw>[bB]?[rR][bB]?(?:'[^'\n]*'|"
    r'"[^"\n]*"))'
    r"|(?P<quoted>[bB]?(?:'(?:\\.|[^'\\\n])*'|"
    r'"(?:\\.|[^"\\\n])*"))'
    r"|(?P<number>0[xX][0-9a-fA-F]+[uU]?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[uU]?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<sign>[-+*/%!<>=&|?:.,()\[\]{}])",
    re.DOTALL,
)


def _reads(text: str) -> dict | None:
    """What ``text`` reads of `self`, when it reads `self` only as `self.name` (a field
    selection, not a method call): the names of those fields, each to None (all of it) or, when
    the rule reads the field only as the list of an all, exists or exists_one macro whose
    variable it reads only as `x.name` (JobSet's `self.replicatedJobs.exists(x, has(x.dependsOn))`),
    to the names its items need. None when the rule reads `self` otherwise (`self.size()`,
    `self[k]`, `self.?name`, `k in self`, `self` as a macro's variable) or is not tokenized here."""
    tokens = _tokens(text)
    if tokens is None:
        return None
    reads: dict = {}
    for i, token in enumerate(tokens):
        if token != ("name", "self"):
            continue
        name = _selected(tokens, i)
        if name is None:
            return None
        items = _items_read(tokens, i + 3)
        if name not in reads:
            reads[name] = items
        elif reads[name] is not None:
            reads[name] = reads[name] | items if items is not None else None
    return {name: dict.fromkeys(items) if items is not None else None for name, items in reads.items()}


def _tokens(text: str) -> list[tuple[str, str]] | None:
    """``text``'s tokens without spaces and comments, each (kind, text); None if some part is
    no token of _TOKEN."""
    tokens, position = [], 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            return None
        if match.lastgroup != "space":
            tokens.append((match.lastgroup, match.group()))
        position = match.end()
    return tokens


def _selected(tokens: list, i: int) -> str | None:
    """The name of the field that the variable at ``tokens[i]`` is read by, if it is read as
    `x.name` and not `x.name(` (a method) nor `.x` (a field called x, or the variable)."""
    after = tokens[i + 1 : i + 4]
    if (
        (i > 0 and tokens[i - 1] == ("sign", "."))
        or len(after) < 2
        or after[0] != ("sign", ".")
        or after[1][0] != "name"
        or after[2:] == [("sign", "(")]
    ):
        return None
    return after[1][1]


_BOOLEAN_MACROS = frozenset({"all", "exists", "exists_one"})  # they give a bool, not the items


def _items_read(tokens: list, i: int) -> frozenset | None:
    """The names the items of a list need when ``tokens[i:]`` is `.all(x, body)` (exists,
    exists_one) and the body reads `x` only as `x.name`; None (all of them) otherwise."""
    head = tokens[i : i + 5]
    if (
        len(head) < 5
        or head[0] != ("sign", ".")
        or head[1][0] != "name"
        or head[1][1] not in _BOOLEAN_MACROS
        or head[2] != ("sign", "(")
        or head[3][0] != "name"
        or head[3][1] == "self"
        or head[4] != ("sign", ",")
    ):
        return None
    variable, names, depth = head[3], set(), 0
    for k in range(i + 5, len(tokens)):
        token = tokens[k]
        if token[0] == "sign" and token[1] in "([{":
            depth += 1
        elif token[0] == "sign" and token[1] in ")]}":
            depth -= 1
            if depth < 0:
                return frozenset(names)  # the macro's closing parenthesis
        elif token == ("sign", ",") and depth == 0:
            return None  # a third argument: not one of these macros
        elif token == variable:
            name = _selected(tokens, k)
            if name is None:
                return None
            names.add(name)
    return None


# The plans of each schema, per CEL environment, by the marks of the validator that holds both
# (a runner without marks keeps its own): made once, gone with the validator.
_PLANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class RuleRunner:
    """Runs the x-kubernetes-validations rules of a schema over an object (cel/validation.go's
    Validator.Validate, for a create: no oldSelf)."""

    def __init__(self, minor: int | None, marked=None):
        from generator.schema import kubernetes as kube

        self.env = kubecel.environment(minor if minor is not None else kube.newest())
        self.marked = marked  # which schema nodes have rules at or below them (None: all)

    def run(self, schema: dict, obj: dict) -> list[Finding]:
        out: list[Finding] = []
        plan = self._plan(schema)
        if plan is not None and obj is not None:
            self._node(plan, obj, None, out)
        return out

    def _plan(self, schema: dict) -> _Node | None:
        """The plan of ``schema`` for this runner's CEL environment: made on the first document,
        kept while the marks it came from live (a runner without marks keeps its own)."""
        plans = _PLANS.setdefault(self.marked if self.marked is not None else self, {})
        found = plans.get((self.env.minor, id(schema)))
        if found is None or found[0] is not schema:
            found = plans[self.env.minor, id(schema)] = (schema, _plan(schema, self.marked, self.env, root=True))
        return found[1]

    def _node(self, node: _Node, value, path: _Path, out: list[Finding]) -> None:
        if node.rules:
            self._rules(node, value, path, out)
        if isinstance(value, dict):
            for name, sub in node.properties:
                item = value.get(name)
                if item is not None:
                    self._node(sub, item, (path, name), out)
            if node.extra is not None:
                for name, item in value.items():
                    if item is not None:
                        self._node(node.extra, item, (path, name), out)
        elif isinstance(value, list) and node.items is not None:
            for i, item in enumerate(value):
                if item is not None:
                    self._node(node.items, item, (path, i), out)

    def _rules(self, node: _Node, value, path: _Path, out: list[Finding]) -> None:
        self_value = None
        for rule in node.rules:
            if rule.program is None:
                out.append(_unsupported(_path_text(path), rule.text, rule.problem))
                continue
            if rule.reads is not None and self_value is None:
                result, error = rule.program.run({"self": node.converter.convert(value, rule.reads)})
            else:
                if self_value is None:
                    self_value = node.converter.convert(value)
                result, error = rule.program.run({"self": self_value})
            if error is not None:
                where = _field_path(_path_text(path), rule.field_path)
                if error.split(":", 1)[0] in ("UNIMPLEMENTED",):
                    out.append(_unsupported(where, rule.text, error))
                else:
                    out.append(
                        Finding("error", where, "cel-rule", f"{error} evaluating rule: {_shown_rule(rule.text)}")
                    )
            elif result is not True:
                if self_value is None:  # a messageExpression may read any field
                    self_value = node.converter.convert(value)
                where = _field_path(_path_text(path), rule.field_path)
                out.append(Finding("error", where, "cel-rule", self._message(rule.rule, self_value)))

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
