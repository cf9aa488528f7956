"""Owner `pod`: the apiserver's pod validation that schemas cannot express, for every pod
template a workload or job holds (k8s.io/kubernetes pkg/apis/core/validation, apps and batch
validation): containers, images, ports, mounts, resources and GPUs, restart policies, selectors."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from generator.core import kinds as registry
from generator.core.findings import Finding, child, joined
from generator.core.grammar import (
    DNS1123_LABEL,
    DNS1123_SUBDOMAIN,
    DNS_POLICIES,
    PROTOCOLS,
    PULL_POLICIES,
    RESTART_POLICIES,
    config_key_problem,
    image_problem,
    name_problem,
    parse_quantity,
    port_name_problem,
    quantity_message,
)
from generator.core.versions import KubeVersion
from generator.schema import kubernetes
from generator.validate.rules import pod_containers, pod_gated, pod_scheduling, pod_security
from generator.validate.rules.base import (
    as_dict,
    as_int,
    as_list,
    enforced,
    error,
    json_text,
    nonnegative_fields,
    unique_names,
    warning,
)
from generator.validate.rules.launcher import launcher_findings
from generator.validate.rules.meta import annotation_findings, label_findings
from generator.validate.rules.paddlejob import PADDLE_ROLES
from generator.validate.rules.pod_plan import ALWAYS, ContainerCheck, Planner, PodContext, SpecCheck
from generator.validate.rules.selector import mismatches


def env_duplicate_message(name: str) -> str:
    """Accepted by create and client-side apply, with the apiserver's warning (pkg/api/pod/warnings.go:
    "hides previous definition ..., which may be dropped when using apply"); env is a list-map
    keyed by name, and server-side apply refuses an applied list-map with a key twice."""
    return (
        f"env {name!r} is set twice: kubectl create and client-side apply accept it (the last value wins), "
        "server-side apply (kubectl apply --server-side, Helm 4) refuses it as a duplicate list-map key; "
        "remove one"
    )


def pod_spec_findings(
    spec: Any,
    path: str,
    template: bool = True,
    claims: frozenset[str] = frozenset(),
    releases: tuple[int, ...] = (),
    pod_name: Any = None,
    everything: bool = False,
) -> list[Finding]:
    """The apiserver's pod validation that users trip over, for a pod spec at ``path``; ``claims``
    are volumes the controller adds (a StatefulSet's volumeClaimTemplates); ``releases`` the
    targeted Kubernetes releases (some rules changed). The checks run are the plan of the spec's
    shape (pod_plan.py); ``everything`` runs every check instead (the same findings)."""
    if not isinstance(spec, dict):
        return []
    ctx = PodContext(spec, path, releases or (kubernetes.newest(),), template, pod_name, claims)
    containers, plan = PLANNER.prepare(spec, everything)
    out = []
    for check in plan.spec:
        out += check(spec, path, ctx)
    for (group, i, c), checks in zip(containers, plan.containers, strict=True):
        if checks:
            here = f"{path}.{group}[{i}]"
            for container_check in checks:
                out += container_check(c, here, group, ctx)
    return out


def _no_containers(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    if spec.get("containers") == []:
        return [error(f"{path}.containers", "containers", "a pod needs at least one container")]
    return []


def _container_names_once(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    init, regular = spec.get("initContainers"), spec.get("containers")
    if not init and (not isinstance(regular, list) or len(regular) < 2):
        return []  # one container at most: no name twice
    out: list[Finding] = []
    seen: dict[Any, str] = {}  # container name -> the path of the first container with it
    for group in ("initContainers", "containers"):
        for i, c in enumerate(as_list(spec.get(group))):
            name = c.get("name") if isinstance(c, dict) else None
            if isinstance(name, str):
                here = f"{path}.{group}[{i}]"
                if name in seen:
                    message = f"container name {name!r} is used twice (also at {seen[name]}.name)"
                    out.append(error(f"{here}.name", "container-name", message))
                seen.setdefault(name, here)
    return out


def _restart_policy(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    policy = spec.get("restartPolicy")
    if isinstance(policy, str) and policy not in RESTART_POLICIES:
        message = f"restartPolicy {policy!r} is not one of {', '.join(RESTART_POLICIES)}"
        return [error(f"{path}.restartPolicy", "enum", message)]
    return []


def _dns_policy(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    dns = spec.get("dnsPolicy")
    if isinstance(dns, str) and dns not in DNS_POLICIES:
        return [error(f"{path}.dnsPolicy", "enum", f"dnsPolicy {dns!r} is not one of {', '.join(DNS_POLICIES)}")]
    return []


def _node_selector(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    node_selector = spec.get("nodeSelector")
    return label_findings(node_selector, f"{path}.nodeSelector") if node_selector else []  # as pod labels


def _active_deadline(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    deadline = as_int(spec.get("activeDeadlineSeconds"))
    if deadline is not None and not 1 <= deadline <= 2**31 - 1:  # ValidatePodSpec
        message = f"activeDeadlineSeconds {deadline} must be between 1 and 2147483647"
        return [error(f"{path}.activeDeadlineSeconds", "pod-bounds", message)]
    return []


def _volume_names(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    volume_list = as_list(spec.get("volumes"))
    if not volume_list:
        return []
    return unique_names(volume_list, lambda i: f"{path}.volumes[{i}].name", "volume", "name", "volume-name")


def _named_fields(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    """ValidatePodSpec's names of other objects."""
    out = []
    for field, pattern, limit, what in _NAMED_FIELDS:
        value = spec.get(field)
        if isinstance(value, str) and value:
            problem = name_problem(value, pattern, limit, f"{field} ({what})")
            if problem:
                out.append(error(f"{path}.{field}", "name", problem))
    return out


# (field, grammar, limit, what): ValidateDNS1123Label for hostname and subdomain; the name
# functions of a ServiceAccount, a Node, a PriorityClass and a RuntimeClass (DNS-1123 subdomains)
_NAMED_FIELDS = (
    ("hostname", DNS1123_LABEL, 63, "DNS-1123 label"),
    ("subdomain", DNS1123_LABEL, 63, "DNS-1123 label"),
    ("serviceAccountName", DNS1123_SUBDOMAIN, 253, "a ServiceAccount name, DNS-1123 subdomain"),
    ("nodeName", DNS1123_SUBDOMAIN, 253, "a Node name, DNS-1123 subdomain"),
    ("priorityClassName", DNS1123_SUBDOMAIN, 253, "a PriorityClass name, DNS-1123 subdomain"),
    ("runtimeClassName", DNS1123_SUBDOMAIN, 253, "a RuntimeClass name, DNS-1123 subdomain"),
)


def _container_name(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    name = c.get("name")
    if name is not None:  # a missing name is the schema's finding
        problem = name_problem(name, DNS1123_LABEL, 63, "container name (DNS-1123 label)")
        if problem:
            return [error(f"{here}.name", "name", problem)]
    return []


def _image(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    image = c.get("image")
    problem = image_problem(image) if image is not None else "image is required"
    return [error(f"{here}.image", "image", problem)] if problem else []


def _pull_policy(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    pull = c.get("imagePullPolicy")
    if isinstance(pull, str) and pull not in PULL_POLICIES:
        message = f"imagePullPolicy {pull!r} is not one of {', '.join(PULL_POLICIES)}"
        return [error(f"{here}.imagePullPolicy", "enum", message)]
    return []


def _ports(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    ports = c.get("ports")
    return _port_findings(ports, here) if isinstance(ports, list) else []


def _mounts(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    mounts = c.get("volumeMounts")
    return _mount_findings(mounts, here, ctx.volumes) if isinstance(mounts, list) else []


def _env_twice(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    out, names = [], set()
    for j, env in enumerate(as_list(c.get("env"))):
        name = env.get("name") if isinstance(env, dict) else None
        if isinstance(name, str):
            if name in names:
                out.append(warning(f"{here}.env[{j}].name", "env-duplicate", env_duplicate_message(name)))
            names.add(name)
    return out


def _resources(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    resources = c.get("resources")
    return _resource_findings(resources, here) if isinstance(resources, dict) and resources else []


def _probes_env(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    # an init container that is no sidecar may not have probes or hooks (pod_containers.py says
    # so): validateInitContainers does not validate them
    sidecar = group == "containers" or c.get("restartPolicy") == "Always"
    return _probe_env_findings(c, here, ctx.releases, hooks=sidecar, spec=ctx.spec)


def _port_findings(ports: list[Any], here: str) -> list[Finding]:
    out = []
    for j, port in enumerate(ports):
        if not isinstance(port, dict):
            continue
        for field in ("containerPort", "hostPort"):
            number = as_int(port.get(field))
            if field == "hostPort" and number == 0:
                continue  # validateContainerPorts: a hostPort of 0 is unset, checked only when not zero
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
    return out


def _mount_findings(mounts: list[Any], here: str, volumes: set[Any]) -> list[Finding]:
    out = []
    mount_paths: dict[str, int] = {}
    for j, mount in enumerate(mounts):
        if not isinstance(mount, dict):
            continue
        name, mount_path = mount.get("name"), mount.get("mountPath")
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
    return out


def _resource_findings(resources: dict[Any, Any], here: str) -> list[Finding]:
    """Quantities that parse, the extended resources' rules, and no request above its limit."""
    out = []
    parsed: dict[str, dict[Any, Any]] = {"requests": {}, "limits": {}}  # kind -> resource -> value (None: no quantity)
    extended = False
    for kind, values in parsed.items():
        amounts = resources.get(kind)
        if not isinstance(amounts, dict):
            continue
        for resource, quantity in amounts.items():
            value = parse_quantity(quantity)
            if value is None and isinstance(quantity, str):  # another type: the schema's finding
                out.append(error(child(f"{here}.resources.{kind}", resource), "quantity", quantity_message(quantity)))
            values[resource] = value
            extended = extended or (isinstance(resource, str) and "/" in resource)  # "/": the quick test
    if extended:
        out += _extended_resource_findings(resources, parsed, here)
    limits = parsed["limits"]
    for resource, value in parsed["requests"].items():
        limit = limits.get(resource) if value is not None else None
        if limit is not None and value > limit:
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


def _extended_resource_findings(resources: dict[Any, Any], parsed: dict[Any, Any], here: str) -> list[Finding]:
    """The apiserver's rules for extended resources (GPUs): whole numbers, a limit, request = limit."""
    out = []
    requests, limits = parsed["requests"], parsed["limits"]
    names = {r for r in (*requests, *limits) if isinstance(r, str) and "/" in r and _is_extended(r)}
    for resource in sorted(names):
        request, limit = requests.get(resource), limits.get(resource)
        for kind, value in (("requests", request), ("limits", limit)):
            if value is not None and value != value.to_integral_value():
                shown = resources[kind][resource]
                message = f"{resource} must be a whole number, got {shown!r}: devices are not shared"
                out.append(error(child(f"{here}.resources.{kind}", resource), "extended-resource", message))
        if resource not in limits:
            message = (
                f"{resource} must be set in limits (requests alone are refused: extended resources cannot overcommit)"
            )
            out.append(error(child(f"{here}.resources.requests", resource), "extended-resource", message))
        elif request is not None and limit is not None and request != limit:
            message = f"{resource} request and limit must be equal for an extended resource"
            out.append(error(child(f"{here}.resources.requests", resource), "extended-resource", message))
    return out


def pod_templates(obj: dict[Any, Any]) -> list[tuple[str, dict[Any, Any]]]:
    """(path, pod template) for every pod template a workload or job holds; a Pod is its own
    template (path ""). Where a kind keeps them is looked up once per apiVersion and kind."""
    kind = obj.get("kind")
    where = _template_places(str(obj.get("apiVersion", "")), kind if isinstance(kind, str) else None)
    return where(obj, as_dict(obj.get("spec")))


TemplatePlaces = Callable[[dict[Any, Any], dict[Any, Any]], list[tuple[str, dict[Any, Any]]]]


@functools.lru_cache(maxsize=1024)  # the kinds of a run are few; odd ones only push others out
def _template_places(api: str, kind: str | None) -> TemplatePlaces:
    """The function that finds the pod templates of an object of ``api`` and ``kind``: a Pod's
    and a PodTemplate's are the pod API's own; every other kind's is the registry's
    (core/kinds.py Kind.templates), spec.template where it names none."""
    if kind == "Pod":
        return lambda obj, spec: [("", obj)]
    if kind == "PodTemplate" and api == "v1":  # ValidatePodTemplate: its template is a pod's
        return lambda obj, spec: [("template", as_dict(obj.get("template")))]
    ref = registry.pod_templates_ref(api, kind)
    return globals()[ref] if ref else spec_template


def cron_job_template(obj: dict[Any, Any], spec: dict[Any, Any]) -> list[tuple[str, dict[Any, Any]]]:
    job = as_dict(as_dict(spec.get("jobTemplate")).get("spec"))
    return [("spec.jobTemplate.spec.template", as_dict(job.get("template")))]


def paddle_templates(obj: dict[Any, Any], spec: dict[Any, Any]) -> list[tuple[str, dict[Any, Any]]]:
    return [
        (_PADDLE_TEMPLATE_PATHS[r], as_dict(role.get("template")))
        for r in PADDLE_ROLES
        if isinstance(role := spec.get(r), dict)
    ]


_PADDLE_TEMPLATE_PATHS = {r: f"spec.{r}.template" for r in PADDLE_ROLES}


def volcano_templates(obj: dict[Any, Any], spec: dict[Any, Any]) -> list[tuple[str, dict[Any, Any]]]:
    return [
        (f"spec.tasks[{i}].template", as_dict(as_dict(t).get("template")))
        for i, t in enumerate(as_list(spec.get("tasks")))
    ]


def replica_spec_templates(obj: dict[Any, Any], spec: dict[Any, Any]) -> list[tuple[str, dict[Any, Any]]]:
    return [
        (child(f"spec.{field}", r) + ".template", as_dict(as_dict(s).get("template")))
        for field, specs in spec.items()
        if field.endswith("ReplicaSpecs")
        for r, s in as_dict(specs).items()
    ]


def runtime_templates(obj: dict[Any, Any], spec: dict[Any, Any]) -> list[tuple[str, dict[Any, Any]]]:
    return _replicated_job_templates("spec.template.spec", as_dict(as_dict(spec.get("template")).get("spec")))


def spec_template(obj: dict[Any, Any], spec: dict[Any, Any]) -> list[tuple[str, dict[Any, Any]]]:
    """Any other kind: a pod template at spec.template (Deployment, Job, ReplicaSet, ...)."""
    template = spec.get("template")
    return [("spec.template", template)] if isinstance(template, dict) else []


def _claim_templates(obj: dict[Any, Any]) -> list[Any]:
    """The PVC templates whose volumes the controller adds to the pods that mount them: where the
    registry says the kind keeps them (core/kinds.py Kind.claims), else none."""
    ref = registry.claims_ref(
        str(obj.get("apiVersion", "")), obj.get("kind") if isinstance(obj.get("kind"), str) else None
    )
    return globals()[ref](obj) if ref else []


def statefulset_claims(obj: dict[Any, Any]) -> list[Any]:
    """A StatefulSet's volumeClaimTemplates."""
    return as_list(as_dict(obj.get("spec")).get("volumeClaimTemplates"))


def jobset_claims(obj: dict[Any, Any]) -> list[Any]:
    """A JobSet's volumeClaimPolicies templates (JobSet 0.11+, pkg/controllers/volume_claim_policy.go
    addVolumes)."""
    return _volume_claim_policies(as_dict(obj.get("spec")))


def runtime_claims(obj: dict[Any, Any]) -> list[Any]:
    """A training runtime's, in its JobSet template."""
    return _volume_claim_policies(as_dict(as_dict(as_dict(obj.get("spec")).get("template")).get("spec")))


def _volume_claim_policies(spec: dict[Any, Any]) -> list[Any]:
    return [t for policy in as_list(spec.get("volumeClaimPolicies")) for t in as_list(as_dict(policy).get("templates"))]


def jobset_templates(obj: dict[Any, Any], spec: dict[Any, Any]) -> list[tuple[str, dict[Any, Any]]]:
    """Each replicated Job's pod template."""
    return _replicated_job_templates("spec", spec)


def no_templates(obj: dict[Any, Any], spec: dict[Any, Any]) -> list[tuple[str, dict[Any, Any]]]:
    """A kind that holds no whole pod template (a TrainJob: its runtime does)."""
    return []


def _replicated_job_templates(path: str, spec: dict[Any, Any]) -> list[tuple[str, dict[Any, Any]]]:
    """The pod templates of a JobSet spec's replicated Jobs (a JobSet's, or a training runtime's
    JobSet template): the pods the Job controller will create from each."""
    return [
        (f"{path}.replicatedJobs[{i}].template.spec.template", template)
        for i, r in enumerate(as_list(spec.get("replicatedJobs")))
        if isinstance(template := as_dict(as_dict(as_dict(r).get("template")).get("spec")).get("template"), dict)
    ]


_ALWAYS_RESTART = {"Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "ReplicationController"}

_JOB_KINDS = {"Job", "CronJob"}

_CONTROLLER_KINDS = _ALWAYS_RESTART | _JOB_KINDS


def _is_builtin(obj: dict[Any, Any]) -> bool:
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    return "." not in group or group.endswith(".k8s.io")


def _controller_findings(obj: dict[Any, Any]) -> list[Finding]:
    """What the apiserver checks between a built-in controller and its pod template."""
    kind = obj.get("kind")
    if kind not in _CONTROLLER_KINDS or not _is_builtin(obj):
        return []  # custom resources have their operators' own rules
    spec = as_dict(obj.get("spec"))
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
    if kind == "ReplicationController":  # a plain map of labels
        return out + mismatches({"matchLabels": spec.get("selector")}, labels, f"{template_path}.metadata.labels")
    if kind in _ALWAYS_RESTART and isinstance(spec.get("selector"), dict):  # a Job's selector is generated
        out += mismatches(spec["selector"], labels, f"{template_path}.metadata.labels")
    return out


def workload_findings(
    obj: dict[Any, Any], releases: tuple[int, ...] = (), templates: list[Any] | None = None
) -> list[Finding]:
    """The pod rules for every pod template of ``obj`` (the pod its controller will create, as the
    apiserver will judge it), at the template's own lines; ``releases``: the targeted releases;
    ``templates``: pod_templates(obj), where the caller has them."""
    out = _controller_findings(obj)
    templates = pod_templates(obj) if templates is None else templates
    if not templates:
        return out
    releases = releases or (kubernetes.newest(),)
    claim_templates = _claim_templates(obj)
    claims = (
        frozenset(
            name for t in claim_templates if isinstance(name := as_dict(as_dict(t).get("metadata")).get("name"), str)
        )
        if claim_templates
        else _NO_CLAIMS
    )
    kind = obj.get("kind")
    api = str(obj.get("apiVersion", ""))
    builtin = kind in _CONTROLLER_KINDS and _is_builtin(obj)
    for path, template in templates:
        spec_path = joined(path, "spec")
        if kind == "Pod" and not isinstance(template.get("spec"), dict):
            # `spec:` left empty: the apiserver's Required spec.containers (ValidatePodSpec)
            out.append(error("spec", "containers", "a Pod needs spec.containers (at least one container)"))
            continue
        meta = template.get("metadata")
        labels = meta.get("labels") if isinstance(meta, dict) else None
        if path and not builtin and labels:  # a built-in controller's template labels: _controller_findings
            out += label_findings(labels, f"{path}.metadata.labels")
        if path and isinstance(meta, dict) and meta.get("annotations"):
            # ValidatePodTemplateSpec: ValidateAnnotations(spec.Annotations, fldPath.Child("annotations"));
            # placed where the file writes them, under the template's metadata (a Pod's own: metadata_findings)
            out += annotation_findings(meta["annotations"], f"{path}.metadata.annotations")
        if ".replicatedJobs[" in path:  # a Job's pod template, which the JobSet controller submits
            policy = as_dict(template.get("spec")).get("restartPolicy")
            if policy == "Always":  # unset: the JobSet webhook's OnFailure; not an enum value: the schema's
                message = "a Job's pods restart OnFailure or Never: the Job the JobSet controller makes is refused"
                out.append(error(f"{spec_path}.restartPolicy", "restart-policy", message))
        spec = template.get("spec")
        name = as_dict(obj.get("metadata")).get("name") if kind == "Pod" else None
        out += pod_spec_findings(spec, spec_path, kind != "Pod", claims, releases, name)
        out += launcher_findings(template, path, api)
    return out


_NO_CLAIMS: frozenset[str] = frozenset()


# -- probes, lifecycle hooks, environment (validateProbe, validateLifecycle, validateEnv) ---------

PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")

HOOK_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")

_PROBE_COUNTS = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold")

ENV_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef")

_ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")

_RELAXED_ENV_NAME = re.compile(r"^[ -<>-~]+$")  # printable ASCII but '=' (IsRelaxedEnvVarName)

RELAXED_ENV_NAMES_SINCE = 32  # RelaxedEnvironmentVariableValidation: alpha 1.30, beta (on) 1.32, GA 1.34
ENV_FILES_SINCE = 35  # EnvFiles: alpha 1.34 (fileKeyRef dropped), beta and on from 1.35


def _probe_env_findings(
    c: dict[Any, Any], here: str, releases: tuple[int, ...], hooks: bool = True, spec: dict[Any, Any] | None = None
) -> list[Finding]:
    """``hooks``: whether the container may have probes and lifecycle hooks (not an init
    container that is no sidecar), so whether they are validated; ``spec``: the pod spec, whose
    volumes a fileKeyRef names."""
    out = []
    if hooks:
        for probe_kind in _PROBES:
            probe = c.get(probe_kind)
            if isinstance(probe, dict):
                out += _probe_findings(probe, f"{here}.{probe_kind}", probe_kind)
        lifecycle = c.get("lifecycle")
        if isinstance(lifecycle, dict):
            for hook in ("postStart", "preStop"):
                handler = lifecycle.get(hook)
                if isinstance(handler, dict):
                    out += _handler_findings(handler, f"{here}.lifecycle.{hook}", HOOK_HANDLERS, "lifecycle hook")
    env_list = c.get("env")
    if isinstance(env_list, list) and env_list:
        names, file_keys = _env_grammar(releases)
        for j, env in enumerate(env_list):
            if isinstance(env, dict):
                name = env.get("name")
                if env.get("valueFrom") is None and (not isinstance(name, str) or names.match(name)):
                    continue  # the common case: a valid name and a plain value
                out += _env_findings(env, f"{here}.env[{j}]", names, file_keys)
                ref = as_dict(env.get("valueFrom")).get("fileKeyRef") if file_keys else None
                if isinstance(ref, dict):
                    out += _file_key_findings(ref, f"{here}.env[{j}].valueFrom.fileKeyRef", spec or {})
    for j, source in enumerate(as_list(c.get("envFrom"))):  # ValidateEnvFrom: a prefix is an env name
        prefix = source.get("prefix") if isinstance(source, dict) else None
        grammar = _env_name_grammar(releases)
        if prefix and isinstance(prefix, str) and not grammar.match(prefix):
            allowed = "letters, digits, '_', '-', '.', not a digit first" if grammar is _ENV_NAME else "no '='"
            message = f"envFrom prefix {prefix!r} starts every variable's name: it must be an env name ({allowed})"
            out.append(error(f"{here}.envFrom[{j}].prefix", "env-value", message))
    return out


@functools.cache  # a checker's releases: one tuple for every document
def _env_name_grammar(releases: tuple[int, ...]) -> re.Pattern[str]:
    """The env name grammar of the strictest targeted release."""
    return _ENV_NAME if enforced(releases, until=RELAXED_ENV_NAMES_SINCE - 1) else _RELAXED_ENV_NAME


@functools.cache
def _env_grammar(releases: tuple[int, ...]) -> tuple[re.Pattern[str], bool]:
    """The env name grammar of the strictest targeted release, and whether fileKeyRef is an env
    source in all of them (before 1.35 it is dropped)."""
    return _env_name_grammar(releases), not enforced(releases, until=ENV_FILES_SINCE - 1)


def _handler_findings(handler: dict[Any, Any], path: str, kinds: tuple[Any, ...], what: str) -> list[Finding]:
    """validateHandler / validateLifecycleHandler: exactly one handler, its port a number or a name."""
    present = [k for k in kinds if handler.get(k) is not None]
    if not present:
        return [error(path, "probe", f"a {what} needs one handler: {', '.join(kinds)}")]
    if len(present) > 1:
        message = f"a {what} has one handler, found {' and '.join(present)}; keep one"
        return [error(f"{path}.{present[1]}", "probe", message)]
    out = []
    action = as_dict(handler.get(present[0]))
    port = action.get("port")
    port_path = f"{path}.{present[0]}.port"
    if present[0] in ("httpGet", "tcpSocket"):  # ValidatePortNumOrName
        if isinstance(port, str):
            problem = port_name_problem(port)
            if problem:
                message = f"{problem}; write a number without quotes (a name must be a container port's name)"
                out.append(error(port_path, "probe", message))
        elif (number := as_int(port)) is not None and not 1 <= number <= 65535:
            out.append(error(port_path, "probe", f"port {port} is not in 1-65535"))
    elif present[0] == "grpc" and (number := as_int(port)) is not None and not 1 <= number <= 65535:
        out.append(error(port_path, "probe", f"port {port} is not in 1-65535"))
    elif present[0] == "exec" and not as_list(action.get("command")):
        out.append(error(f"{path}.exec.command", "probe", "exec needs a command"))
    return out


def _probe_findings(probe: dict[Any, Any], path: str, probe_kind: str) -> list[Finding]:
    """validateProbe: one handler, counts >= 0 (0 is defaulted), and a liveness or startup
    probe's successThreshold 1 (validateContainers)."""
    out = _handler_findings(probe, path, PROBE_HANDLERS, probe_kind)
    out += nonnegative_fields(probe, _PROBE_COUNTS, path, "probe")
    threshold = as_int(probe.get("successThreshold"))
    if probe_kind != "readinessProbe" and threshold not in (None, 0, 1):
        message = f"a {probe_kind}'s successThreshold must be 1, got {threshold}"
        out.append(error(f"{path}.successThreshold", "probe", message))
    return out


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _file_key_findings(ref: dict[Any, Any], path: str, spec: dict[Any, Any]) -> list[Finding]:
    """validateFileKeySelector (a key that is an env name, a volumeName that is a DNS-1123 label,
    a path without '..') and validateFileKeyRefVolumes (the volume is the pod's, an emptyDir)."""
    out = []
    key, volume, file_path = ref.get("key"), ref.get("volumeName"), ref.get("path")
    for field, value in (("key", key), ("volumeName", volume), ("path", file_path)):
        if value == "":
            out.append(error(f"{path}.{field}", "required", f"fileKeyRef needs a {field}"))
    if isinstance(key, str) and key and not _RELAXED_ENV_NAME.match(key):
        out.append(error(f"{path}.key", "env-value", f"fileKeyRef key {key!r} must be printable ASCII other than '='"))
    if isinstance(file_path, str) and ".." in file_path.split("/"):
        out.append(error(f"{path}.path", "env-value", f"fileKeyRef path {file_path!r} must not contain '..'"))
    if isinstance(volume, str) and volume:
        if not (len(volume) <= 63 and DNS1123_LABEL.match(volume)):
            out.append(error(f"{path}.volumeName", "env-value", f"volumeName {volume!r} is not a DNS-1123 label"))
        sources = {v["name"]: v for v in as_list(spec.get("volumes")) if isinstance(v, dict) and _is_str(v.get("name"))}
        if volume not in sources:
            message = f"fileKeyRef names volume {volume!r}, which is not a volume of the pod"
            out.append(error(f"{path}.volumeName", "volume-mount", message))
        elif sources[volume].get("emptyDir") is None:
            message = f"fileKeyRef's volume {volume!r} must be an emptyDir volume"
            out.append(error(f"{path}.volumeName", "env-value", message))
    return out


def _env_findings(env: dict[Any, Any], path: str, names: re.Pattern[str], file_keys: bool = False) -> list[Finding]:
    """validateEnv and validateEnvVarValueFrom: a name ``names`` matches (the release's grammar),
    and valueFrom with exactly one source (``file_keys``: fileKeyRef is one, from 1.35)."""
    out = []
    name = env.get("name")
    if isinstance(name, str) and name and not names.match(name):
        if names is _ENV_NAME:
            message = (
                f"env name {name!r} must be letters, digits, '_', '-' or '.', not starting with a digit "
                f"(any printable character but '=' from Kubernetes {KubeVersion(RELAXED_ENV_NAMES_SINCE)})"
            )
        else:
            message = f"env name {name!r} must be printable ASCII characters other than '='"
        out.append(error(f"{path}.name", "env-value", message))
    source = env.get("valueFrom")
    if not isinstance(source, dict):
        return out
    if env.get("value"):
        out.append(error(f"{path}.valueFrom", "env-value", "valueFrom may not be set when value is not empty"))
    sources = (*ENV_SOURCES, "fileKeyRef") if file_keys else ENV_SOURCES
    present = [k for k in sources if source.get(k) is not None]
    if not present:
        message = f"valueFrom needs one of {', '.join(sources)}"
        out.append(error(f"{path}.valueFrom", "env-value", message))
    elif len(present) > 1:
        message = f"valueFrom has one source, found {' and '.join(present)}; keep one"
        out.append(error(f"{path}.valueFrom.{present[1]}", "env-value", message))
    for ref in ("configMapKeyRef", "secretKeyRef"):  # validateConfigMapKeySelector, validateSecretKeySelector
        selector = source.get(ref)
        if not isinstance(selector, dict):
            continue
        name = selector.get("name")
        if not name:
            out.append(error(f"{path}.valueFrom.{ref}.name", "env-value", f"{ref} needs the name of the object"))
        elif isinstance(name, str) and name_problem(name, DNS1123_SUBDOMAIN, 253, "name"):
            message = f"{ref} name {name!r} is not an object name (DNS-1123 subdomain)"
            out.append(error(f"{path}.valueFrom.{ref}.name", "env-value", message))
        key = selector.get("key")
        problem = config_key_problem(key) if isinstance(key, str) else None
        if problem:
            out.append(error(f"{path}.valueFrom.{ref}.key", "env-value", problem))
    return out


_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_REGULAR = ("initContainers", "containers")  # ephemeral containers: pod_containers.py's _ephemeral_findings

# this module's checks, each with the fields it reads (pod_plan.py)
SPEC_CHECKS = (
    SpecCheck(("containers",), _no_containers),
    SpecCheck(_REGULAR, _container_names_once),
    SpecCheck(("restartPolicy",), _restart_policy),
    SpecCheck(("dnsPolicy",), _dns_policy),
    SpecCheck(("nodeSelector",), _node_selector),
    SpecCheck(("activeDeadlineSeconds",), _active_deadline),
    SpecCheck(("volumes",), _volume_names),
    SpecCheck(tuple(field for field, *_ in _NAMED_FIELDS), _named_fields),
)
CONTAINER_CHECKS = (
    ContainerCheck(_REGULAR, ("name",), _container_name),
    ContainerCheck(_REGULAR, ALWAYS, _image),
    ContainerCheck(_REGULAR, ("imagePullPolicy",), _pull_policy),
    ContainerCheck(_REGULAR, ("ports",), _ports),
    ContainerCheck(_REGULAR, ("volumeMounts",), _mounts),
    ContainerCheck(_REGULAR, ("env",), _env_twice),
    ContainerCheck(_REGULAR, ("resources",), _resources),
    ContainerCheck(_REGULAR, (*_PROBES, "lifecycle", "env", "envFrom"), _probes_env),
)

# every pod rule: this module's and those of the modules it composes, one plan per pod shape
PLANNER = Planner(
    SPEC_CHECKS
    + pod_scheduling.SPEC_CHECKS
    + pod_containers.SPEC_CHECKS
    + pod_security.SPEC_CHECKS
    + pod_gated.SPEC_CHECKS,
    CONTAINER_CHECKS + pod_containers.CONTAINER_CHECKS + pod_security.CONTAINER_CHECKS + pod_gated.CONTAINER_CHECKS,
)
