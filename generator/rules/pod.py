"""Owner `pod`: the apiserver's pod validation that schemas cannot express, for every pod
template a workload or job holds (k8s.io/kubernetes pkg/apis/core/validation, apps and batch
validation): containers, images, ports, mounts, resources and GPUs, restart policies, selectors."""

from __future__ import annotations

from ..findings import Finding, child
from .base import as_dict, as_int, as_list, error, json_text, unique_names, warning
from .grammar import (
    DNS1123_LABEL,
    DNS_POLICIES,
    PROTOCOLS,
    PULL_POLICIES,
    RESTART_POLICIES,
    image_problem,
    name_problem,
    parse_quantity,
    port_name_problem,
    quantity_message,
)
from .meta import label_findings
from .paddlejob import PADDLE_ROLES


def env_duplicate_message(name: str) -> str:
    """Accepted by create and client-side apply, with the apiserver's warning (pkg/api/pod/warnings.go:
    "hides previous definition ..., which may be dropped when using apply"); env is a list-map
    keyed by name, and server-side apply refuses an applied list-map with a key twice."""
    return (
        f"env {name!r} is set twice: kubectl create and client-side apply accept it (the last value wins), "
        "server-side apply (kubectl apply --server-side, Helm 4) refuses it as a duplicate list-map key; "
        "remove one"
    )


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
        v.get("name") for v in as_list(spec.get("volumes")) if isinstance(v, dict) and isinstance(v.get("name"), str)
    } | claims
    seen: dict[str, str] = {}
    for group in ("initContainers", "containers"):
        for i, c in enumerate(as_list(spec.get(group))):
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
    out += label_findings(spec.get("nodeSelector"), f"{path}.nodeSelector")  # ValidateLabels, as pod labels
    volumes = as_list(spec.get("volumes"))
    out += unique_names(volumes, lambda i: f"{path}.volumes[{i}].name", "volume", "name", "volume-name")
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
    for j, port in enumerate(as_list(c.get("ports"))):
        port = as_dict(port)
        for field in ("containerPort", "hostPort"):
            number = as_int(port.get(field))
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
    for j, mount in enumerate(as_list(c.get("volumeMounts"))):
        name = as_dict(mount).get("name")
        mount_path = as_dict(mount).get("mountPath")
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
    for j, env in enumerate(as_list(c.get("env"))):
        name = as_dict(env).get("name")
        if isinstance(name, str):
            if name in env_names:
                out.append(warning(f"{here}.env[{j}].name", "env-duplicate", env_duplicate_message(name)))
            env_names.add(name)
    resources = as_dict(c.get("resources"))
    parsed = {}
    for kind in ("requests", "limits"):
        for resource, quantity in as_dict(resources.get(kind)).items():
            value = parse_quantity(quantity)
            if value is None and isinstance(quantity, str):  # another type: the schema's finding
                out.append(error(child(f"{here}.resources.{kind}", resource), "quantity", quantity_message(quantity)))
            parsed[(kind, resource)] = value
    out += _extended_resource_findings(resources, parsed, here)
    for (kind, resource), value in parsed.items():
        limit = parsed.get(("limits", resource))
        if kind == "requests" and value is not None and limit is not None and value > limit:
            out.append(
                error(
                    child(f"{here}.resources.requests", resource),
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
                out.append(error(child(f"{here}.resources.{kind}", resource), "extended-resource", message))
        if ("limits", resource) not in parsed:
            message = (
                f"{resource} must be set in limits (requests alone are refused: extended resources cannot overcommit)"
            )
            out.append(error(child(f"{here}.resources.requests", resource), "extended-resource", message))
        elif request is not None and limit is not None and request != limit:
            message = f"{resource} request and limit must be equal for an extended resource"
            out.append(error(child(f"{here}.resources.requests", resource), "extended-resource", message))
    return out


def _templates(obj: dict) -> list[tuple[str, dict]]:
    """(path of the pod spec, pod spec) for every pod template a workload or job holds."""
    kind, spec = obj.get("kind"), as_dict(obj.get("spec"))
    api = str(obj.get("apiVersion", ""))
    if kind == "Pod":
        return [("spec", spec)]
    if kind == "CronJob":
        job = as_dict(as_dict(spec.get("jobTemplate")).get("spec"))
        return [("spec.jobTemplate.spec.template.spec", as_dict(job.get("template")).get("spec"))]
    if api.startswith("batch.paddlepaddle.org/"):
        return [
            (f"spec.{r}.template.spec", as_dict(as_dict(spec.get(r)).get("template")).get("spec"))
            for r in PADDLE_ROLES
            if isinstance(spec.get(r), dict)
        ]
    if api.startswith("batch.volcano.sh/"):
        return [
            (f"spec.tasks[{i}].template.spec", as_dict(as_dict(t).get("template")).get("spec"))
            for i, t in enumerate(as_list(spec.get("tasks")))
        ]
    if api.startswith("kubeflow.org/"):
        return [
            (f"spec.paddleReplicaSpecs.{r}.template.spec", as_dict(as_dict(s).get("template")).get("spec"))
            for r, s in as_dict(spec.get("paddleReplicaSpecs")).items()
        ]
    if isinstance(spec.get("template"), dict):
        return [("spec.template.spec", as_dict(spec["template"]).get("spec"))]
    return []


_ALWAYS_RESTART = {"Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "ReplicationController"}

_JOB_KINDS = {"Job", "CronJob"}


def _controller_findings(obj: dict) -> list[Finding]:
    """What the apiserver checks between a built-in controller and its pod template."""
    kind, spec = obj.get("kind"), as_dict(obj.get("spec"))
    api = str(obj.get("apiVersion", ""))
    if "." in api.split("/")[0] and not api.split("/")[0].endswith("k8s.io"):
        return []  # custom resources have their operators' own rules
    if kind not in _ALWAYS_RESTART | _JOB_KINDS:
        return []
    out = []
    template_path = "spec.jobTemplate.spec.template" if kind == "CronJob" else "spec.template"
    template = (
        as_dict(as_dict(as_dict(spec.get("jobTemplate")).get("spec")).get("template"))
        if kind == "CronJob"
        else as_dict(spec.get("template"))
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
    labels = as_dict(as_dict(template.get("metadata")).get("labels"))
    out += label_findings(labels, f"{template_path}.metadata.labels")
    selector = (
        as_dict(as_dict(spec.get("selector")).get("matchLabels"))
        if kind != "ReplicationController"
        else as_dict(spec.get("selector"))
    )
    for key, value in selector.items():
        if isinstance(value, str) and labels.get(key) != value:  # another type: the schema's finding
            message = (
                f"selector {key}={value} does not match the pod template's labels: the controller would own no pod"
            )
            out.append(
                error(
                    child("spec.selector.matchLabels" if kind != "ReplicationController" else "spec.selector", key),
                    "selector",
                    message,
                )
            )
    return out


def workload_findings(obj: dict) -> list[Finding]:
    out = _controller_findings(obj)
    claims = frozenset()
    if obj.get("kind") == "StatefulSet":  # the controller adds a volume per claim template to each pod
        templates = as_list(as_dict(obj.get("spec")).get("volumeClaimTemplates"))
        claims = frozenset(
            name for t in templates if isinstance(name := as_dict(as_dict(t).get("metadata")).get("name"), str)
        )
    for path, pod in _templates(obj):
        out += pod_spec_findings(pod, path, claims=claims)
    return out
