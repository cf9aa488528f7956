"""The one registry of kinds: for each kind this project knows more of than its schema, where its
schema comes from, which rules and admission defaults apply, how `local` runs it and whether a
JSON Schema of it is published. Every table that used to be keyed by (apiVersion, kind) in the
validator, the admission model, `local`'s controllers and the publisher derives from it.

A kind's code is named, not imported ("module:function" under the package of the layer that runs
it: generator.validate.rules, generator.validate.admission, generator.local.controllers), so this
module sits at the bottom of the house and a run imports a group's rules only when it meets one.

Built-in kinds (schema "kubernetes") are keyed by API group and apply to every served version, as
the apiserver converts each version to one internal type before validating it. Custom kinds are
keyed by apiVersion. A kind of a third-party project that needs no rules of ours is no entry: its
schema comes from the project's pinned CRDs alone (generator/schema/projects.py).
"""

from __future__ import annotations

import functools
import importlib
from typing import NamedTuple

OWN_SCHEMA = "paddlejob"  # schemas/paddlejob.v1.yaml, the one hand-written API of this project
BUILTIN = "kubernetes"  # the Kubernetes release's own definitions
INPUT = "input"  # `local`: read by another kind's controller, no pods of its own


class Kind(NamedTuple):
    api: str  # apiVersion of a custom kind; the API group ("" is core) of a built-in one
    kind: str
    schema: str = BUILTIN  # BUILTIN, OWN_SCHEMA, or a project of schemas/thirdparty (volcano, ...)
    rules: str | None = None  # "module:function" in generator.validate.rules
    admission: str | None = None  # function in generator.validate.admission: its mutating webhook
    local: str | None = None  # "module:function" in generator.local.controllers, or INPUT
    published: bool = False  # a JSON Schema in schemas/jsonschema (custom kinds)
    # Where the kind keeps the pod templates its controller makes pods of: a function of
    # generator.validate.rules.pod (obj, spec) -> [(path, template)]; None: spec.template, if any
    # (Deployment, Job, ReplicaSet, ...). The pod rules see a kind's pods only through it.
    templates: str | None = None
    # The PVC templates whose volumes its controller adds to the pods: a function of
    # generator.validate.rules.pod (obj) -> [PVC template]; None: none.
    claims: str | None = None
    # What its controller adds to its pods before they run, for the Pod Security Standards: a
    # function of generator.validate.rules.podsecurity (obj, pod spec) -> pod spec; None: nothing.
    pod_security: str | None = None
    # Its name follows a rule of its own (its rules check it), not ObjectMeta's DNS-1123 subdomain.
    own_name_rule: bool = False
    # Rules that judge it against the Kubernetes releases targeted, with its project's release:
    # "module:function" in generator.validate.rules, (obj, releases, project release) -> findings.
    release_rules: str | None = None
    # How `local` restarts its pods when one fails (the controller's own policy, not the kubelet's):
    # RESTART_JOBS, a failed Job restarts every Job of the object; RESTART_PODS, a failed pod
    # restarts every pod of the object; None, no group restart.
    group_restart: str | None = None

    @property
    def builtin(self) -> bool:
        return self.schema == BUILTIN


# The group restarts `local` models (Kind.group_restart).
RESTART_JOBS = "jobs"  # JobSet's failurePolicy: a Job that fails recreates them all (failure_policy.go)
RESTART_PODS = "pods"  # Volcano's RestartJob policy: a pod that fails restarts the job (state/running.go)


def _builtin(
    group: str, kinds: str, rules: str, local: dict[str, str] | None = None, **facts: str | None
) -> list[Kind]:
    module, _, function = rules.partition(":")
    return [
        Kind(group, kind, rules=f"{module}:{function}", local=(local or {}).get(kind), **facts)
        for kind in kinds.split()
    ]


KINDS: tuple[Kind, ...] = (
    # -- built-in kinds: the rules of pkg/apis/<group>/validation, one module per group --
    *_builtin("", "Service", "core:service_findings"),
    *_builtin("", "ConfigMap", "core:configmap_findings"),
    *_builtin("", "Secret", "core:secret_findings"),
    *_builtin("", "PersistentVolumeClaim", "core:pvc_findings"),
    *_builtin("", "PersistentVolume", "core:pv_findings"),
    *_builtin("", "ResourceQuota", "core:resource_quota_findings"),
    *_builtin("", "LimitRange", "core:limit_range_findings"),
    *_builtin("", "ServiceAccount", "core:serviceaccount_findings"),
    *_builtin("", "Namespace", "core:namespace_findings"),
    *_builtin("", "Endpoints", "core:endpoints_findings"),
    *_builtin("", "Node", "core:node_findings"),
    *_builtin("", "Event", "core:event_findings"),
    *_builtin("", "Binding", "subresources:binding_findings"),
    *_builtin("events.k8s.io", "Event", "core:event_findings"),
    *_builtin("apps", "Deployment", "apps:deployment_findings"),
    *_builtin("extensions", "Deployment", "apps:deployment_findings"),
    *_builtin(
        "apps",
        "StatefulSet",
        "apps:statefulset_findings",
        {"StatefulSet": "kubernetes:statefulset_pods"},
        claims="statefulset_claims",
    ),
    *_builtin("apps", "DaemonSet", "apps:daemonset_findings"),
    *_builtin("extensions", "DaemonSet", "apps:daemonset_findings"),
    *_builtin("apps", "ReplicaSet", "apps:replicaset_findings"),
    *_builtin("extensions", "ReplicaSet", "apps:replicaset_findings"),
    *_builtin("apps", "ControllerRevision", "apps:controller_revision_findings"),
    *_builtin("batch", "Job", "lifecycle:job_findings", {"Job": "kubernetes:indexed_job_pods"}),
    *_builtin("batch", "CronJob", "batch:cronjob_findings", templates="cron_job_template"),
    *_builtin("networking.k8s.io", "Ingress", "networking:ingress_findings"),
    *_builtin("networking.k8s.io", "NetworkPolicy", "networking:network_policy_findings"),
    *_builtin("networking.k8s.io", "IngressClass", "networking:ingress_class_findings"),
    *_builtin("networking.k8s.io", "IPAddress", "networking:ip_address_findings"),
    *_builtin("networking.k8s.io", "ServiceCIDR", "networking:service_cidr_findings"),
    *_builtin("extensions", "NetworkPolicy", "networking:network_policy_findings"),
    *_builtin("autoscaling", "HorizontalPodAutoscaler", "autoscaling:hpa_findings"),
    *_builtin("autoscaling", "Scale", "subresources:scale_findings"),
    *_builtin("policy", "PodDisruptionBudget", "policy:pdb_findings"),
    *_builtin("rbac.authorization.k8s.io", "Role ClusterRole", "rbac:role_findings"),
    *_builtin("rbac.authorization.k8s.io", "RoleBinding ClusterRoleBinding", "rbac:binding_findings"),
    *_builtin("storage.k8s.io", "StorageClass", "storage:storage_class_findings"),
    *_builtin("storage.k8s.io", "CSIDriver", "storage:csi_driver_findings"),
    *_builtin("storage.k8s.io", "CSINode", "storage:csi_node_findings"),
    *_builtin("storage.k8s.io", "VolumeAttachment", "storage:volume_attachment_findings"),
    *_builtin("storage.k8s.io", "CSIStorageCapacity", "storage:csi_storage_capacity_findings"),
    *_builtin("storage.k8s.io", "VolumeAttributesClass", "storage:volume_attributes_class_findings"),
    *_builtin("node.k8s.io", "RuntimeClass", "node:runtime_class_findings"),
    *_builtin("coordination.k8s.io", "Lease", "coordination:lease_findings"),
    *_builtin("authorization.k8s.io", "SubjectAccessReview", "authorization:subject_access_review_findings"),
    *_builtin("authorization.k8s.io", "SelfSubjectAccessReview", "authorization:self_subject_access_review_findings"),
    *_builtin("authorization.k8s.io", "LocalSubjectAccessReview", "authorization:local_subject_access_review_findings"),
    *_builtin("authorization.k8s.io", "SelfSubjectRulesReview", "authorization:self_subject_rules_review_findings"),
    *_builtin("authentication.k8s.io", "TokenReview", "authentication:token_review_findings"),
    *_builtin("authentication.k8s.io", "TokenRequest", "authentication:token_request_findings"),
    *_builtin("discovery.k8s.io", "EndpointSlice", "discovery:endpoint_slice_findings"),
    *_builtin("flowcontrol.apiserver.k8s.io", "FlowSchema", "flowcontrol:flow_schema_findings"),
    *_builtin("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", "flowcontrol:priority_level_findings"),
    *_builtin("apiregistration.k8s.io", "APIService", "apiregistration:api_service_findings"),
    *_builtin("certificates.k8s.io", "CertificateSigningRequest", "certificates:csr_findings"),
    *_builtin("resource.k8s.io", "ResourceClaim", "resource:resource_claim_findings"),
    *_builtin("resource.k8s.io", "ResourceClaimTemplate", "resource:resource_claim_template_findings"),
    *_builtin("resource.k8s.io", "DeviceClass", "resource:device_class_findings"),
    *_builtin("resource.k8s.io", "ResourceSlice", "resource:resource_slice_findings"),
    *_builtin("scheduling.k8s.io", "PriorityClass", "scheduling:priority_class_findings"),
    *_builtin(
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration MutatingWebhookConfiguration",
        "admissionregistration:webhook_configuration_findings",
    ),
    *_builtin(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        "admissionregistration:admission_policy_findings",
    ),
    *_builtin(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        "admissionregistration:admission_policy_binding_findings",
    ),
    # -- this project's own API --
    Kind(
        "batch.paddlepaddle.org/v1",
        "PaddleJob",
        OWN_SCHEMA,
        rules="lifecycle:paddlejob_findings",
        local="operator:paddle_job_pods",
        published=True,
        templates="paddle_templates",
        pod_security="paddle_operator_pod",
        own_name_rule=True,  # DNS-1035, as the operator names pods and Services after it
    ),
    # -- third-party projects: schema from their pinned CRDs, rules from their webhooks and controllers --
    Kind(
        "batch.volcano.sh/v1alpha1",
        "Job",
        "volcano",
        rules="lifecycle:volcano_job_findings",
        local="volcano:job_pods",
        published=True,
        templates="volcano_templates",
        group_restart=RESTART_PODS,
    ),
    Kind("scheduling.volcano.sh/v1beta1", "PodGroup", "volcano", published=True),
    Kind("scheduling.volcano.sh/v1beta1", "Queue", "volcano", rules="volcano:volcano_queue_findings", published=True),
    Kind(
        "kubeflow.org/v1",
        "PaddleJob",
        "kubeflow",
        rules="lifecycle:kubeflow_paddlejob_findings",
        local="kubeflow:paddle_job_pods",
        published=True,
        templates="replica_spec_templates",
        own_name_rule=True,  # DNS-1035, as training-operator names pods and Services after it
    ),
    # the other kubeflow.org/v1 jobs with a webhook in training-operator v1.9.0 (MPIJob v1 has none)
    *(
        Kind("kubeflow.org/v1", kind, "kubeflow", rules=f"kubeflow:{rules}", own_name_rule=True)
        for kind, rules in (
            ("PyTorchJob", "pytorchjob_findings"),
            ("TFJob", "tfjob_findings"),
            ("XGBoostJob", "xgboostjob_findings"),
            ("JAXJob", "jaxjob_findings"),
        )
    ),
    Kind(
        "trainer.kubeflow.org/v1alpha1",
        "TrainJob",
        "trainer",
        rules="trainer:trainjob_findings",
        local="trainer:trainjob_pods",
        published=True,
        templates="no_templates",  # a TrainJob holds no whole pod template: its runtime does
        release_rules="lifecycle:trainjob_release_findings",
    ),
    *(
        Kind(
            "trainer.kubeflow.org/v1alpha1",
            kind,
            "trainer",
            rules="trainer:runtime_findings",
            local=INPUT,
            published=True,
            templates="runtime_templates",
            claims="runtime_claims",
            release_rules="trainer:kube_release_findings",
        )
        for kind in ("ClusterTrainingRuntime", "TrainingRuntime")
    ),
    Kind(
        "jobset.x-k8s.io/v1alpha2",
        "JobSet",
        "jobset",
        rules="lifecycle:jobset_findings",
        admission="jobset",
        local="jobset:jobset_pods",
        templates="jobset_templates",
        claims="jobset_claims",
        group_restart=RESTART_JOBS,
        published=True,
    ),
)


# Groups whose kinds keep their pod templates alike, for the kinds of them without an entry:
# every training-operator job (kubeflow.org PyTorchJob, TFJob, MPIJob, ...) its <framework>ReplicaSpecs.
GROUP_TEMPLATES = {"kubeflow.org": "replica_spec_templates"}


class Project(NamedTuple):
    """A third-party project whose pinned CRDs (schemas/thirdparty/NAME/) check its kinds."""

    name: str  # its folder under schemas/thirdparty, and --NAME-version
    title: str  # the name people know it by
    checks: str  # what its CRDs check, for --NAME-version's help
    validated: bool = True  # False: its CRD is only held against ours (the released paddle-operator's)
    # Where generator/tools/thirdparty_extract.py reads its CRDs: the repository, the releases
    # (major, minor) pinned, the folder of its CRD files at each tag. None: another extractor's
    # (gateway_extract.py).
    repository: str | None = None
    releases: tuple[tuple[int, int], ...] = ()
    crd_folder: str = ""
    channels: bool = False  # its releases come in channels (1.N standard, 1.N-experimental)


PROJECTS: tuple[Project, ...] = (
    Project(
        "volcano",
        "Volcano",
        "Volcano release whose CRDs check Volcano objects",
        repository="https://github.com/volcano-sh/volcano",
        releases=tuple((1, m) for m in range(6, 16)),
        crd_folder="installer/helm/chart/volcano/crd/bases",
    ),
    Project(
        "kubeflow",
        "Kubeflow training-operator",
        "Kubeflow training-operator release whose CRDs check its jobs",
        repository="https://github.com/kubeflow/training-operator",
        releases=tuple((1, m) for m in range(6, 10)),
        crd_folder="manifests/base/crds",
    ),
    Project(
        "trainer",
        "Kubeflow Trainer",
        "Kubeflow Trainer release whose CRDs check TrainJobs and runtimes",
        repository="https://github.com/kubeflow/trainer",
        releases=tuple((2, m) for m in range(0, 4)),
        crd_folder="manifests/base/crds",
    ),
    Project(
        "jobset",
        "JobSet",
        "JobSet release whose CRD checks JobSets",
        repository="https://github.com/kubernetes-sigs/jobset",
        releases=tuple((0, m) for m in range(8, 13)),
        crd_folder="config/components/crd/bases",
    ),
    Project(
        "gateway-api",
        "Gateway API",
        "Gateway API release whose CRDs check Gateway API objects (1.N: its standard channel; "
        "1.N-experimental or experimental: its experimental channel)",
        channels=True,
    ),
    # not a validation source (schemas/paddlejob.v1.yaml is ours): tests/test_crd.py checks that
    # our API serves every field of the released operator's CRD
    Project(
        "paddle-operator",
        "paddle-operator",
        "",
        validated=False,
        repository="https://github.com/PaddleFlow/paddle-operator",
        releases=((0, 3),),
        crd_folder="config/crd/bases",
    ),
)


# Kueue's integrations (generator/tools/kueue_extract.py reads which each release has): each
# framework name and the kind it admits (the integration's controller, pkg/controller/jobs/NAME).
KUEUE_INTEGRATIONS = {
    "batch/job": ("batch/v1", "Job"),
    "pod": ("v1", "Pod"),
    "deployment": ("apps/v1", "Deployment"),
    "statefulset": ("apps/v1", "StatefulSet"),
    "jobset.x-k8s.io/jobset": ("jobset.x-k8s.io/v1alpha2", "JobSet"),
    "kubeflow.org/mpijob": ("kubeflow.org/v2beta1", "MPIJob"),
    "kubeflow.org/mxjob": ("kubeflow.org/v1", "MXJob"),
    "kubeflow.org/paddlejob": ("kubeflow.org/v1", "PaddleJob"),
    "kubeflow.org/pytorchjob": ("kubeflow.org/v1", "PyTorchJob"),
    "kubeflow.org/tfjob": ("kubeflow.org/v1", "TFJob"),
    "kubeflow.org/xgboostjob": ("kubeflow.org/v1", "XGBoostJob"),
    "kubeflow.org/jaxjob": ("kubeflow.org/v1", "JAXJob"),
    "trainer.kubeflow.org/trainjob": ("trainer.kubeflow.org/v1alpha1", "TrainJob"),
    "leaderworkerset.x-k8s.io/leaderworkerset": ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"),
    "ray.io/rayjob": ("ray.io/v1", "RayJob"),
    "ray.io/raycluster": ("ray.io/v1", "RayCluster"),
    "ray.io/rayservice": ("ray.io/v1", "RayService"),
    "sparkoperator.k8s.io/sparkapplication": ("sparkoperator.k8s.io/v1beta2", "SparkApplication"),
    "workload.codeflare.dev/appwrapper": ("workload.codeflare.dev/v1beta2", "AppWrapper"),
}

# What an object needs, besides the queue label, for its integration to queue it (the integration's
# webhook and constants, v0.19.2).
KUEUE_NEEDS = {
    "batch/job": "nothing more: the job webhook suspends the Job until Kueue admits it (spec.suspend)",
    "pod": (
        "the pod webhook gates the pod (scheduling gate kueue.x-k8s.io/admission); a group of pods carries the "
        "label kueue.x-k8s.io/pod-group-name and the annotation kueue.x-k8s.io/pod-group-total-count, both or "
        "neither (pod_webhook.go validatePodGroupMetadata)"
    ),
    "deployment": "the pod integration enabled too: the Deployment's pods are queued as pods",
    "statefulset": "the pod integration enabled too: the StatefulSet's pods are queued as one pod group",
    "leaderworkerset.x-k8s.io/leaderworkerset": "the pod integration enabled too",
}


# The first Kueue release whose MultiKueue dispatches each integration's objects to a worker
# cluster (a MultiKueue adapter for it), and the file: read at the tags kueue_extract.py reads
# (v0.6.3 ... v0.19.2); an integration not named has no adapter in any of them. Before v0.8 the
# adapters lived in pkg/controller/admissionchecks/multikueue/.
KUEUE_MULTIKUEUE = {
    "batch/job": ("0.6", "pkg/controller/admissionchecks/multikueue/batchjob_adapter.go"),
    "jobset.x-k8s.io/jobset": ("0.6", "pkg/controller/admissionchecks/multikueue/jobset_adapter.go"),
    "kubeflow.org/paddlejob": ("0.9", "pkg/controller/jobs/kubeflow/jobs/paddlejob/paddlejob_multikueue_adapter.go"),
    "kubeflow.org/pytorchjob": ("0.9", "pkg/controller/jobs/kubeflow/jobs/pytorchjob/pytorch_multikueue_adapter.go"),
    "kubeflow.org/tfjob": ("0.9", "pkg/controller/jobs/kubeflow/jobs/tfjob/tfjob_multikueue_adapter.go"),
    "kubeflow.org/xgboostjob": ("0.9", "pkg/controller/jobs/kubeflow/jobs/xgboostjob/xgboostjob_multikueue_adapter.go"),
    "kubeflow.org/mpijob": ("0.9", "pkg/controller/jobs/mpijob/mpijob_multikueue_adapter.go"),
    "kubeflow.org/jaxjob": ("0.12", "pkg/controller/jobs/kubeflow/jobs/jaxjob/jaxjob_multikueue_adapter.go"),
    "trainer.kubeflow.org/trainjob": ("0.14", "pkg/controller/jobs/trainjob/trainjob_multikueue_adapter.go"),
    "workload.codeflare.dev/appwrapper": ("0.11", "pkg/controller/jobs/appwrapper/appwrapper_multikueue_adapter.go"),
    "pod": ("0.11", "pkg/controller/jobs/pod/pod_multikueue_adapter.go"),
    "ray.io/raycluster": ("0.11", "pkg/controller/jobs/raycluster/raycluster_multikueue_adapter.go"),
    "ray.io/rayjob": ("0.11", "pkg/controller/jobs/rayjob/rayjob_multikueue_adapter.go"),
    "statefulset": ("0.16", "pkg/controller/jobs/statefulset/statefulset_multikueue_adapter.go"),
    "leaderworkerset.x-k8s.io/leaderworkerset": (
        "0.17",
        "pkg/controller/jobs/leaderworkerset/leaderworkerset_multikueue_adapter.go",
    ),
    "ray.io/rayservice": ("0.17", "pkg/controller/jobs/rayservice/rayservice_multikueue_adapter.go"),
}

# Kinds no cluster serves any more, with what replaces them.
LEGACY = {
    ("paddlepaddle.org/v1", "PaddleJob"): (
        "the legacy paddlepaddle.org/v1 PaddleJob API is gone: no operator serves it any more; "
        "write a batch.paddlepaddle.org/v1 PaddleJob (`paddlejob-manifests convert FILE` translates it)"
    ),
}


# The jobs `convert` reads, each with its function in generator.jobs.convert (a legacy kind's is
# converted as it is; any other must validate first).
CONVERTS = {
    ("paddlepaddle.org/v1", "PaddleJob"): "from_legacy",
    ("batch.paddlepaddle.org/v1", "PaddleJob"): "from_paddlejob",
}

# The kinds `local` passes over without a word: they make no pods of their own (a Service's and a
# ConfigMap's data it reads for the pods; the rest act on a cluster only).
LOCAL_PASSES = frozenset(
    [
        "Service",
        "ConfigMap",
        "ServiceAccount",
        "Role",
        "RoleBinding",
        "PodGroup",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "Secret",
        "NetworkPolicy",
    ]
)


@functools.cache
def _index() -> tuple[dict, dict]:
    builtin, custom = {}, {}
    for entry in KINDS:
        table = builtin if entry.builtin else custom
        key = (entry.api, entry.kind)
        if key in table:
            raise AssertionError(f"the registry names {key} twice")
        table[key] = entry
    return builtin, custom


def lookup(api_version: str | None, kind: str | None) -> Kind | None:
    """The entry of an object's kind: its apiVersion for a custom kind, its group for a built-in one."""
    builtin, custom = _index()
    entry = custom.get((api_version, kind))
    if entry is None and isinstance(api_version, str):
        entry = builtin.get((api_version.rpartition("/")[0], kind))
    return entry


def builtin_entry(group: str, kind: str | None) -> Kind | None:
    """The entry of a built-in kind of API ``group`` ("" for core), any version."""
    return _index()[0].get((group, kind))


def custom_kinds() -> tuple[Kind, ...]:
    """The custom kinds with an entry, in the registry's order."""
    return tuple(_index()[1].values())


def resolve(package: str, ref: str):
    """The function a "module:function" reference names under ``package`` (imported on first use)."""
    return _resolve(package, ref)


@functools.cache
def _resolve(package: str, ref: str):
    module, _, function = ref.partition(":")
    return getattr(importlib.import_module(f"{package}.{module}"), function)


def pod_templates_ref(api_version: str, kind: str | None) -> str | None:
    """Where an object of ``api_version`` and ``kind`` keeps its pod templates (Kind.templates, a
    function of generator.validate.rules.pod): its entry's; another version's of the same group
    and kind; its group's (GROUP_TEMPLATES); None for spec.template."""
    return _facts_of(api_version, kind).templates


def claims_ref(api_version: str, kind: str | None) -> str | None:
    """Where an object keeps the PVC templates its controller adds to its pods (Kind.claims)."""
    return _facts_of(api_version, kind).claims


class _Facts(NamedTuple):
    templates: str | None
    claims: str | None


@functools.lru_cache(maxsize=1024)
def _facts_of(api_version: str, kind: str | None) -> _Facts:
    group = api_version.rpartition("/")[0]
    entry = lookup(api_version, kind)
    if entry is None:  # another version of a kind with an entry: the same places
        entry = next((e for e in custom_kinds() if e.kind == kind and e.api.rpartition("/")[0] == group), None)
    if entry is not None and (entry.templates or entry.claims):
        return _Facts(entry.templates, entry.claims)
    return _Facts(GROUP_TEMPLATES.get(group), None)


def own_groups() -> frozenset[str]:
    """This project's own API groups: its own kinds' and the legacy ones'."""
    return frozenset(
        [e.api.rpartition("/")[0] for e in KINDS if e.schema == OWN_SCHEMA]
        + [api.rpartition("/")[0] for api, _ in LEGACY]
    )


def references() -> list[tuple[str, str]]:
    """(package, "module:function") of every piece of code the registry names, for a test to
    import: a rename fails the test, not a user's run."""
    out = []
    for e in KINDS:
        out += [("generator.validate.rules", ref) for ref in (e.rules, e.release_rules) if ref]
        out += [("generator.validate.rules", f"pod:{ref}") for ref in (e.templates, e.claims) if ref]
        if e.pod_security:
            out.append(("generator.validate.rules", f"podsecurity:{e.pod_security}"))
        if e.admission:
            out.append(("generator.validate", f"admission:{e.admission}"))
        if e.local and e.local != INPUT:
            out.append(("generator.local.controllers", e.local))
    out += [("generator.validate.rules", f"pod:{ref}") for ref in GROUP_TEMPLATES.values()]
    out += [("generator.jobs", f"convert:{ref}") for ref in CONVERTS.values()]
    return out
