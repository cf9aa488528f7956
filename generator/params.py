"""The operator bundle's parameters: read --params, merge the flags, check every field.

The fields and their defaults live in libsonnet/paddle-operator/config.libsonnet; this module
asks jsonnet for the field names, so a misspelt `namespce:` is an error naming the field it
resembles instead of a key jsonnet silently ignores. Each value is checked here, where the
message can name the flag, for what the rendered objects cannot show (an init image lives in
a ConfigMap, a secret name is not validated by the apiserver); the rendered objects then go
through the same checker as `validate`.
"""

from __future__ import annotations

import difflib
import functools
from pathlib import Path

from . import engine
from .cliargs import UsageError
from .paths import OPERATOR_LIB
from .rules import grammar
from .yamlload import read_documents

# config field -> the flag that sets it
FLAGS = {
    "namespace": "--namespace",
    "createNamespace": "--no-namespace",
    "podSecurity": "--pod-security",
    "jobNamespace": "--job-namespace",
    "jobPodSecurity": "--job-pod-security",
    "keepJobs": "--no-keep-jobs",
    "watchNamespace": "--watch-namespace",
    "image": "--image",
    "imagePullPolicy": "--image-pull-policy",
    "initImage": "--init-image",
    "scheduling": "--scheduling",
    "replicas": "--replicas",
    "resources": "--requests/--limits",
    "imagePullSecrets": "--image-pull-secret",
    "nodeSelector": "--node-selector",
    "tolerations": "--toleration",
    "labels": "--label",
    "networkPolicy": "--network-policy",
    "trainerRuntimes": "--trainer-runtimes",
    "apiserverPorts": "--apiserver-port",
}
INT32_MAX = 2**31 - 1
# the values a choice field takes (the Helm chart's values.schema.json reads these too)
CHOICES = {
    "imagePullPolicy": grammar.PULL_POLICIES,
    "scheduling": ("", "volcano"),
    "apiextensions": ("v1", "v1beta1"),
}
MAX_PARAMS_BYTES = 1 << 20


@functools.cache
def config_fields() -> tuple[str, ...]:
    """Every field of config.libsonnet, hidden ones included."""
    fields = engine.evaluate_snippet(f"std.objectFieldsAll(import '{OPERATOR_LIB.name}/config.libsonnet')")
    return tuple(fields)


@functools.cache
def pod_security_levels() -> tuple[str, ...]:
    return tuple(engine.evaluate_snippet(f"(import '{OPERATOR_LIB.name}/operator.libsonnet').podSecurityLevels"))


@functools.cache
def own_labels() -> frozenset[str]:
    """Label keys the bundle sets itself (operator.libsonnet): `labels` may not replace them."""
    return frozenset(engine.evaluate_snippet(f"(import '{OPERATOR_LIB.name}/operator.libsonnet').ownLabels"))


def read_params_file(path: str) -> dict:
    """A --params file (YAML or JSON, one mapping), read as kubectl reads YAML."""
    try:
        raw = Path(path).read_bytes()
    except OSError as err:
        raise UsageError(f"--params: cannot read {path}: {err.strerror}") from None
    if len(raw) > MAX_PARAMS_BYTES:
        raise UsageError(f"--params: {path} is larger than {MAX_PARAMS_BYTES:,} bytes; it holds a few fields")
    data, problems = read_documents(raw)
    for problem in problems:
        if problem.severity == "error":
            raise UsageError(f"--params: {path}:{problem.line}:{problem.column}: {problem.message}")
    if len(data) != 1 or not isinstance(data[0], dict):
        raise UsageError(f"--params: {path} must hold one mapping of config fields (see config.libsonnet)")
    return data[0]


def _where(field: str) -> str:
    return f"{FLAGS[field]} ({field})" if field in FLAGS else field


def check(params: dict) -> dict:
    """``params`` unchanged, or UsageError naming the flag (or field) and what it takes."""
    known = config_fields()
    for field in params:
        if field not in known:
            close = difflib.get_close_matches(field, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; the fields are {', '.join(sorted(FLAGS))}"
            raise UsageError(f"--params: {field!r} is not a config field{hint}")
    for field, value in params.items():
        problem = _CHECKS.get(field, lambda _: None)(value)
        if problem:
            raise UsageError(f"{_where(field)}: {problem}")
    return params


def _string(value) -> str | None:
    return None if isinstance(value, str) else f"expected a string, got {value!r}"


def _namespace(value, allow_empty: bool = False) -> str | None:
    if allow_empty and value == "":
        return None
    return _string(value) or grammar.name_problem(value, grammar.DNS1123_LABEL, 63, "namespace name")


def _image(value) -> str | None:
    return _string(value) or grammar.image_problem(value)


def _choice(*allowed):
    def check(value) -> str | None:
        return None if value in allowed else f"{value!r} is not one of {', '.join(repr(a) for a in allowed)}"

    return check


def _replicas(value) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= INT32_MAX:
        return f"expected a whole number from 0 to {INT32_MAX:,} (int32), got {value!r}"
    return None


def _resources(value) -> str | None:
    if not isinstance(value, dict) or set(value) - {"requests", "limits"}:
        return "expected {requests: {cpu: Q, memory: Q}, limits: {...}}"
    for kind, amounts in value.items():
        if not isinstance(amounts, dict):
            return f"{kind}: expected a mapping of resource names to quantities"
        for name, amount in amounts.items():
            if grammar.parse_quantity(amount) is None:
                return f"{kind}.{name}: {grammar.quantity_message(amount)}"
    return None


def _secret_names(value) -> str | None:
    if not isinstance(value, list):
        return f"expected a list of Secret names, got {value!r}"
    for name in value:
        name = name.get("name") if isinstance(name, dict) else name
        problem = _string(name) or grammar.name_problem(name, grammar.DNS1123_SUBDOMAIN, 253, "Secret name")
        if problem:
            return problem
    return None


def _labels(value) -> str | None:
    if not isinstance(value, dict):
        return f"expected a mapping of label keys to values, got {value!r}"
    for key, text in value.items():
        found = grammar.label_key_problem(key) or _string(text) or grammar.label_value_problem(text, key)
        if found:
            return found
    return None


def _extra_labels(value) -> str | None:
    """Labels on every object: not one the bundle sets itself, which would be silently replaced."""
    taken = sorted(set(value) & own_labels()) if isinstance(value, dict) else []
    if taken:
        return (
            f"the bundle sets {taken[0]!r} itself; choose Pod Security levels with --pod-security and "
            "--job-pod-security, the namespace with --namespace"
        )
    return _labels(value)


def _level(allow_none: bool):
    def check(value) -> str | None:
        levels = (*pod_security_levels(), "") if allow_none else pod_security_levels()
        return None if value in levels else f"{value!r} is not one of {', '.join(repr(a) for a in levels)}"

    return check


def _ports(value) -> str | None:
    if not isinstance(value, list) or not value:
        return f"expected a list of ports, got {value!r}"
    for port in value:
        if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
            return f"{port!r} is not a port number (1 to 65535)"
    return None


def _bool(value) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, got {value!r}"


_CHECKS = {
    "namespace": _namespace,
    "watchNamespace": lambda v: _namespace(v, allow_empty=True),
    "jobNamespace": lambda v: _namespace(v, allow_empty=True),
    "createNamespace": _bool,
    "keepJobs": _bool,
    "podSecurity": _level(allow_none=True),
    "jobPodSecurity": _level(allow_none=False),
    "image": _image,
    "initImage": _image,
    "imagePullPolicy": _choice(*CHOICES["imagePullPolicy"]),
    "scheduling": _choice(*CHOICES["scheduling"]),
    "replicas": _replicas,
    "resources": _resources,
    "imagePullSecrets": _secret_names,
    "nodeSelector": _labels,
    "labels": _extra_labels,
    "networkPolicy": _bool,
    "trainerRuntimes": _bool,
    "apiserverPorts": _ports,
    "apiextensions": _choice(*CHOICES["apiextensions"]),
}
