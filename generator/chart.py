"""The Helm chart, charts/paddle-operator/, generated from the jsonnet that renders deploy/v1.

The templates are not a copy of deploy/v1 with values pasted in: the jsonnet is evaluated with
*probes*, marker values that show where each config field lands (``image`` -> a marker string in the
container, ``labels`` -> a marker key in every label map), once with every optional part switched
on and once more per optional part switched off. What disappears when a part is off becomes an
``{{- if }}`` block; every marker becomes a Go template expression over ``.Values``. A change to
operator.libsonnet therefore reaches the chart on the next `make manifests`, and a change the
probes cannot express (a field that changes a value instead of adding a part, a config field
without a probe) stops the render with a ChartError instead of giving a chart that drifts.

values.yaml holds every config field (config.libsonnet) but three: ``namespace`` (the release's),
``apiextensions`` and ``api`` (see NOT_VALUES). values.schema.json states each field's type from
its default, choices from params.CHOICES and the spellings from rules/grammar.py, closed to unknown
fields, so Helm itself refuses a misspelt ``--set``.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass

import yaml

from . import __version__, bundles, engine, kube, render
from .params import CHOICES, INT32_MAX, config_fields
from .paths import OPERATOR_LIB
from .rules import grammar
from .yamlio import dump_documents

NAME = "paddle-operator"
CONFIG = OPERATOR_LIB / "config.libsonnet"


class ChartError(Exception):
    pass


# -- probes -------------------------------------------------------------------------------------
#
# Markers: "value" stands for the field's value (a scalar inline, a map or list as a YAML block),
# "each" for one element of a list field (the template ranges over the list), "items" for the whole
# list spliced in place of a one-element list, "merge" (a map key) for a map field merged into
# the map around it, the field's entries winning, as jsonnet's `+` does.
_MARKER = re.compile(r"@@chart:(value|each|items|merge):([A-Za-z.]+)@@")


def _mark(kind: str, field: str) -> str:
    return f"@@chart:{kind}:{field}@@"


# jsonnet asserts that replicas is a number: a number no default or port uses stands for it
_REPLICAS_PROBE = 271828183


@dataclass(frozen=True)
class Probe:
    on: object  # the probe value: markers, or the value that switches the part on
    off: object = None  # the value that leaves the part out (with ``condition``)
    condition: str | None = None  # the template's test for "the part is on"


PROBES = {
    "namespace": Probe(_mark("value", "namespace")),
    "watchNamespace": Probe(_mark("value", "watchNamespace"), "", "$.Values.watchNamespace"),
    "image": Probe(_mark("value", "image")),
    "imagePullPolicy": Probe(_mark("value", "imagePullPolicy")),
    "initImage": Probe(_mark("value", "initImage")),
    "scheduling": Probe("volcano", "", 'eq $.Values.scheduling "volcano"'),
    "replicas": Probe(_REPLICAS_PROBE),
    "resources": Probe(
        {"limits": _mark("value", "resources.limits"), "requests": _mark("value", "resources.requests")}
    ),
    "imagePullSecrets": Probe([_mark("each", "imagePullSecrets")], [], "$.Values.imagePullSecrets"),
    "nodeSelector": Probe({_mark("merge", "nodeSelector"): "x"}, {}, "$.Values.nodeSelector"),
    "tolerations": Probe([_mark("items", "tolerations")], [], "$.Values.tolerations"),
    "labels": Probe({_mark("merge", "labels"): "x"}, {}, "$.Values.labels"),
    "networkPolicy": Probe(True, False, "$.Values.networkPolicy"),
    "apiserverPorts": Probe([_mark("each", "apiserverPorts")]),
}

# config fields that are not chart values, and why
NOT_VALUES = {
    "namespace": "the release's namespace: `helm install --namespace NS --create-namespace`",
    "apiextensions": "the chart installs the apiextensions.k8s.io/v1 CRD (crds/), for Kubernetes 1.19 and later",
    "api": "the generated PaddleJob API data the CRD is made of, not a setting",
}

# objects of deploy/v1 the chart does not make, and why
LEFT_OUT = {
    "Namespace": "Helm makes the release namespace (`--create-namespace`); it gets no Pod Security labels",
}


def _expression(field: str) -> str:
    return "$.Release.Namespace" if field == "namespace" else f"$.Values.{field}"


def _evaluate(params: dict) -> tuple[list[dict], dict]:
    """deploy/v1's objects (operator objects, CRD) for ``params``, unchecked: probes are no values."""
    bundle = bundles.default_bundles()[0]
    files = render.evaluate_bundle(bundle, params, keep_descriptions=False)
    return files["operator.yaml"], files["crd.yaml"][0]


def _replace_replicas(node):
    if isinstance(node, dict):
        return {k: _replace_replicas(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_replace_replicas(v) for v in node]
    if node == _REPLICAS_PROBE and not isinstance(node, bool):
        return _mark("value", "replicas")
    return node


def _probed_objects() -> list:
    """The operator objects with every probe on, optional parts annotated with their conditions."""
    fields = set(config_fields())
    unprobed = sorted(fields - set(PROBES) - set(NOT_VALUES))
    unknown = sorted(set(PROBES) - fields)
    if unprobed or unknown:
        raise ChartError(
            f"config.libsonnet and generator/chart.py disagree: no probe for {unprobed}, probes for fields "
            f"config.libsonnet lacks: {unknown}; give each field a Probe in PROBES (or a reason in NOT_VALUES)"
        )
    on = {field: probe.on for field, probe in PROBES.items()}
    objects, _ = _evaluate(on)
    if json.dumps(objects).count(str(_REPLICAS_PROBE)) != 1:
        raise ChartError(f"the replicas probe {_REPLICAS_PROBE} must appear exactly once in the objects")
    offs = []
    for field, probe in PROBES.items():
        if probe.condition is not None:
            off_objects, _ = _evaluate({**on, field: probe.off})
            offs.append((probe.condition, _replace_replicas(off_objects)))
    return _annotate(_replace_replicas(objects), offs, "")


@dataclass(frozen=True)
class Cond:
    """A map entry or list item present only when every condition holds."""

    conditions: tuple[str, ...]
    value: object


def _annotate(on, offs: list[tuple[str, object]], path: str):
    """``on`` with each part that some ``off`` tree lacks wrapped in Cond(conditions)."""
    if isinstance(on, dict):
        for condition, off in offs:
            if not isinstance(off, dict) or set(off) - set(on):
                raise ChartError(
                    f"{path or '/'}: turning off `{condition}` adds or retypes a part; templates only drop parts"
                )
        out = {}
        for key, value in on.items():
            lacking = tuple(c for c, off in offs if key not in off)
            node = _annotate(value, [(c, off[key]) for c, off in offs if key in off], f"{path}.{key}")
            out[key] = Cond(lacking, node) if lacking else node
        return out
    if isinstance(on, list):
        per_item: list[list] = [[] for _ in on]
        lacking_item: list[list] = [[] for _ in on]
        for condition, off in offs:
            if not isinstance(off, list):
                raise ChartError(f"{path}: turning off `{condition}` retypes a list")
            for index, match in enumerate(_align(on, off, f"{path} (`{condition}` off)")):
                if match is None:
                    lacking_item[index].append(condition)
                else:
                    per_item[index].append((condition, off[match]))
        items = []
        for index, item in enumerate(on):
            node = _annotate(item, per_item[index], f"{path}[{index}]")
            items.append(Cond(tuple(lacking_item[index]), node) if lacking_item[index] else node)
        return items
    for condition, off in offs:
        if off != on:
            raise ChartError(
                f"{path}: turning off `{condition}` changes {on!r} to {off!r}; a template can only leave parts out"
            )
    return on


def _align(on: list, off: list, where: str) -> list[int | None]:
    """For each item of ``on``, the index of the same item in ``off``: pairwise when the lengths
    agree (the items may differ inside), else ``off`` must be ``on`` with some items left out."""
    if len(on) == len(off):
        return list(range(len(on)))
    matches: list[int | None] = []
    position = 0
    for item in on:
        if position < len(off) and off[position] == item:
            matches.append(position)
            position += 1
        else:
            matches.append(None)
    if position != len(off):
        raise ChartError(f"{where}: the list is not the full list with items left out")
    return matches


# -- template text ------------------------------------------------------------------------------


def _field_default(path: str):
    value = _defaults()
    for part in path.split("."):
        value = value[part]
    return value


def _item_markers(node) -> list[tuple[str, str]]:
    """The markers in a list item, but not in lists inside it (those range on their own)."""
    if isinstance(node, Cond):
        return _item_markers(node.value)
    if isinstance(node, dict):
        return [m for k, v in node.items() for m in _MARKER.findall(k) + _item_markers(v)]
    return _MARKER.findall(node) if isinstance(node, str) else []


def _go_string(text: str) -> str:
    return json.dumps(text)  # a JSON string literal is a Go string literal for these characters


def _scalar(value, each: str | None) -> str:
    """A scalar as YAML text: markers become `{{ EXPR | toJson }}` (a JSON scalar is YAML)."""
    if isinstance(value, str) and _MARKER.search(value):
        parts = []
        pos = 0
        for match in _MARKER.finditer(value):
            if match.start() > pos:
                parts.append(_go_string(value[pos : match.start()]))
            kind, field = match.groups()
            parts.append("." if kind == "each" and field == each else _expression(field))
            pos = match.end()
        if pos < len(value):
            parts.append(_go_string(value[pos:]))
        expr = parts[0] if len(parts) == 1 else f"(print {' '.join(parts)})"
        return f"{{{{ {expr} | toJson }}}}"
    if isinstance(value, str):
        plain = yaml.safe_dump(value, default_flow_style=True, width=1 << 20).removesuffix("\n...\n").strip()
        return (
            plain
            if plain == value and re.fullmatch(r"[A-Za-z/]([-A-Za-z0-9_./:]*[-A-Za-z0-9_./])?", value)
            else json.dumps(value)
        )
    return json.dumps(value)


def _block(node) -> str | None:
    """The Go expression whose toYaml is ``node``, for a node that stands for a map or list field."""
    if isinstance(node, str):
        match = _MARKER.fullmatch(node)
        if match and match.group(1) == "value" and isinstance(_field_default(match.group(2)), (dict, list)):
            return _expression(match.group(2))
    if isinstance(node, list) and len(node) == 1:
        match = _MARKER.fullmatch(node[0]) if isinstance(node[0], str) else None
        if match and match.group(1) == "items":
            return _expression(match.group(2))
    if isinstance(node, dict):
        merged = [_MARKER.fullmatch(k) for k in node if _MARKER.fullmatch(k)]
        if merged:
            if len(merged) > 1 or merged[0].group(1) != "merge":
                raise ChartError(f"cannot template a map keyed by {[m.group(0) for m in merged]}")
            rest = {k: (v.value if isinstance(v, Cond) else v) for k, v in node.items() if not _MARKER.fullmatch(k)}
            if not all(isinstance(v, str) and not _MARKER.search(v) for v in rest.values()):
                raise ChartError(f"the map merged with {merged[0].group(2)} holds more than plain strings")
            field = _expression(merged[0].group(2))
            if not rest:
                return field
            pairs = " ".join(f"{_go_string(k)} {_go_string(v)}" for k, v in sorted(rest.items()))
            return f"merge (deepCopy {field}) (dict {pairs})"
    return None


def _wrap(conditions: tuple[str, ...], lines: list[str]) -> list[str]:
    if not conditions:
        return lines
    test = conditions[0] if len(conditions) == 1 else "and " + " ".join(f"({c})" for c in conditions)
    return [f"{{{{- if {test} }}}}", *lines, "{{- end }}"]


def _entry(head: str, node, indent: int, each: str | None) -> list[str]:
    """``head`` ("key:" or "-") and its value, at ``indent``."""
    pad = " " * indent
    block = _block(node)
    if block is not None:
        block = f"({block})" if " " in block else block
        return [pad + head, f"{{{{- toYaml {block} | nindent {indent + 2} }}}}"]
    if isinstance(node, dict):
        if not node:
            return [f"{pad}{head} {{}}"]
        lines = _map(node, indent + 2, each)
        if head == "-" and not lines[0].lstrip().startswith("{{"):
            return [f"{pad}- {lines[0].lstrip()}", *lines[1:]]
        return [pad + head, *lines]
    if isinstance(node, list):
        if not node:
            return [f"{pad}{head} []"]
        return [pad + head, *_list(node, indent + 2, each)]
    if (
        isinstance(node, str)
        and node.endswith("\n")
        and not node.endswith("\n\n")
        and not _MARKER.search(node)
        and not node[0].isspace()
        and all(line == line.rstrip() and "\t" not in line for line in node.splitlines())
    ):
        return [f"{pad}{head} |", *(f"{pad}  {line}" if line else "" for line in node.splitlines())]
    return [f"{pad}{head} {_scalar(node, each)}"]


def _map(node: dict, indent: int, each: str | None) -> list[str]:
    lines = []
    for key, value in node.items():
        conditions = ()
        if isinstance(value, Cond):
            conditions, value = value.conditions, value.value
        lines += _wrap(conditions, _entry(f"{_scalar(key, each)}:", value, indent, each))
    return lines


def _list(items: list, indent: int, each: str | None) -> list[str]:
    ranged = {f for item in items for kind, f in _item_markers(item) if kind == "each" and f != each}
    if ranged:
        if len(items) != 1 or len(ranged) != 1:
            raise ChartError(f"a list ranging over {sorted(ranged)} must hold one item")
        (field,) = ranged
        return [f"{{{{- range {_expression(field)} }}}}", *_entry("-", items[0], indent, field), "{{- end }}"]
    lines = []
    for item in items:
        conditions = ()
        if isinstance(item, Cond):
            conditions, item = item.conditions, item.value
        lines += _wrap(conditions, _entry("-", item, indent, each))
    return lines


def _template(obj, source: str) -> str:
    conditions = ()
    if isinstance(obj, Cond):
        conditions, obj = obj.conditions, obj.value
    note = f"Generated by `paddlejob-manifests render` from {source}. Do not edit: run `make manifests`."
    lines = [
        f"{{{{- /* {note} */ -}}}}",
        *_wrap(conditions, ["---", *_map(obj, 0, None)]),
    ]
    return "\n".join(lines) + "\n"


def templates() -> dict[str, str]:
    """templates/KIND.yaml for every object of deploy/v1's operator.yaml but LEFT_OUT."""
    files = {}
    for obj in _probed_objects():
        kind = (obj.value if isinstance(obj, Cond) else obj)["kind"]
        if kind in LEFT_OUT:
            continue
        name = f"templates/{kind.lower()}.yaml"
        if name in files:
            raise ChartError(f"two {kind} objects: name their templates apart in generator/chart.py")
        files[name] = _template(obj, "libsonnet/paddle-operator/operator.libsonnet")
    text = "".join(files.values())
    for field in PROBES:
        if field not in NOT_VALUES and _expression(field) not in text:
            raise ChartError(f"the templates never read .Values.{field}: operator.libsonnet does not use it")
    return files


# -- values, schema, README ---------------------------------------------------------------------


@functools.cache
def _defaults() -> dict:
    """config.libsonnet's defaults but the API data."""
    config = f"import '{OPERATOR_LIB.name}/config.libsonnet'"
    return engine.evaluate_snippet(f"local c = {config}; {{ [k]: c[k] for k in std.objectFields(c) if k != 'api' }}")


def value_fields() -> dict[str, object]:
    """The chart's values and their defaults, in config.libsonnet's order."""
    defaults = _defaults()
    comments = _comments()
    undocumented = sorted(f for f in defaults if f not in NOT_VALUES and not comments.get(f))
    if undocumented:
        raise ChartError(f"config.libsonnet: give {undocumented} a comment; it becomes the value's description")
    return {f: defaults[f] for f in comments if f not in NOT_VALUES}


def _comments() -> dict[str, str]:
    """field -> the comment above it in config.libsonnet (fields in the file's order)."""
    found: dict[str, str] = {}
    block: list[str] = []
    for line in CONFIG.read_text(encoding="utf-8").splitlines():
        comment = re.match(r"^  // ?(.*)$", line)
        field = re.match(r"^  ([A-Za-z]+):", line)
        if comment:
            block.append(comment.group(1))
        elif field:
            found[field.group(1)] = " ".join(block)
            block = []
        elif not line.startswith("    "):
            block = []
    return found


def _strip(pattern: re.Pattern) -> str:
    return pattern.pattern.removeprefix("^").removesuffix("$")


_QUANTITY = {"anyOf": [{"type": "string", "pattern": grammar.QUANTITY.pattern}, {"type": "number"}]}
_LABELS = {
    "type": "object",
    "propertyNames": {
        "pattern": f"^({_strip(grammar.DNS1123_SUBDOMAIN)}/)?{_strip(grammar.QUALIFIED_NAME)}$",
        "maxLength": 253 + 1 + 63,
    },
    "additionalProperties": {"type": "string", "pattern": grammar.LABEL_VALUE.pattern, "maxLength": 63},
}


def _constraints(field: str) -> dict:
    """What render's own check (params.py) demands of ``field``, as JSON Schema."""
    image = {"type": "string", "pattern": grammar.IMAGE_REFERENCE.pattern, "maxLength": 4096}
    namespace = {"type": "string", "pattern": grammar.DNS1123_LABEL.pattern, "maxLength": 63}
    newest = kube.known_versions()[-1]
    return {
        "watchNamespace": {"anyOf": [namespace, {"type": "string", "enum": [""]}]},
        "image": image,
        "initImage": image,
        "replicas": {"type": "integer", "minimum": 0, "maximum": INT32_MAX},
        "resources": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                kind: {"type": "object", "additionalProperties": _QUANTITY} for kind in ("limits", "requests")
            },
        },
        "imagePullSecrets": {
            "type": "array",
            "items": {"type": "string", "pattern": grammar.DNS1123_SUBDOMAIN.pattern, "maxLength": 253},
        },
        "nodeSelector": _LABELS,
        # a label on the selector's keys would take the controller's pods out of its Deployment
        "labels": {**_LABELS, "propertyNames": {**_LABELS["propertyNames"], "not": {"enum": _selector_keys()}}},
        # the Kubernetes Toleration of the newest release the bundle serves (schemas/kubernetes/)
        "tolerations": {"type": "array", "items": kube.definitions(newest)["io.k8s.api.core.v1.Toleration"]},
        "apiserverPorts": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "integer", "minimum": 1, "maximum": 65535},
        },
    }.get(field, {})


def _selector_keys() -> list[str]:
    objects, _ = _evaluate({})
    deployments = [obj for obj in objects if obj["kind"] == "Deployment"]
    return sorted(key for obj in deployments for key in obj["spec"]["selector"]["matchLabels"])


_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (str, "string"), (dict, "object"), (list, "array"))


def values_schema() -> dict:
    comments = _comments()
    properties = {}
    for field, default in value_fields().items():
        kind = next(name for python, name in _JSON_TYPES if isinstance(default, python))
        schema = {"description": comments[field], "type": kind, "default": default, **_constraints(field)}
        if field in CHOICES:
            schema["enum"] = list(CHOICES[field])
        properties[field] = schema
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": f"{NAME} chart values",
        "description": "Generated by `paddlejob-manifests render` from libsonnet/paddle-operator/config.libsonnet.",
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
    }


def values_yaml() -> str:
    comments = _comments()
    parts = [
        "# Values of the paddle-operator chart: the fields of libsonnet/paddle-operator/config.libsonnet\n"
        "# and their defaults. Generated by `paddlejob-manifests render`; values.schema.json refuses\n"
        "# unknown fields and wrong types. The namespace is the release's: `helm install -n NAMESPACE`.\n"
    ]
    for field, default in value_fields().items():
        parts.append("\n" + _comment_lines(comments[field]))
        parts.append(yaml.safe_dump({field: default}, sort_keys=False, default_flow_style=False, width=100))
    return "".join(parts)


def _comment_lines(text: str, width: int = 98) -> str:
    lines, line = [], "#"
    for word in text.split():
        if len(line) + 1 + len(word) > width and line != "#":
            lines.append(line)
            line = "#"
        line += " " + word
    return "\n".join([*lines, line]) + "\n"


def chart_yaml() -> str:
    image = _defaults()["image"]
    v1 = bundles.default_bundles()[0]
    chart = {
        "apiVersion": "v2",
        "name": NAME,
        "description": "The PaddlePaddle training operator (PaddleJob, batch.paddlepaddle.org/v1), "
        "generated by paddlejob-manifests from the jsonnet that renders deploy/v1",
        "type": "application",
        "version": __version__,
        "appVersion": image.rpartition(":")[2],
        "kubeVersion": f">=1.{v1.target.min_minor}.0-0",
        "keywords": ["paddlepaddle", "operator", "training"],
    }
    return "# Generated by `paddlejob-manifests render`; do not edit.\n" + yaml.safe_dump(chart, sort_keys=False)


def readme() -> str:
    rows = []
    comments = _comments()
    for field, default in value_fields().items():
        shown = json.dumps(default)
        description = comments[field].replace("|", "\\|")
        rows.append(f"| `{field}` | `{shown}` | {description} |")
    left_out = [f"- **{kind}**: {why}." for kind, why in LEFT_OUT.items()]
    not_values = [f"- `{field}`: {why}." for field, why in NOT_VALUES.items()]
    return "\n".join(
        [
            f"# {NAME} chart",
            "",
            "<!-- Generated by `make manifests` from libsonnet/paddle-operator/; do not edit. -->",
            "",
            "The PaddlePaddle training operator, from the same jsonnet and defaults as `deploy/v1`: with",
            "default values, `helm template --include-crds` gives the objects of `deploy/v1`, except:",
            "",
            *left_out,
            "",
            "```sh",
            f"helm install {NAME} charts/{NAME} --namespace paddle-system --create-namespace",
            f"helm upgrade {NAME} charts/{NAME} --namespace paddle-system --reuse-values --set replicas=2",
            f"helm uninstall {NAME} --namespace paddle-system",
            "```",
            "",
            "The CRD is in `crds/`: Helm installs it before the templates, does not upgrade it, and keeps it",
            "(and with it every PaddleJob) on `helm uninstall`. To change the CRD on upgrade, apply it yourself",
            "(`kubectl apply --server-side -f charts/paddle-operator/crds/`); to remove it and every job,",
            "`kubectl delete crd paddlejobs.batch.paddlepaddle.org`. Values do not reach the CRD (crds/ is not",
            "templated): `labels` label the operator's objects only.",
            "",
            "Values merge as Helm merges them, key by key: `--set resources.requests.cpu=200m` keeps the default",
            "memory request, where `paddlejob-manifests render --requests cpu=200m` replaces both.",
            "`values.schema.json` refuses unknown fields and values of the wrong type or spelling. What",
            "lies between values (a request above its limit) is beyond a schema: check the output as `render`",
            "checks its own,",
            "",
            "```sh",
            f"helm template {NAME} charts/{NAME} -n paddle-system --include-crds -f my-values.yaml \\",
            "    | paddlejob-manifests validate -",
            "```",
            "",
            "## Values",
            "",
            "| value | default | description |",
            "| --- | --- | --- |",
            *rows,
            "",
            "Config fields that are not values:",
            "",
            *not_values,
            "",
        ]
    )


def notes() -> str:
    return (
        "paddle-operator {{ .Chart.AppVersion }} is installed in namespace {{ .Release.Namespace }}.\n"
        "Jobs: kubectl get paddlejobs --all-namespaces\n"
        "The CRD stays on `helm uninstall`; see the chart's README.\n"
    )


def files() -> dict[str, str]:
    """Every file of charts/paddle-operator/, by path under it."""
    _, crd = _evaluate({})
    out = {
        "Chart.yaml": chart_yaml(),
        "values.yaml": values_yaml(),
        "values.schema.json": json.dumps(values_schema(), indent=2, sort_keys=False) + "\n",
        "README.md": readme(),
        "crds/crd.yaml": dump_documents([crd], render.HEADER),
        "templates/NOTES.txt": notes(),
        **templates(),
    }
    return out
