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
import math
import re

from generator.core import grammar
from generator.core.files import NotRegularFile, read_regular
from generator.core.paths import OPERATOR_LIB
from generator.core.values import EFFECTS, InputError
from generator.jsonnet import engine
from generator.kubeyaml.load import iter_documents

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

# Tolerations as the apiserver validates them (ValidateTolerations, pkg/apis/core/validation):
# the Helm chart's values.schema.json states the same rules (generator/render/chart.py reads these).
TOLERATION_FIELDS = ("key", "operator", "value", "effect", "tolerationSeconds")
TOLERATION_OPERATORS = ("Exists", "Equal")
# an empty effect (or operator) is the apiserver's "not given": the Kubernetes OpenAPI enums, which
# validate checks the rendered objects against, leave it out, so the value is left out instead
TOLERATION_EFFECTS = EFFECTS
INT64_MAX = 2**63 - 1
# tolerationSeconds is an int64 to the apiserver, but the chart's values reach its JSON Schema as
# float64 (Helm 3 and 4), which holds whole numbers exactly only up to 2^53-1: beyond, Helm refuses
# int64's ends and rounds the rest (2^53+1 renders as 2^53). Both doors keep to this limit of ours.
TOLERATION_SECONDS_MAX = 2**53 - 1
# Container resources: the standard names, hugepages-<page size>, and extended resources
# (DOMAIN/NAME outside kubernetes.io: validateContainerResourceName, IsExtendedResourceName).
STANDARD_RESOURCES = ("cpu", "memory", "ephemeral-storage")
HUGEPAGES = re.compile(r"^hugepages-[0-9]+([KMGTPE]i|[kMGTPE])?$")
# an extended resource's quota name, "requests." + NAME, must be a qualified name: a domain of 244 at most
EXTENDED_RESOURCE_LENGTHS = re.compile(r"^[^/]{1,244}/[^/]{1,63}$")
# a quantity of a value: the Kubernetes grammar (grammar.QUANTITY) without a sign of minus, an
# exponent of at most two digits and 64 characters at most, so it is finite however it is read
# (resource.Quantity takes `1e400`; a YAML or JSON reader makes it infinity or refuses it)
QUANTITY_VALUE = re.compile(r"^\+?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2}|[KMGTPE]i|[numkMGTPE])?$")
QUANTITY_VALUE_LENGTH = 64


class ParamsError(InputError):
    """A config value that is refused (exit 2): where it came from (the --params file and line, or
    the flag), the field's path and what is wrong."""

    def __init__(self, message: str, field: str, problem: str, file: str | None = None, line: int | None = None):
        super().__init__(message)
        self.field, self.problem, self.file, self.line = field, problem, file, line


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
    """A --params file (YAML or JSON, one mapping), read as kubectl reads YAML and checked as the
    flags are (check): an error names the file, the line and the field."""
    raw = _read_bounded(path)
    if len(raw) > MAX_PARAMS_BYTES:
        raise InputError(f"--params: {path} is larger than {MAX_PARAMS_BYTES:,} bytes; it holds a few fields")
    documents = list(iter_documents(raw))
    for document in documents:
        for problem in document.problems:
            if problem.rule == "duplicate-key":  # kubectl's strict decoding refuses them too
                key = re.match(r"duplicate key (.*?): kubectl", problem.message)
                raise InputError(
                    f"--params: {path}:{problem.line}:{problem.column}: duplicate key {key.group(1) if key else ''}: "
                    "kubectl's strict decoding refuses it and a field is given once here too; remove one"
                )
            if problem.severity == "error":
                raise InputError(f"--params: {path}:{problem.line}:{problem.column}: {problem.message}")
    read = [document for document in documents if document.data is not None]
    if len(read) != 1 or not isinstance(read[0].data, dict):
        raise InputError(f"--params: {path} must hold one mapping of config fields (see config.libsonnet)")
    return check(read[0].data, origin=(path, read[0]))


def _read_bounded(path: str) -> bytes:
    """A regular file's first MAX_PARAMS_BYTES + 1 bytes (one more tells it is too large), opened
    without waiting for a writer; a device, a named pipe or a folder is refused unread."""
    try:
        return read_regular(path, MAX_PARAMS_BYTES + 1, follow_links=True)
    except NotRegularFile as err:
        raise InputError(
            f"--params: {path} is {err.what}, not a regular file; give a YAML or JSON file of config fields"
        ) from None
    except (OSError, ValueError) as err:
        why = err.strerror if isinstance(err, OSError) else "the name holds a NUL byte"
        raise InputError(f"--params: cannot read {path}: {why}") from None


def _where(field: str) -> str:
    top = re.match(r"[A-Za-z]+", field).group(0)
    return f"{FLAGS[top]} ({field})" if top in FLAGS else field


def _dotted(field: str, path: tuple) -> str:
    return field + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)


def check(params: dict, origin: tuple | None = None) -> dict:
    """``params`` unchanged, or ParamsError naming the flag (or, with ``origin``, the --params
    file, line and column: (path, kubeyaml.load.Document)), the field and what it takes."""
    known = config_fields()
    for field in params:
        if field not in known:
            close = difflib.get_close_matches(str(field), known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; the fields are {', '.join(sorted(FLAGS))}"
            where = f"{origin[0]}:{origin[1].position([field])[0][0]}: " if origin else ""
            raise ParamsError(
                f"--params: {where}{field!r} is not a config field{hint}", str(field), "not a config field",
                origin[0] if origin else None,
            )  # fmt: skip
    for field, value in params.items():
        found = _CHECKS.get(field, lambda _: None)(value)
        if not found:
            continue
        path, problem = found if isinstance(found, tuple) else ((), found)
        dotted = _dotted(field, path)
        if origin is None:
            raise ParamsError(f"{_where(dotted)}: {problem}", dotted, problem)
        file, document = origin
        (line, column), _ = document.position([field, *path])
        raise ParamsError(f"--params: {file}:{line}:{column}: {dotted}: {problem}", dotted, problem, file, line)
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


def resource_name_problem(name) -> str | None:
    """Why ``name`` is not a container resource (validateContainerResourceName): cpu, memory,
    ephemeral-storage, hugepages-SIZE, or an extended resource DOMAIN/NAME outside kubernetes.io."""
    if not isinstance(name, str):
        return f"resource name {name!r} must be a string"
    if name in STANDARD_RESOURCES or HUGEPAGES.match(name):
        return None
    if "/" in name:
        extended = (
            "kubernetes.io/" not in name
            and not name.startswith("requests.")
            and EXTENDED_RESOURCE_LENGTHS.match(name)
            and grammar.label_key_problem(name) is None
        )
        if extended:
            return None
    return (
        f"{name[:80]!r} is not a container resource: use {', '.join(STANDARD_RESOURCES)}, hugepages-SIZE "
        "(hugepages-2Mi) or an extended resource DOMAIN/NAME outside kubernetes.io (nvidia.com/gpu)"
    )


def quantity_problem(amount) -> str | None:
    """Why ``amount`` is not a quantity a config value may hold: the Kubernetes grammar, not
    negative, finite (a number from 0 to 2^63-1; a string of 64 characters at most whose exponent
    has two digits at most)."""
    if isinstance(amount, str):
        if len(amount) <= QUANTITY_VALUE_LENGTH and QUANTITY_VALUE.match(amount):
            return None
        if grammar.parse_quantity(amount) is None:
            return grammar.quantity_message(amount)
        if amount.startswith("-"):
            return f"{amount!r} has a minus sign; a resource amount is 0 or more, written without one"
        return (
            f"{amount[:80]!r} is too large a quantity: at most {QUANTITY_VALUE_LENGTH} characters and an "
            "exponent of two digits (e.g. 1e9, 64Gi)"
        )
    if isinstance(amount, bool) or not isinstance(amount, int | float):
        return grammar.quantity_message(amount)
    if isinstance(amount, float) and not math.isfinite(amount):
        return f"{amount!r} is not a finite quantity"
    if not 0 <= amount <= INT64_MAX:
        return f"{amount!r} is out of range: a resource amount is from 0 to {INT64_MAX} (2^63-1)"
    return None


def _resources(value):
    if not isinstance(value, dict):
        return "expected {requests: {cpu: Q, memory: Q}, limits: {...}}"
    for kind in value:
        if kind not in ("requests", "limits"):
            return (kind,), f"{kind!r} is not requests or limits"
    for kind, amounts in value.items():
        if not isinstance(amounts, dict):
            return (kind,), f"expected a mapping of resource names to quantities, got {amounts!r}"
        for name, amount in amounts.items():
            problem = resource_name_problem(name) or quantity_problem(amount)
            if problem:
                return (kind, name), problem
    return None


def toleration_problem(toleration) -> tuple[tuple, str] | None:
    """(path in the toleration, why) it is refused, as the apiserver's ValidateTolerations does."""
    if not isinstance(toleration, dict):
        return (), f"expected a toleration (a mapping of {', '.join(TOLERATION_FIELDS)}), got {toleration!r}"
    for field in toleration:
        if field not in TOLERATION_FIELDS:
            return (field,), f"{field!r} is not a toleration field; the fields are {', '.join(TOLERATION_FIELDS)}"
    for field in ("key", "operator", "value", "effect"):
        if field in toleration and not isinstance(toleration[field], str):
            return (field,), f"expected a string, got {toleration[field]!r}"
    key = toleration.get("key", "")
    operator = toleration.get("operator", "Equal")
    value = toleration.get("value", "")
    if key:
        problem = grammar.label_key_problem(key, "toleration")
        if problem:
            return ("key",), problem
    if operator not in TOLERATION_OPERATORS:
        return ("operator",), f"{operator!r} is not one of {', '.join(TOLERATION_OPERATORS)} (left out: Equal)"
    if not key and operator != "Exists":
        return ("operator",), "must be Exists when the key is empty (which tolerates every taint)"
    if operator == "Exists" and value:
        return ("value",), "must be empty with operator Exists (it matches every value); use Equal"
    if value and grammar.label_value_problem(value, key):
        return ("value",), grammar.label_value_problem(value, key)
    effect = toleration.get("effect")
    if effect is not None and effect not in TOLERATION_EFFECTS:
        return ("effect",), (
            f"{effect!r} is not one of {', '.join(TOLERATION_EFFECTS)}; leave effect out to tolerate every effect"
        )
    if "tolerationSeconds" in toleration:
        seconds = toleration["tolerationSeconds"]
        if not isinstance(seconds, int) or isinstance(seconds, bool):
            return ("tolerationSeconds",), f"expected a whole number of seconds, got {seconds!r}"
        if not -TOLERATION_SECONDS_MAX <= seconds <= TOLERATION_SECONDS_MAX:
            return ("tolerationSeconds",), (
                f"{seconds} is out of range: this tool takes -{TOLERATION_SECONDS_MAX} to {TOLERATION_SECONDS_MAX} "
                "(2^53-1, the largest whole number Helm's float64 values keep exactly; the apiserver's own limit "
                "is int64's, and 2^53-1 seconds is over 285 million years)"
            )
        if effect != "NoExecute":
            return ("tolerationSeconds",), "is only for effect NoExecute (the time a pod stays once tainted)"
    return None


def _tolerations(value):
    if not isinstance(value, list):
        return f"expected a list of tolerations, got {value!r}"
    for index, toleration in enumerate(value):
        found = toleration_problem(toleration)
        if found:
            return (index, *found[0]), found[1]
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


def _ports(value):
    if not isinstance(value, list) or not value:
        return f"expected a non-empty list of ports, got {value!r}"
    for index, port in enumerate(value):
        if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
            return (index,), f"{port!r} is not a port number (1 to 65535)"
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
    "tolerations": _tolerations,
    "imagePullSecrets": _secret_names,
    "nodeSelector": _labels,
    "labels": _extra_labels,
    "networkPolicy": _bool,
    "trainerRuntimes": _bool,
    "apiserverPorts": _ports,
    "apiextensions": _choice(*CHOICES["apiextensions"]),
}
