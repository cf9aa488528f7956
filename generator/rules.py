"""What the apiserver and the operators enforce beyond the JSON schemas.

Each function takes one object (already schema-checked or not: every access
is defensive, bad shapes are the schema's business) and returns Findings with
paths relative to the object.  The messages name the value found and what is
allowed, because that is what a user needs to fix it.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

from .findings import Finding

DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_QUALIFIED = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_QUANTITY = re.compile(r"^([+-]?[0-9.]+)([eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE]|)$")
_SUFFIX = {
    "": 1,
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
}

PULL_POLICIES = ("Always", "IfNotPresent", "Never")
RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
PROTOCOLS = ("TCP", "UDP", "SCTP")
PADDLE_ROLES = ("ps", "worker", "heter")


def error(path: str, rule: str, message: str) -> Finding:
    return Finding("error", path, rule, message)


def warning(path: str, rule: str, message: str) -> Finding:
    return Finding("warning", path, rule, message)


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value) -> list:
    return value if isinstance(value, list) else []


def dig(value, *keys):
    """value[k1][k2]... or None, whatever the shapes on the way."""
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_quantity(text) -> Decimal | None:
    """A Kubernetes quantity ('100m', '1.5Gi', '2e3', '1Ei', 4) as a number; None if it is not one
    (or its exponent is beyond ±1000, which no resource needs and Decimal arithmetic would choke on)."""
    if isinstance(text, bool):
        return None
    if isinstance(text, float) and not math.isfinite(text):
        return None
    if isinstance(text, int | float):
        return Decimal(str(text))
    if not isinstance(text, str):
        return None
    match = _QUANTITY.match(text)
    if not match:
        return None
    try:
        number = Decimal(match.group(1))
    except InvalidOperation:
        return None
    suffix = match.group(2)
    if suffix[:1] in ("e", "E") and len(suffix) > 1 and suffix[1] != "i":
        if len(suffix) > 6:  # more than ±99999: beyond any quantity (and int() of it can be slow)
            return None
        exponent = int(suffix[1:])
        return number.scaleb(exponent) if abs(exponent) <= 1000 else None
    return number * _SUFFIX[suffix]


# The image reference grammar (github.com/distribution/reference, regexp.go): the kubelet
# fails a pod with InvalidImageName on anything else.
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_HOST_PART = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?"
_DOMAIN = rf"(?:{_HOST_PART}(?:\.{_HOST_PART})*|\[[0-9a-fA-F:]+\])"
IMAGE_REFERENCE = re.compile(
    rf"^(?:{_DOMAIN}(?::[0-9]+)?/)?{_COMPONENT}(?:/{_COMPONENT})*"
    r"(?::[\w][\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,})?$"
)


def image_problem(image) -> str | None:
    """Why ``image`` is not a usable container image reference, or None."""
    if not isinstance(image, str) or not image.strip():
        return "image is required"
    if image != image.strip():
        return f"image {image!r} has leading or trailing whitespace, which the apiserver rejects"
    if len(image) > 4096 or not IMAGE_REFERENCE.match(image):
        return (
            f"{image[:80]!r} is not an image reference (REGISTRY/PATH:TAG or @sha256:DIGEST, lower-case path); "
            "the kubelet would fail the pod with InvalidImageName"
        )
    return None


def quantity_message(value) -> str:
    return f"{value!r} is not a Kubernetes quantity (e.g. 500m, 2, 1.5Gi)"


def name_problem(value, pattern: re.Pattern, limit: int, what: str) -> str | None:
    if not isinstance(value, str) or not value:
        return f"{what} is required"
    if len(value) > limit:
        return f"{value!r} is {len(value)} characters; a {what} has at most {limit}"
    if not pattern.match(value):
        return f"{value!r} is not a valid {what}: use {_SPELLING[pattern]}"
    return None


_SPELLING = {
    DNS1123_LABEL: "lower-case letters, digits and '-', starting and ending with a letter or digit",
    DNS1123_SUBDOMAIN: "lower-case letters, digits, '-' and '.', starting and ending with a letter or digit",
    DNS1035_LABEL: "lower-case letters, digits and '-', starting with a letter and ending with a letter or digit",
}


# -- metadata ------------------------------------------------------------------------------------

_NAME_RULES = {
    "Namespace": (DNS1123_LABEL, 63, "DNS-1123 label"),
    "Service": (DNS1035_LABEL, 63, "DNS-1035 label"),
}


def metadata_findings(obj: dict, check_name: bool = True) -> list[Finding]:
    """Names, namespace, label and annotation keys; ``check_name=False`` where a kind has its own name rule."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return [error("metadata", "required", "metadata with a name is required")]
    out = []
    name = meta.get("name")
    if check_name and not (name is None and meta.get("generateName")):
        pattern, limit, what = _NAME_RULES.get(obj.get("kind"), (DNS1123_SUBDOMAIN, 253, "DNS-1123 subdomain"))
        problem = name_problem(name, pattern, limit, f"{obj.get('kind', 'object')} name ({what})")
        if problem:
            out.append(error("metadata.name", "name", problem))
    namespace = meta.get("namespace")
    if namespace is not None:
        problem = name_problem(namespace, DNS1123_LABEL, 63, "namespace (DNS-1123 label)")
        if problem:
            out.append(error("metadata.namespace", "name", problem))
    out += label_findings(meta.get("labels"), "metadata.labels")
    for key in _dict(meta.get("annotations")):
        out += _key_findings(f"metadata.annotations.{key}", key, "annotation")
    return out


def _key_findings(path: str, key: str, what: str) -> list[Finding]:
    problem = label_key_problem(key, what)
    return [error(path, f"{what}-key", problem)] if problem else []


def label_value_problem(value, key) -> str | None:
    """Why ``value`` is not a label value (the one spelling of that rule: rules, flags, params)."""
    if isinstance(value, str) and len(value) <= 63 and LABEL_VALUE.match(value):
        return None
    return (
        f"label value {value!r} of {key!r} must be at most 63 characters of letters, digits, '-', '_' "
        "or '.', starting and ending with a letter or digit"
    )


def label_findings(labels, path: str) -> list[Finding]:
    """Label keys and values of a labels mapping at ``path``."""
    out = []
    for key, value in _dict(labels).items():
        out += _key_findings(f"{path}.{key}", key, "label")
        if isinstance(value, str) and label_value_problem(value, key):
            out.append(error(f"{path}.{key}", "label-value", label_value_problem(value, key)))
    return out


def label_key_problem(key, what: str = "label") -> str | None:
    """Why ``key`` is not a label (or annotation) key: [DNS-1123 subdomain/]qualified name."""
    if not isinstance(key, str):
        return f"{what} key {key!r} must be a string"
    prefix, _, name = key.rpartition("/")
    if prefix and (len(prefix) > 253 or not DNS1123_SUBDOMAIN.match(prefix)):
        return f"{what} key prefix {prefix!r} must be a DNS-1123 subdomain"
    if len(name) > 63 or not _QUALIFIED.match(name):
        return (
            f"{what} key name {name!r} must be at most 63 characters of letters, "
            "digits, '-', '_' or '.', starting and ending with a letter or digit"
        )
    return None


# -- pods ----------------------------------------------------------------------------------------


def pod_spec_findings(spec, path: str, template: bool = True, claims: frozenset = frozenset()) -> list[Finding]:
    """The apiserver's pod validation that users trip over, for a pod spec at ``path``; ``claims``
    are volumes the controller adds (a StatefulSet's volumeClaimTemplates)."""
    if not isinstance(spec, dict):
        return []
    out = []
    containers = spec.get("containers")
    if isinstance(containers, list) and not containers:
        out.append(error(f"{path}.containers", "containers", "a pod needs at least one container"))
    volumes = {
        v.get("name") for v in _list(spec.get("volumes")) if isinstance(v, dict) and isinstance(v.get("name"), str)
    } | claims
    seen: dict[str, str] = {}
    for group in ("initContainers", "containers"):
        for i, c in enumerate(_list(spec.get(group))):
            if not isinstance(c, dict):
                continue
            here = f"{path}.{group}[{i}]"
            out += _container_findings(c, here, volumes)
            name = c.get("name")
            if isinstance(name, str):
                if name in seen:
                    out.append(
                        error(
                            f"{here}.name",
                            "container-name",
                            f"container name {name!r} is used twice (also at {seen[name]})",
                        )
                    )
                seen.setdefault(name, f"{here}.name")
    policy = spec.get("restartPolicy")
    if isinstance(policy, str) and policy not in RESTART_POLICIES:
        out.append(
            error(
                f"{path}.restartPolicy", "enum", f"restartPolicy {policy!r} is not one of {', '.join(RESTART_POLICIES)}"
            )
        )
    dns = spec.get("dnsPolicy")
    if isinstance(dns, str) and dns not in DNS_POLICIES:
        out.append(error(f"{path}.dnsPolicy", "enum", f"dnsPolicy {dns!r} is not one of {', '.join(DNS_POLICIES)}"))
    volumes = _list(spec.get("volumes"))
    out += _label_names(volumes, lambda i: f"{path}.volumes[{i}].name", "volume", "name", "volume-name")
    return out


def _label_names(items: list, path_of, what: str, bad_rule: str, twice_rule: str) -> list[Finding]:
    """Each item's name is a DNS-1123 label, and no two items share one."""
    out, seen = [], set()
    for i, item in enumerate(items):
        name = _dict(item).get("name")
        problem = name_problem(name, DNS1123_LABEL, 63, f"{what} name (DNS-1123 label)")
        if problem:
            out.append(error(path_of(i), bad_rule, problem))
        elif name in seen:
            out.append(error(path_of(i), twice_rule, f"{what} name {name!r} is used twice"))
        if isinstance(name, str):
            seen.add(name)
    return out


def _container_findings(c: dict, here: str, volumes: set) -> list[Finding]:
    out = []
    problem = name_problem(c.get("name"), DNS1123_LABEL, 63, "container name (DNS-1123 label)")
    if problem and c.get("name") is not None:  # a missing name is the schema's finding
        out.append(error(f"{here}.name", "name", problem))
    image = c.get("image")
    problem = image_problem(image) if image is not None else "image is required"
    if problem:
        out.append(error(f"{here}.image", "image", problem))
    pull = c.get("imagePullPolicy")
    if isinstance(pull, str) and pull not in PULL_POLICIES:
        out.append(
            error(
                f"{here}.imagePullPolicy", "enum", f"imagePullPolicy {pull!r} is not one of {', '.join(PULL_POLICIES)}"
            )
        )
    for j, port in enumerate(_list(c.get("ports"))):
        port = _dict(port)
        for field in ("containerPort", "hostPort"):
            number = _int(port.get(field))
            if number is not None and not 1 <= number <= 65535:
                out.append(error(f"{here}.ports[{j}].{field}", "port", f"{field} {number} is not in 1-65535"))
        port_name = port.get("name")
        if isinstance(port_name, str):
            problem = port_name_problem(port_name)
            if problem:
                out.append(error(f"{here}.ports[{j}].name", "port-name", problem))
        protocol = port.get("protocol")
        if isinstance(protocol, str) and protocol not in PROTOCOLS:
            out.append(
                error(f"{here}.ports[{j}].protocol", "enum", f"protocol {protocol!r} is not one of TCP, UDP, SCTP")
            )
    mount_paths: dict[str, int] = {}
    for j, mount in enumerate(_list(c.get("volumeMounts"))):
        name = _dict(mount).get("name")
        mount_path = _dict(mount).get("mountPath")
        if isinstance(mount_path, str):
            if mount_path in mount_paths:
                out.append(
                    error(
                        f"{here}.volumeMounts[{j}].mountPath",
                        "mount-path",
                        f"mountPath {mount_path!r} is used twice (also volumeMounts[{mount_paths[mount_path]}]); "
                        "the apiserver rejects it",
                    )
                )
            mount_paths.setdefault(mount_path, j)
        if isinstance(name, str) and name not in volumes:
            out.append(
                error(
                    f"{here}.volumeMounts[{j}].name",
                    "volume-mount",
                    f"volumeMount {name!r} names no volume of the pod; add it to volumes or fix the name",
                )
            )
    env_names: set = set()
    for j, env in enumerate(_list(c.get("env"))):
        name = _dict(env).get("name")
        if isinstance(name, str):
            if name in env_names:
                out.append(
                    warning(f"{here}.env[{j}].name", "env-duplicate", f"env {name!r} is set twice; the last one wins")
                )
            env_names.add(name)
    resources = _dict(c.get("resources"))
    parsed = {}
    for kind in ("requests", "limits"):
        for resource, quantity in _dict(resources.get(kind)).items():
            value = parse_quantity(quantity)
            if value is None and quantity is not None:
                out.append(error(f"{here}.resources.{kind}.{resource}", "quantity", quantity_message(quantity)))
            parsed[(kind, resource)] = value
    out += _extended_resource_findings(resources, parsed, here)
    for (kind, resource), value in parsed.items():
        limit = parsed.get(("limits", resource))
        if kind == "requests" and value is not None and limit is not None and value > limit:
            out.append(
                error(
                    f"{here}.resources.requests.{resource}",
                    "resources",
                    f"request {resources['requests'][resource]!r} is above the limit {resources['limits'][resource]!r}",
                )
            )
    return out


def _is_extended(resource: str) -> bool:
    """A resource name outside kubernetes.io, with a domain: nvidia.com/gpu, rdma/hca."""
    domain, _, _ = resource.rpartition("/")
    return bool(domain) and not domain.endswith("kubernetes.io") and not resource.startswith("hugepages-")


def _extended_resource_findings(resources: dict, parsed: dict, here: str) -> list[Finding]:
    """The apiserver's rules for extended resources (GPUs): whole numbers, a limit, request = limit."""
    out = []
    names = {r for (_, r) in parsed if isinstance(r, str) and _is_extended(r)}
    for resource in sorted(names):
        request, limit = parsed.get(("requests", resource)), parsed.get(("limits", resource))
        for kind, value in (("requests", request), ("limits", limit)):
            if value is not None and value != value.to_integral_value():
                shown = resources[kind][resource]
                message = f"{resource} must be a whole number, got {shown!r}: devices are not shared"
                out.append(error(f"{here}.resources.{kind}.{resource}", "extended-resource", message))
        if ("limits", resource) not in parsed:
            message = (
                f"{resource} must be set in limits (requests alone are refused: extended resources cannot overcommit)"
            )
            out.append(error(f"{here}.resources.requests.{resource}", "extended-resource", message))
        elif request is not None and limit is not None and request != limit:
            message = f"{resource} request and limit must be equal for an extended resource"
            out.append(error(f"{here}.resources.requests.{resource}", "extended-resource", message))
    return out


_IANA_SVC_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")


def port_name_problem(name: str) -> str | None:
    """Why ``name`` is not a port name (IANA_SVC_NAME: at most 15 lower-case letters, digits and
    '-', a letter among them, no '--', no '-' at either end)."""
    if len(name) > 15:
        return f"port name {name!r} is {len(name)} characters; at most 15"
    if not _IANA_SVC_NAME.match(name) or "--" in name:
        return f"port name {name!r} must be lower-case letters, digits and single '-', not at either end"
    if name.isdigit():
        return f"port name {name!r} must contain a letter: digits alone would read as a port number"
    return None


def _templates(obj: dict) -> list[tuple[str, dict]]:
    """(path of the pod spec, pod spec) for every pod template a workload or job holds."""
    kind, spec = obj.get("kind"), _dict(obj.get("spec"))
    api = str(obj.get("apiVersion", ""))
    if kind == "Pod":
        return [("spec", spec)]
    if kind == "CronJob":
        job = _dict(_dict(spec.get("jobTemplate")).get("spec"))
        return [("spec.jobTemplate.spec.template.spec", _dict(job.get("template")).get("spec"))]
    if api.startswith("batch.paddlepaddle.org/"):
        return [
            (f"spec.{r}.template.spec", _dict(_dict(spec.get(r)).get("template")).get("spec"))
            for r in PADDLE_ROLES
            if isinstance(spec.get(r), dict)
        ]
    if api.startswith("batch.volcano.sh/"):
        return [
            (f"spec.tasks[{i}].template.spec", _dict(_dict(t).get("template")).get("spec"))
            for i, t in enumerate(_list(spec.get("tasks")))
        ]
    if api.startswith("kubeflow.org/"):
        return [
            (f"spec.paddleReplicaSpecs.{r}.template.spec", _dict(_dict(s).get("template")).get("spec"))
            for r, s in _dict(spec.get("paddleReplicaSpecs")).items()
        ]
    if isinstance(spec.get("template"), dict):
        return [("spec.template.spec", _dict(spec["template"]).get("spec"))]
    return []


_ALWAYS_RESTART = {"Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "ReplicationController"}
_JOB_KINDS = {"Job", "CronJob"}


def _controller_findings(obj: dict) -> list[Finding]:
    """What the apiserver checks between a built-in controller and its pod template."""
    kind, spec = obj.get("kind"), _dict(obj.get("spec"))
    api = str(obj.get("apiVersion", ""))
    if "." in api.split("/")[0] and not api.split("/")[0].endswith("k8s.io"):
        return []  # custom resources have their operators' own rules
    if kind not in _ALWAYS_RESTART | _JOB_KINDS:
        return []
    out = []
    template_path = "spec.jobTemplate.spec.template" if kind == "CronJob" else "spec.template"
    template = (
        _dict(_dict(_dict(spec.get("jobTemplate")).get("spec")).get("template"))
        if kind == "CronJob"
        else _dict(spec.get("template"))
    )
    if not isinstance(template.get("spec"), dict):
        return [error(template_path, "pod-template", f"a {kind} needs a pod template with a spec and containers")]
    pod = template["spec"]
    policy = pod.get("restartPolicy")
    if policy is not None and policy not in RESTART_POLICIES:
        policy = "Always" if kind in _ALWAYS_RESTART else "OnFailure"  # the enum rule reports it
    if kind in _ALWAYS_RESTART and policy not in (None, "Always"):
        message = f"a {kind}'s pods must restart Always, got {policy!r}"
        out.append(error(f"{template_path}.spec.restartPolicy", "restart-policy", message))
    if kind in _JOB_KINDS and policy not in ("OnFailure", "Never"):
        message = f"a {kind}'s pods restart OnFailure or Never (the default Always is refused), got {json_text(policy)}"
        out.append(error(f"{template_path}.spec.restartPolicy", "restart-policy", message))
    labels = _dict(_dict(template.get("metadata")).get("labels"))
    out += label_findings(labels, f"{template_path}.metadata.labels")
    selector = (
        _dict(_dict(spec.get("selector")).get("matchLabels"))
        if kind != "ReplicationController"
        else _dict(spec.get("selector"))
    )
    for key, value in selector.items():
        if labels.get(key) != value:
            message = (
                f"selector {key}={value} does not match the pod template's labels: the controller would own no pod"
            )
            out.append(
                error(
                    f"spec.selector.matchLabels.{key}" if kind != "ReplicationController" else f"spec.selector.{key}",
                    "selector",
                    message,
                )
            )
    return out


def json_text(value) -> str:
    return "none" if value is None else repr(value)


def workload_findings(obj: dict) -> list[Finding]:
    out = _controller_findings(obj)
    claims = frozenset()
    if obj.get("kind") == "StatefulSet":  # the controller adds a volume per claim template to each pod
        templates = _list(_dict(obj.get("spec")).get("volumeClaimTemplates"))
        claims = frozenset(
            name for t in templates if isinstance(name := _dict(_dict(t).get("metadata")).get("name"), str)
        )
    for path, pod in _templates(obj):
        out += pod_spec_findings(pod, path, claims=claims)
    return out


# -- batch.paddlepaddle.org/v1 PaddleJob: the operator's own rules -------------------------------


def _containers_of(spec: dict, role: str) -> list[dict]:
    pod = _dict(_dict(_dict(spec.get(role)).get("template")).get("spec"))
    return [c for c in _list(pod.get("containers")) if isinstance(c, dict)]


def paddlejob_findings(obj: dict) -> list[Finding]:
    spec = _dict(obj.get("spec"))
    roles = [r for r in PADDLE_ROLES if isinstance(spec.get(r), dict)]
    out = []
    if not roles:
        out.append(
            error("spec", "paddlejob-roles", "set at least one of ps, worker, heter (worker alone is collective mode)")
        )
    if "ps" in roles and "worker" not in roles:
        out.append(error("spec.ps", "paddlejob-roles", "ps needs worker: PS mode runs parameter servers and trainers"))
    if "heter" in roles and not {"ps", "worker"} <= set(roles):
        out.append(error("spec.heter", "paddlejob-roles", "heter needs ps and worker"))
    elastic = spec.get("elastic")
    if elastic not in (None, 0) and "worker" not in roles:
        out.append(error("spec.elastic", "paddlejob-elastic", "elastic training needs worker"))
    if elastic not in (None, 0):
        env = {
            e.get("name")
            for r in roles
            for c in _containers_of(spec, r)
            for e in _list(c.get("env"))
            if isinstance(e, dict)
        }
        if "PADDLE_ELASTIC_SERVER" not in env:
            out.append(
                warning(
                    "spec.elastic",
                    "paddlejob-elastic",
                    "elastic is set but no container sets PADDLE_ELASTIC_SERVER, the etcd endpoint the "
                    "pods register with (unless the operator runs with --etcd-server)",
                )
            )
    name = _dict(obj.get("metadata")).get("name")
    problem = name_problem(name, DNS1035_LABEL, 63, "PaddleJob name (DNS-1035 label)")
    if problem and name is not None:
        out.append(error("metadata.name", "paddlejob-name", problem))
    total = 0
    for role in roles:
        out += _role_findings(spec, role, name if not problem else None)
        total += _int(spec[role].get("replicas")) or 0
    policy = spec.get("schedulingPolicy")
    if isinstance(policy, dict):
        minimum = _int(policy.get("minAvailable"))
        out += _gang(minimum, total, "spec.schedulingPolicy.minAvailable", "paddlejob-min-available", "the job")
        for role in roles:
            pod = _dict(_dict(spec[role].get("template")).get("spec"))
            scheduler = pod.get("schedulerName")
            if scheduler not in (None, "", "volcano"):
                out.append(
                    error(
                        f"spec.{role}.template.spec.schedulerName",
                        "paddlejob-scheduler",
                        f"schedulerName {scheduler!r} ignores the schedulingPolicy; leave it empty or use volcano",
                    )
                )
    gloo = spec.get("withGloo")
    if gloo in (1, 2) and "ps" not in roles:
        out.append(
            warning(
                "spec.withGloo",
                "paddlejob-gloo",
                "withGloo only acts in PS mode (with ps); the operator ignores it here",
            )
        )
    if spec.get("intranet") == "Host":
        for role in roles:
            pod = _dict(_dict(spec[role].get("template")).get("spec"))
            if pod.get("dnsPolicy") != "ClusterFirstWithHostNet":
                out.append(
                    warning(
                        f"spec.{role}.template.spec.dnsPolicy",
                        "paddlejob-host-network",
                        "intranet Host runs the pods on the host network; set dnsPolicy: ClusterFirstWithHostNet "
                        "or they cannot resolve cluster names",
                    )
                )
    return out


def _role_findings(spec: dict, role: str, job_name: str | None) -> list[Finding]:
    out = []
    rs = spec[role]
    replicas, low, high = _int(rs.get("replicas")), _int(rs.get("requests")), _int(rs.get("limits"))
    if replicas is not None:
        if low is not None and low > replicas:
            out.append(
                error(
                    f"spec.{role}.requests",
                    "paddlejob-elastic-bounds",
                    f"requests {low} is above replicas {replicas}; need requests <= replicas <= limits",
                )
            )
        if high is not None and high < replicas:
            out.append(
                error(
                    f"spec.{role}.limits",
                    "paddlejob-elastic-bounds",
                    f"limits {high} is below replicas {replicas}; need requests <= replicas <= limits",
                )
            )
        most = max(replicas, high or 0)
        if job_name and most >= 1:
            pod = f"{job_name}-{role}-{most - 1}"
            if len(pod) > 63:
                out.append(
                    error(
                        "metadata.name",
                        "paddlejob-name",
                        f"pod and host name {pod!r} is {len(pod)} characters, more than 63; "
                        f"shorten the job name to at most {63 - len(pod) + len(job_name)}",
                    )
                )
    containers = _containers_of(spec, role)
    if not isinstance(_dict(rs.get("template")).get("spec"), dict):
        out.append(
            error(f"spec.{role}", "paddlejob-containers", f"{role} needs template.spec with the containers to run")
        )
    elif (
        containers and containers[0].get("name") != "paddle" and any(c.get("name") == "paddle" for c in containers[1:])
    ):
        out.append(
            warning(
                f"spec.{role}.template.spec.containers[0]",
                "paddlejob-container-order",
                f"the operator sets the PADDLE_* environment on containers[0] ({containers[0].get('name')!r}); "
                "put the 'paddle' container first",
            )
        )
    return out


def _gang(minimum: int | None, total: int, path: str, rule: str, whose: str) -> list[Finding]:
    """A gang larger than every pod there is never gets scheduled."""
    if minimum is not None and minimum > total:
        return [
            error(path, rule, f"minAvailable {minimum} is more than the {total} pods of {whose}: it would never start")
        ]
    return []


# -- batch.volcano.sh/v1alpha1 Job and scheduling.volcano.sh/v1beta1 PodGroup --------------------


# What Volcano's job webhook lets users write (v1.15.1, pkg/webhooks/admission/jobs/validate/util.go:
# policyEventMap and policyActionMap entries allowed for external use).
VOLCANO_EVENTS = ("*", "PodFailed", "PodEvicted", "PodPending", "Unknown", "TaskCompleted", "TaskFailed", "JobUpdated")
VOLCANO_ACTIONS = ("AbortJob", "RestartJob", "RestartTask", "RestartPod", "RestartPartition", "TerminateJob",
                   "CompleteJob", "ResumeJob")  # fmt: skip


def _policy_findings(policies, path: str) -> list[Finding]:
    """Volcano's webhook rules for one list of lifecycle policies (validatePolicies)."""
    out = []
    seen_events: dict[str, int] = {}
    seen_codes: dict[int, int] = {}
    for i, policy in enumerate(_list(policies)):
        policy = _dict(policy)
        here = f"{path}[{i}]"
        events = [e for e in [policy.get("event"), *_list(policy.get("events"))] if e]
        if events and policy.get("exitCode") is not None:
            out.append(error(here, "volcano-policy", "set either event(s) or exitCode in a policy, not both"))
        if not events and policy.get("exitCode") is None:
            out.append(error(here, "volcano-policy", "a policy needs an event, events or an exitCode"))
        if policy.get("exitCode") == 0:
            out.append(
                error(f"{here}.exitCode", "volcano-policy", "exitCode 0 means success; it cannot trigger an action")
            )
        code = _int(policy.get("exitCode"))
        if code:
            if code in seen_codes:
                out.append(
                    error(f"{here}.exitCode", "volcano-policy", f"exitCode {code} is also in policy {seen_codes[code]}")
                )
            seen_codes.setdefault(code, i)
        action = policy.get("action")
        if events and isinstance(action, str) and action not in VOLCANO_ACTIONS:
            message = f"action {action!r} is not one the webhook accepts: {', '.join(VOLCANO_ACTIONS)}"
            out.append(error(f"{here}.action", "volcano-policy", message))
        for event in dict.fromkeys(events):
            if not isinstance(event, str):
                continue
            if event not in VOLCANO_EVENTS:
                message = f"event {event!r} is not one the webhook accepts: {', '.join(VOLCANO_EVENTS)}"
                out.append(error(f"{here}.event", "volcano-policy", message))
            elif event in seen_events:
                message = f"event {event} is also in policy {seen_events[event]}: each event once across the policies"
                out.append(error(here, "volcano-policy", message))
            seen_events.setdefault(event, i)
    if "*" in seen_events and len(seen_events) > 1:
        out.append(error(path, "volcano-policy", "with the event * no other event may have a policy"))
    return out


def volcano_job_findings(obj: dict) -> list[Finding]:
    spec = _dict(obj.get("spec"))
    tasks = _list(spec.get("tasks"))
    out = []
    if not tasks:
        out.append(error("spec.tasks", "volcano-tasks", "a Volcano Job needs at least one task"))
    out += _label_names(tasks, lambda i: f"spec.tasks[{i}].name", "task", "volcano-task-name", "volcano-task-name")
    total = 0
    for i, task in enumerate(tasks):
        task = _dict(task)
        replicas = _int(task.get("replicas")) or 0
        total += replicas
        task_min = _int(task.get("minAvailable"))
        if task_min is not None and task_min > replicas:
            out.append(
                error(
                    f"spec.tasks[{i}].minAvailable",
                    "volcano-min-available",
                    f"minAvailable {task_min} is more than the task's {replicas} replicas",
                )
            )
        out += _policy_findings(task.get("policies"), f"spec.tasks[{i}].policies")
    out += _gang(_int(spec.get("minAvailable")), total, "spec.minAvailable", "volcano-min-available", "all tasks")
    out += _policy_findings(spec.get("policies"), "spec.policies")
    return out


def volcano_queue_findings(obj: dict) -> list[Finding]:
    """A Queue's resource lists must be quantities (Volcano's queue webhook parses them)."""
    spec = _dict(obj.get("spec"))
    out = []
    lists = [("capability", spec.get("capability")), ("deserved", spec.get("deserved"))]
    lists.append(("guarantee.resource", _dict(spec.get("guarantee")).get("resource")))
    for where, amounts in lists:
        for name, amount in _dict(amounts).items():
            if parse_quantity(amount) is None:
                out.append(error(f"spec.{where}.{name}", "quantity", quantity_message(amount)))
    return out


# -- kubeflow.org/v1 PaddleJob: the training-operator webhook's rules ----------------------------


def kubeflow_paddlejob_findings(obj: dict) -> list[Finding]:
    out = []
    name = _dict(obj.get("metadata")).get("name")
    problem = name_problem(name, DNS1035_LABEL, 63, "PaddleJob name (DNS-1035 label)")
    if problem and name is not None:
        out.append(error("metadata.name", "kubeflow-name", problem))
    specs = _dict(_dict(obj.get("spec")).get("paddleReplicaSpecs"))
    for rtype, rspec in specs.items():
        here = f"spec.paddleReplicaSpecs.{rtype}"
        if rtype not in ("Master", "Worker"):
            out.append(error(here, "kubeflow-replica-type", f"replica type {rtype!r} must be Master or Worker"))
        pod = _dict(_dict(_dict(rspec).get("template")).get("spec"))
        containers = [c for c in _list(pod.get("containers")) if isinstance(c, dict)]
        if not isinstance(pod.get("containers"), list):  # an empty list is the pod rule's finding
            out.append(error(here, "kubeflow-containers", f"{rtype} needs template.spec.containers"))
        elif containers and not any(c.get("name") == "paddle" for c in containers):
            out.append(
                error(
                    f"{here}.template.spec.containers",
                    "kubeflow-container-name",
                    f"{rtype} has no container named 'paddle'; the training operator requires one",
                )
            )
    elastic = _dict(_dict(obj.get("spec")).get("elasticPolicy"))
    low, high = _int(elastic.get("minReplicas")), _int(elastic.get("maxReplicas"))
    if low is not None and high is not None and low > high:
        out.append(
            error(
                "spec.elasticPolicy.minReplicas", "kubeflow-elastic", f"minReplicas {low} is above maxReplicas {high}"
            )
        )
    return out
