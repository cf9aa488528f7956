"""The rulebook: every rule id a finding can carry, with its owner, severity and summary.

One home for these facts. A Finding with an id that is not here is a bug (findings.py refuses
it); docs/validate.md's rule index is written from this table (`make manifests`), the SARIF
output describes its rules from it, and the fixture coverage test reads it, so a new rule
cannot go without a bad and a good fixture. (publish.py writes the index.)

Owners follow who enforces the rule: how kubectl reads the file (yaml), the apiserver's
generic object handling (object) and the kind's schema (schema), its pod validation (pod),
its validation of each built-in API group (core, apps, batch, networking, autoscaling, policy,
rbac, storage, scheduling, admissionregistration: generator/validate/rules/builtin.py says which kind
each checks), the paddle-operator (paddlejob), Volcano's webhooks (volcano), the training
operator's webhook (kubeflow), and the apiextensions apiserver's CRD rules (crd). The code of each
owner's rules lives in generator/validate/rules/OWNER.py, generator/kubeyaml/ (yaml), the checker
and the schema validators of generator/validate/ (object, schema) and validate/crd/ (crd).
"""

from __future__ import annotations

from typing import NamedTuple

OWNERS = {
    "yaml": "how kubectl reads the file (sigs.k8s.io/yaml over go-yaml v2)",
    "object": "what the apiserver checks of every object: apiVersion, kind, metadata",
    "schema": "the kind's OpenAPI schema for the targeted release",
    "pod": "the apiserver's pod and workload validation that schemas cannot express",
    "core": "the apiserver's validation of core kinds beyond the pod (pkg/apis/core/validation)",
    "apps": "the apiserver's validation of Deployments, StatefulSets, DaemonSets, ReplicaSets, ControllerRevisions",
    "batch": "the apiserver's validation of Jobs and CronJobs (pkg/apis/batch/validation), and the Job controller",
    "networking": "the apiserver's validation of Ingresses, IngressClasses, NetworkPolicies, IPAddresses, ServiceCIDRs",
    "autoscaling": "the apiserver's validation of HorizontalPodAutoscalers",
    "policy": "the apiserver's validation of PodDisruptionBudgets",
    "rbac": "the apiserver's validation of RBAC roles and bindings",
    "storage": "the apiserver's validation of StorageClasses, CSIDrivers, CSINodes, VolumeAttachments, "
    "CSIStorageCapacities and VolumeAttributesClasses (pkg/apis/storage/validation)",
    "scheduling": "the apiserver's validation of PriorityClasses",
    "node": "the apiserver's validation of RuntimeClasses (pkg/apis/node/validation)",
    "coordination": "the apiserver's validation of Leases (pkg/apis/coordination/validation)",
    "authorization": "the apiserver's validation of the access reviews (pkg/apis/authorization/validation) "
    "and their REST creates",
    "authentication": "the apiserver's validation of TokenRequests and what its REST create refuses of a TokenReview",
    "discovery": "the apiserver's validation of EndpointSlices (pkg/apis/discovery/validation)",
    "flowcontrol": "the apiserver's validation of FlowSchemas and PriorityLevelConfigurations",
    "apiregistration": "kube-aggregator's validation of APIServices",
    "certificates": "the apiserver's validation of CertificateSigningRequests (pkg/apis/certificates/validation)",
    "resource": "the apiserver's validation of ResourceClaims, ResourceClaimTemplates, DeviceClasses and "
    "ResourceSlices (pkg/apis/resource/validation: Dynamic Resource Allocation)",
    "admissionregistration": "the apiserver's validation of webhook configurations and ValidatingAdmissionPolicies",
    "podsecurity": "Pod Security admission, as the labels of a Namespace in the same input configure it",
    "paddlejob": "the paddle-operator's rules for batch.paddlepaddle.org/v1 PaddleJob",
    "volcano": "Volcano's admission webhooks (Job, Queue)",
    "kubeflow": "the training operator's webhooks for kubeflow.org/v1 PaddleJob, PyTorchJob, TFJob, XGBoostJob, JAXJob",
    "trainer": "Kubeflow Trainer v2's webhooks (TrainJob, training runtimes) and this project's Paddle runtime",
    "kueue": "Kueue's integrations: which kinds a Kueue release queues as installed (schemas/kueue/integrations.json)",
    "across": "verdicts across the objects of one input: a PodGroup and its pods, an operator and its jobs, ...",
    "crd": "the apiextensions apiserver's rules for CustomResourceDefinitions",
    "launcher": "Paddle's own launcher (paddle.distributed.launch 3.3.1), as it reads a pod's environment",
    "lifecycle": "what a job's controller does with its lifecycle fields (retries, deadlines, TTL, managedBy, elastic)",
}

ERROR, WARNING = ("error",), ("warning",)
EITHER = ("error", "warning")


class Rule(NamedTuple):
    id: str
    owner: str
    severities: tuple[str, ...]  # what a finding of this rule may be; the first is the usual one
    summary: str
    # Where the bad case is tested when no fixture file can hold it (empty: a fixture does).
    bad_case_elsewhere: str = ""

    @property
    def anchor(self) -> str:
        return f"rule-{self.id}"


_RULES = [
    # -- yaml -------------------------------------------------------------------------------
    Rule(
        "yaml-syntax",
        "yaml",
        ERROR,
        "the text does not parse as YAML as kubectl reads it: content after a `---`, a control character, `\\/`",
    ),
    Rule("json-syntax", "yaml", ERROR, "the text does not parse as JSON"),
    Rule("yaml-encoding", "yaml", ERROR, "a byte that is not UTF-8: kubectl reads it as U+FFFD, changing the text"),
    Rule(
        "duplicate-key",
        "yaml",
        WARNING,
        "a key twice in one mapping: kubectl keeps the last value, kustomize refuses the file",
    ),
    Rule(
        "yaml-implicit-type",
        "yaml",
        EITHER,
        "an unquoted `y`, `on`, `0777`, `1e3` where a string is needed, or a key kubectl renames",
    ),
    Rule("yaml-json", "yaml", ERROR, "`.nan`, `.inf` or a JSON number beyond a float64: numbers kubectl cannot carry"),
    Rule(
        "nested-list",
        "yaml",
        ERROR,
        "a list in a List's items, which kubectl refuses",
        "tests/test_kubectl_yaml.py: a List in a List",
    ),
    Rule("yaml-tag", "yaml", EITHER, "a tag: `!!int abc` fails in kubectl; custom tags are ignored there"),
    Rule("yaml-key", "yaml", ERROR, "a list, mapping or null as a mapping key"),
    Rule("yaml-merge", "yaml", ERROR, "a `<<` merge of something that is not a mapping"),
    Rule("yaml-alias", "yaml", ERROR, "an alias cycle, or aliases expanding beyond go-yaml's limit"),
    Rule("yaml-depth", "yaml", ERROR, "nesting deeper than 200 levels"),
    Rule(
        "yaml-size",
        "yaml",
        ERROR,
        "a document over 3 MiB (the apiserver's request limit) or 200,000 values (this tool's)",
        "tests/test_hostile_input.py: a 60 MB document",
    ),
    Rule("file", "yaml", ERROR, "a file that cannot be read", "tests/test_validate_cli.py: a file that does not exist"),
    Rule(
        "build",
        "yaml",
        ERROR,
        "a kustomization or chart --build could not build: refused (remote, plugin, function, unvendored "
        "dependency) or the tool failed",
        "tests/test_build_sources.py",
    ),
    Rule(
        "empty",
        "yaml",
        (*WARNING, "error"),
        "no document at all (`--fail-on-empty`: an error)",
        "tests/test_validate_cli.py: an empty pipe",
    ),
    Rule(
        "ignore-check",
        "yaml",
        WARNING,
        "an ignore-check.paddlejob-manifests.io/RULE annotation that names no rule: it silences nothing",
        "tests/test_ignore_annotations.py: a misspelt rule id",
    ),
    # -- object -----------------------------------------------------------------------------
    Rule("not-an-object", "object", ERROR, "a document that is not a mapping"),
    Rule("required", "object", ERROR, "a required field is missing (apiVersion, kind, metadata, or per schema)"),
    Rule("legacy-api", "object", ERROR, "the legacy paddlepaddle.org/v1 PaddleJob, which no operator serves"),
    Rule(
        "api-not-served",
        "object",
        ERROR,
        "an apiVersion the targeted release does not serve for the kind, or serves only with --runtime-config "
        "(an alpha version; from 1.24 a new beta one)",
    ),
    Rule(
        "kind-not-served",
        "object",
        ERROR,
        "a kind not served by every release a rendered bundle targets",
        "tests/test_validate_cli.py: a kind checked against several releases",
    ),
    Rule("kind", "object", ERROR, "a kind in a known group that does not exist, or in the wrong case"),
    Rule("unknown-kind", "object", (*WARNING, "error"), "a kind no schema is known for (`--strict-kinds`: an error)"),
    Rule("name", "object", ERROR, "a name or namespace that breaks the kind's naming rule"),
    Rule("label-key", "object", ERROR, "a label key that is not [DNS-1123 subdomain/]name"),
    Rule("label-value", "object", ERROR, "a label value longer than 63 characters or with other characters"),
    Rule("annotation-key", "object", ERROR, "an annotation key that is not [DNS-1123 subdomain/]name"),
    Rule(
        "metadata",
        "object",
        ERROR,
        "metadata ValidateObjectMeta refuses: annotations over 256 KiB in all, an owner reference without "
        "version, kind, name or uid, an Event as owner, two controllers",
    ),
    Rule(
        "finalizer",
        "object",
        ERROR,
        "a finalizer that is no qualified name (a core kind's without a domain: only kubernetes, orphan, "
        "foregroundDeletion), or orphan with foregroundDeletion",
    ),
    # -- schema -----------------------------------------------------------------------------
    Rule("unknown-field", "schema", ERROR, "a field the schema does not have: the apiserver drops it silently"),
    Rule("type", "schema", ERROR, "a value of the wrong type"),
    Rule("enum", "schema", ERROR, "a value outside the allowed set"),
    Rule("quantity", "schema", ERROR, "a value that is not a Kubernetes quantity"),
    Rule("schema", "schema", ERROR, "any other schema constraint (minimum, pattern, format, ...)"),
    Rule("cel-rule", "schema", ERROR, "a custom resource that breaks an x-kubernetes-validations rule of its CRD"),
    Rule(
        "cel-unsupported",
        "schema",
        WARNING,
        "an x-kubernetes-validations rule this tool cannot evaluate (a CEL function it lacks): not checked",
    ),
    Rule(
        "pattern-unchecked",
        "schema",
        WARNING,
        "a CRD `pattern` Python's regex engine could not decide in time (RE2 does not backtrack): not checked",
        "tests/test_safety_gaps.py: a backtracking RE2 pattern",
    ),
    # -- pod --------------------------------------------------------------------------------
    Rule("pod-template", "pod", ERROR, "a workload whose pod template has no spec"),
    Rule("containers", "pod", ERROR, "a pod without containers"),
    Rule("container-name", "pod", ERROR, "two containers of a pod with one name"),
    Rule("image", "pod", ERROR, "a missing image, or one that is not an image reference"),
    Rule("port", "pod", ERROR, "a port number outside 1-65535"),
    Rule("port-name", "pod", ERROR, "a port name that is not an IANA service name (15 characters, a letter)"),
    Rule("mount-path", "pod", ERROR, "two volumeMounts of a container at one mountPath"),
    Rule("volume-mount", "pod", ERROR, "a volumeMount naming no volume of the pod"),
    Rule("volume-name", "pod", ERROR, "two volumes of a pod with one name"),
    Rule(
        "volume-plugin",
        "pod",
        EITHER,
        "an in-tree volume type (cephfs, rbd, glusterfs, ...) no kubelet mounts from that release (a warning before)",
    ),
    Rule(
        "env-duplicate",
        "pod",
        WARNING,
        "an environment variable set twice: client-side apply keeps the last, server-side apply refuses it",
    ),
    Rule("resources", "pod", ERROR, "a request above its limit"),
    Rule("extended-resource", "pod", ERROR, "a GPU (extended resource) not whole, not in limits, or request != limit"),
    Rule("restart-policy", "pod", ERROR, "a restartPolicy the controller refuses (Deployment: Always; Job: not)"),
    Rule("selector", "pod", ERROR, "a selector that does not match the pod template's labels, or is malformed"),
    Rule("probe", "pod", ERROR, "a probe or lifecycle hook without exactly one handler, a bad port or count"),
    Rule("env-value", "pod", ERROR, "an env name the release refuses, or valueFrom without exactly one source"),
    Rule("pod-bounds", "pod", ERROR, "a pod's activeDeadlineSeconds outside 1-2147483647"),
    Rule("toleration", "pod", ERROR, "a toleration's operator, effect, key or value the apiserver refuses"),
    Rule("affinity", "pod", ERROR, "node or pod affinity: an operator without its values, a weight, a topologyKey"),
    Rule("topology-spread", "pod", ERROR, "a spread constraint's maxSkew, whenUnsatisfiable, minDomains, or twice"),
    Rule("scheduling-gate", "pod", ERROR, "a scheduling gate that is no qualified name, or listed twice"),
    Rule("ephemeral-container", "pod", ERROR, "ephemeralContainers in a manifest (only `kubectl debug` adds them)"),
    Rule("sub-path", "pod", ERROR, "a mount's subPath(Expr) absolute, with '..', or both; recursiveReadOnly unmet"),
    Rule(
        "volume-source", "pod", ERROR, "a volume with more than one source, or a source's field the apiserver refuses"
    ),
    Rule("host-port", "pod", ERROR, "hostNetwork with hostPort != containerPort, or one hostPort twice"),
    Rule("field-path", "pod", ERROR, "a downward API fieldPath the apiserver does not support, or a bad subscript"),
    Rule("resource-name", "pod", ERROR, "a container resource that is neither standard nor DOMAIN/NAME"),
    Rule("sidecar", "pod", ERROR, "restartPolicy on a container, or an init container's other than Always; probes"),
    Rule("security-context", "pod", ERROR, "ids out of range, seccomp/AppArmor profiles, sysctls, os-specific fields"),
    Rule("dns-config", "pod", ERROR, "dnsConfig (dnsPolicy None needs nameservers, at most 3, searches), hostAliases"),
    Rule("readiness-gate", "pod", ERROR, "a readiness gate whose conditionType is no qualified name"),
    Rule("volume-device", "pod", ERROR, "a volumeDevice that is no claim of the pod, listed twice, or also mounted"),
    Rule("service-account", "pod", ERROR, "a deprecated serviceAccount that is not the pod's serviceAccountName"),
    Rule(
        "runtime-class",
        "pod",
        ERROR,
        "a pod's overhead without a runtimeClassName, which the RuntimeClass admission plugin refuses",
    ),
    # -- core -------------------------------------------------------------------------------
    Rule("service", "core", ERROR, "Service ports (range, names, duplicates, targetPort, nodePort) and type rules"),
    Rule("configmap", "core", ERROR, "a ConfigMap key that is no file name, in data and binaryData, or over 1 MiB"),
    Rule("secret", "core", ERROR, "a Secret key or data that is not base64, or a type without its keys"),
    Rule("persistent-volume-claim", "core", ERROR, "a claim without access modes or a storage request"),
    Rule("persistent-volume", "core", ERROR, "a volume without access modes, storage capacity or one source"),
    Rule("resource-quota", "core", ERROR, "a quota on a resource no quota can limit, or below 0"),
    Rule("limit-range", "core", ERROR, "limits out of order (min <= defaultRequest <= default <= max), ratio < 1"),
    Rule("binding", "core", ERROR, "a Binding whose target is no Node, or names none"),
    Rule(
        "endpoints",
        "core",
        ERROR,
        "an Endpoints subset without addresses, an address's ip special or no IP, a hostname, nodeName or port refused",
    ),
    Rule(
        "node",
        "core",
        ERROR,
        "a Node's taints, taints or preferAvoidPods annotation, podCIDRs, or status capacity the apiserver refuses",
    ),
    Rule(
        "event",
        "core",
        ERROR,
        "an Event's involved namespace, reporting fields, action, reason or lengths refused; events.k8s.io/v1's type, "
        "series count, deprecated fields set",
    ),
    # -- apps -------------------------------------------------------------------------------
    Rule("deployment", "apps", ERROR, "a Deployment's strategy type and rolling update (maxSurge, maxUnavailable)"),
    Rule("statefulset", "apps", ERROR, "a StatefulSet's updateStrategy, retention policy, ordinals, maxUnavailable"),
    Rule("daemonset", "apps", ERROR, "a DaemonSet's strategy type, maxSurge with maxUnavailable (one non-zero)"),
    Rule("replicaset", "apps", ERROR, "a ReplicaSet's bounds or empty selector"),
    Rule("controller-revision", "apps", ERROR, "a ControllerRevision whose revision is negative"),
    # -- batch ------------------------------------------------------------------------------
    Rule("job", "batch", ERROR, "a Job's counts, Indexed limits, failure and success policies, managedBy, selector"),
    Rule(
        "job-paddle-parallelism",
        "batch",
        WARNING,
        "a distributed Paddle job's Job with parallelism below completions: its pods wait for peers never started",
    ),
    Rule("cronjob", "batch", ERROR, "a CronJob's schedule (TZ), timeZone, concurrencyPolicy, a name over 52"),
    # -- networking -------------------------------------------------------------------------
    Rule("ingress", "networking", ERROR, "an Ingress host, path, pathType or backend the apiserver refuses"),
    Rule("network-policy", "networking", ERROR, "a NetworkPolicy port, peer or ipBlock the apiserver refuses"),
    Rule(
        "ip-address",
        "networking",
        ERROR,
        "an IPAddress not named after its address in canonical form, or its parentRef's fields refused",
    ),
    Rule(
        "service-cidr",
        "networking",
        ERROR,
        "a ServiceCIDR without CIDRs, more than 2 or two of one family, a CIDR with host bits or not canonical",
    ),
    # -- autoscaling ------------------------------------------------------------------------
    Rule("hpa", "autoscaling", ERROR, "an HPA's minReplicas < 1, maxReplicas < minReplicas, metrics, behavior"),
    Rule("scale", "autoscaling", ERROR, "a Scale's spec.replicas below 0"),
    # -- policy -----------------------------------------------------------------------------
    Rule("pdb", "policy", ERROR, "a PodDisruptionBudget with minAvailable and maxUnavailable, or over 100%"),
    # -- rbac -------------------------------------------------------------------------------
    Rule("rbac-rule", "rbac", ERROR, "a role rule without verbs, apiGroups or resources, or mixing URLs"),
    Rule("role-ref", "rbac", ERROR, "a binding's roleRef with another apiGroup or a kind it cannot bind"),
    Rule("subject", "rbac", ERROR, "a binding subject of an unknown kind, wrong apiGroup, without namespace"),
    # -- storage ----------------------------------------------------------------------------
    Rule("storage-class", "storage", ERROR, "a StorageClass without provisioner, or with reclaimPolicy Recycle"),
    Rule(
        "csi-driver",
        "storage",
        ERROR,
        "a CSIDriver's fsGroupPolicy or lifecycle mode refused, a token audience twice, expirationSeconds out of range",
    ),
    Rule(
        "csi-node",
        "storage",
        ERROR,
        "a CSINode driver's name, nodeID (empty, over 256), count below 0, a topology key empty, twice or unqualified",
    ),
    Rule(
        "volume-attachment",
        "storage",
        ERROR,
        "a VolumeAttachment's attacher no CSI driver name, not exactly one source, a volume or node name refused",
    ),
    Rule(
        "csi-storage-capacity",
        "storage",
        ERROR,
        "a CSIStorageCapacity whose storageClassName is no DNS-1123 subdomain, or whose capacity is negative",
    ),
    Rule(
        "volume-attributes-class",
        "storage",
        ERROR,
        "a VolumeAttributesClass without driverName or parameters, a driverName unqualified, a parameter name empty",
    ),
    # -- node -------------------------------------------------------------------------------
    Rule(
        "node-runtime-class",
        "node",
        ERROR,
        "a RuntimeClass whose handler is no DNS label, overhead no container resource, or a toleration twice",
    ),
    # -- coordination -----------------------------------------------------------------------
    Rule("lease", "coordination", ERROR, "a Lease's duration not above 0, transitions below 0, a time not decodable"),
    # -- authorization, authentication ------------------------------------------------------
    Rule(
        "access-review",
        "authorization",
        ERROR,
        "an access review without exactly one of resourceAttributes and nonResourceAttributes, or a user or group",
    ),
    Rule(
        "access-review-metadata",
        "authorization",
        ERROR,
        "an access review's metadata not empty (a request, not stored)",
    ),
    Rule(
        "local-access-review",
        "authorization",
        ERROR,
        "a LocalSubjectAccessReview's resourceAttributes.namespace not its namespace, or nonResourceAttributes",
    ),
    Rule(
        "access-review-selector",
        "authorization",
        ERROR,
        "an access review's field or label selector: rawSelector or requirements, not both; requirements' keys, values",
    ),
    Rule("rules-review", "authorization", ERROR, "a SelfSubjectRulesReview without spec.namespace"),
    Rule("token-review", "authentication", ERROR, "a TokenReview without spec.token"),
    Rule("token-request", "authentication", ERROR, "a TokenRequest's expirationSeconds below 600 or above 2^32"),
    # -- discovery --------------------------------------------------------------------------
    Rule(
        "endpoint-slice",
        "discovery",
        ERROR,
        "an EndpointSlice's addressType, an address not of its family or special, an FQDN, node name, port name",
    ),
    # -- flowcontrol ------------------------------------------------------------------------
    Rule(
        "flow-schema",
        "flowcontrol",
        ERROR,
        "a FlowSchema's precedence, distinguisher, subjects, verbs, URLs refused, or a mandatory one not as fixed",
    ),
    Rule(
        "priority-level",
        "flowcontrol",
        ERROR,
        "a PriorityLevelConfiguration's type, shares, limit response or queuing refused, or a mandatory one changed",
    ),
    # -- certificates -----------------------------------------------------------------------
    Rule(
        "certificate-signing-request",
        "certificates",
        ERROR,
        "a CSR's request no PEM CERTIFICATE REQUEST, usages missing, unknown or twice, a signerName refused, "
        "expirationSeconds under 600",
    ),
    # -- resource (Dynamic Resource Allocation) ---------------------------------------------
    Rule(
        "resource-claim",
        "resource",
        ERROR,
        "a claim's or claim template's device request, constraint or config refused: a class or name missing, "
        "a count with All, a selector that does not parse, a reference to no request",
    ),
    Rule(
        "device-class",
        "resource",
        ERROR,
        "a DeviceClass selector without cel or that does not parse, a config without opaque or its driver refused",
    ),
    Rule(
        "resource-slice",
        "resource",
        ERROR,
        "a ResourceSlice's driver or pool refused, not exactly one node selection, a device named twice, "
        "an attribute or capacity name or value refused",
    ),
    # -- apiregistration --------------------------------------------------------------------
    Rule(
        "api-service",
        "apiregistration",
        ERROR,
        "an APIService not named version.group, its group, version, priorities, service or caBundle refused",
    ),
    # -- scheduling -------------------------------------------------------------------------
    Rule("priority-class", "scheduling", ERROR, "a PriorityClass named system-..., or valued above 1000000000"),
    # -- admissionregistration --------------------------------------------------------------
    Rule("webhook", "admissionregistration", ERROR, "a webhook name, clientConfig, timeout, rule or v1 field refused"),
    Rule(
        "admission-policy",
        "admissionregistration",
        ERROR,
        "a ValidatingAdmissionPolicy or binding refused (rules, CEL syntax, audit keys, actions, paramRef)",
    ),
    # -- podsecurity ------------------------------------------------------------------------
    Rule(
        "pod-security",
        "podsecurity",
        WARNING,
        "pods a namespace's Pod Security level refuses after their job or workload is admitted",
    ),
    # -- paddlejob --------------------------------------------------------------------------
    Rule("paddlejob-roles", "paddlejob", ERROR, "no role, ps without worker, or heter without ps and worker"),
    Rule("paddlejob-name", "paddlejob", ERROR, "a job name that is no DNS-1035 label or makes pod names too long"),
    Rule("paddlejob-containers", "paddlejob", ERROR, "a role without template.spec"),
    Rule("paddlejob-container-order", "paddlejob", WARNING, "the 'paddle' container is not containers[0]"),
    Rule("paddlejob-elastic", "paddlejob", EITHER, "elastic without worker (error) or without an etcd endpoint"),
    Rule("paddlejob-elastic-bounds", "paddlejob", ERROR, "not requests <= replicas <= limits"),
    Rule("paddlejob-min-available", "paddlejob", ERROR, "a gang larger than the job: it never starts"),
    Rule("paddlejob-scheduler", "paddlejob", ERROR, "a schedulerName that ignores the schedulingPolicy"),
    Rule("paddlejob-gloo", "paddlejob", WARNING, "withGloo in collective mode, where the operator ignores it"),
    Rule("paddlejob-host-network", "paddlejob", WARNING, "intranet Host without dnsPolicy ClusterFirstWithHostNet"),
    Rule("paddlejob-heter", "paddlejob", WARNING, "heter pods: TRAINING_ROLE=HETER, which Paddle's role maker refuses"),
    Rule(
        "paddlejob-gloo-endpoint",
        "paddlejob",
        WARNING,
        "withGloo in PS mode without intranet Service: the gloo endpoint is server 0's own",
    ),
    Rule(
        "paddlejob-elastic-launcher",
        "paddlejob",
        WARNING,
        "elastic: Paddle 2.3+'s launcher ignores the operator's PADDLE_ELASTIC_* and each pod trains alone",
    ),
    Rule(
        "paddlejob-scheduling",
        "paddlejob",
        WARNING,
        "schedulingPolicy, which only an operator run with --scheduling=volcano acts on, and no group annotation",
    ),
    Rule(
        "paddlejob-intranet-service",
        "paddlejob",
        WARNING,
        "intranet Service: POD_IP is the pod's name, which Paddle 2.3+'s launcher ignores; the pods wait for ever",
    ),
    Rule("paddlejob-sampleset", "paddlejob", WARNING, "sampleSetRef, which the released operator (v0.3.5) ignores"),
    Rule(
        "paddlejob-clean-pod-policy",
        "paddlejob",
        WARNING,
        "cleanPodPolicy OnCompletion in PS mode: Completed needs every server to succeed (getPaddleJobPhase)",
    ),
    # -- volcano ----------------------------------------------------------------------------
    Rule("volcano-tasks", "volcano", ERROR, "a Volcano Job without tasks"),
    Rule("volcano-task-name", "volcano", ERROR, "a task name that is no DNS-1123 label, or used twice"),
    Rule("volcano-min-available", "volcano", ERROR, "minAvailable above the replicas there are"),
    Rule("volcano-policy", "volcano", ERROR, "a lifecycle policy the webhook refuses (events, actions, exit codes)"),
    Rule(
        "volcano-plugin", "volcano", ERROR, "a job plugin the Volcano release does not have, or mpi without its master"
    ),
    Rule("volcano-pod-name", "volcano", ERROR, "a pod name JOB-TASK-INDEX longer than 63 characters"),
    Rule("volcano-depends-on", "volcano", ERROR, "dependsOn that form no DAG: a cycle, an unknown task, a name twice"),
    Rule("volcano-volume", "volcano", ERROR, "a job volume without mountPath, twice, or without exactly one claim"),
    Rule(
        "volcano-collective-gang",
        "volcano",
        WARNING,
        "a collective Paddle job whose minAvailable is below its peers: pods start and wait for the others",
    ),
    Rule(
        "volcano-elastic-restart",
        "volcano",
        WARNING,
        "an elastic Paddle job that a failed pod restarts whole (RestartJob): the survivors stop too",
    ),
    # -- launcher ---------------------------------------------------------------------------
    Rule(
        "launcher-elastic",
        "launcher",
        WARNING,
        "an elastic pod whose environment makes Paddle's launcher leave its etcd master or fail",
    ),
    # -- kubeflow ---------------------------------------------------------------------------
    Rule("kubeflow-name", "kubeflow", ERROR, "a job name that is no DNS-1035 label"),
    Rule("kubeflow-replica-type", "kubeflow", ERROR, "a replica type other than Master or Worker (JAXJob: Worker)"),
    Rule("kubeflow-containers", "kubeflow", ERROR, "a replica without template.spec.containers"),
    Rule("kubeflow-container-name", "kubeflow", ERROR, "no container of the kind's name ('paddle', 'pytorch', ...)"),
    Rule(
        "kubeflow-replicas",
        "kubeflow",
        ERROR,
        "a Master not of 1 replica or missing (XGBoostJob), a Worker of 0, both Chief and Master (TFJob)",
    ),
    Rule("kubeflow-elastic-worker", "kubeflow", ERROR, "a PyTorchJob elasticPolicy without a Worker replica spec"),
    Rule(
        "kubeflow-nproc-per-node",
        "kubeflow",
        EITHER,
        "elasticPolicy.nProcPerNode: deprecated (warning), or beside spec.nprocPerNode (error)",
    ),
    Rule(
        "kubeflow-elastic",
        "kubeflow",
        EITHER,
        "elasticPolicy minReplicas above maxReplicas: ignored (PaddleJob), refused by torchrun (PyTorchJob)",
    ),
    Rule("kubeflow-restart-policy", "kubeflow", ERROR, "a replica restartPolicy the pods it makes cannot have"),
    Rule("kubeflow-managed-by", "kubeflow", ERROR, "a runPolicy.managedBy the training operator does not know"),
    Rule(
        "kubeflow-ps-mode",
        "kubeflow",
        WARNING,
        "Master replicas (PS mode): one server or trainer per pod (PADDLE_SERVER_NUM/PADDLE_TRAINER_NUM=1)",
    ),
    Rule("trainjob-paddle-nnodes", "trainer", ERROR, "a TrainJob whose PADDLE_NNODES is not its number of nodes"),
    Rule("trainjob-num-nodes", "trainer", ERROR, "a TrainJob of fewer than one node (no minimum in its schema)"),
    Rule("trainjob-runtime-patch", "trainer", ERROR, "a runtime patch Trainer's webhook refuses (manager, env)"),
    Rule("trainjob-name-length", "trainer", ERROR, "a TrainJob name too long for the pod names of its JobSet"),
    Rule(
        "trainer-runtime", "trainer", ERROR, "a training runtime step Trainer's webhook refuses (replicas, container)"
    ),
    Rule(
        "trainer-kube-version",
        "trainer",
        WARNING,
        "a targeted Kubernetes release older than the one the Trainer release states it needs",
    ),
    # -- kueue ------------------------------------------------------------------------------
    Rule(
        "kueue-integration",
        "kueue",
        WARNING,
        "the queue label on a kind whose Kueue integration is missing or off as Kueue installs it: not queued",
    ),
    Rule("kueue-pod-group", "kueue", WARNING, "a Pod with one of the pod-group label and total-count annotation"),
    Rule(
        "kueue-multikueue",
        "kueue",
        WARNING,
        "managedBy kueue.x-k8s.io/multikueue on a kind the Kueue release cannot dispatch (no adapter): nothing runs it",
    ),
    # -- across -----------------------------------------------------------------------------
    Rule(
        "across-podgroup",
        "across",
        EITHER,
        "a Volcano PodGroup no pod of the input joins (no group annotation, or not scheduled by volcano)",
    ),
    Rule(
        "across-operator-scheduling",
        "across",
        ERROR,
        "a PaddleJob gang (schedulingPolicy, its PodGroup) next to a paddle-operator without --scheduling=volcano",
    ),
    Rule(
        "across-pserver",
        "across",
        WARNING,
        "parameter servers (StatefulSet) next to a trainer Job: they run for ever once the trainers finish",
    ),
    Rule(
        "across-runtime-ref",
        "across",
        WARNING,
        "a TrainJob whose runtimeRef names no runtime in the input nor one this project ships",
    ),
    # -- crd --------------------------------------------------------------------------------
    Rule("crd-structural", "crd", ERROR, "a schema that is not structural (types, junctors, properties)"),
    Rule("crd-default", "crd", ERROR, "`default` in a v1beta1 CRD"),
    Rule(
        "crd-int-or-string",
        "crd",
        ERROR,
        "an x-kubernetes-int-or-string node that also preserves unknown fields or embeds a resource",
    ),
    Rule("crd-list-set", "crd", ERROR, "a list-set whose items are maps or lists that are not atomic"),
    Rule("crd-list-map", "crd", ERROR, "a list-map without keys, or keys that are not scalar properties (1.18+)"),
    Rule("crd-metadata", "crd", ERROR, "a root metadata schema restricting more than name and generateName"),
    Rule(
        "crd-spec",
        "crd",
        ERROR,
        "a CRD spec the apiserver refuses: group, names, scope, versions, printer columns, scale paths, selectable "
        "fields, conversion, preserveUnknownFields, the api-approved annotation of a protected group",
    ),
    Rule(
        "crd-schema",
        "crd",
        ERROR,
        "a CRD schema keyword or extension the apiserver refuses (uniqueItems, $ref, type null, x-kubernetes-* "
        "misused, defaults in metadata, the root of a schema with status, x-kubernetes-validations fields)",
    ),
    Rule(
        "crd-default-invalid",
        "crd",
        ERROR,
        "a schema `default` that its own node's schema refuses or that has unknown fields (ValidateDefaults)",
    ),
    Rule(
        "crd-cel-field",
        "crd",
        ERROR,
        "an x-kubernetes-validations rule that selects a field the schema it is attached to does not have",
    ),
    Rule(
        "crd-cel-cost",
        "crd",
        ERROR,
        "an x-kubernetes-validations rule whose estimated CEL cost exceeds the per-rule limit, or rules whose "
        "total over the schema exceeds the per-CRD limit (add maxItems, maxProperties, maxLength)",
    ),
    Rule(
        "crd-size",
        "crd",
        WARNING,
        "a CRD close to the 256 KiB `kubectl apply` limit",
        "tests/test_validate_cli.py: a CRD rendered with --keep-descriptions",
    ),
    # -- lifecycle (generator/validate/rules/lifecycle.py; issue 34) ----------------------------
    Rule(
        "lifecycle-volcano-retry",
        "lifecycle",
        WARNING,
        "a Volcano Job's maxRetry that is never reached (no restart policy that can fire), or 0",
    ),
    Rule(
        "lifecycle-elastic-backoff",
        "lifecycle",
        WARNING,
        "an elastic Indexed Job whose backoffLimit is below the launchers' PADDLE_MAX_RESTART",
    ),
    Rule(
        "lifecycle-elastic-shrink",
        "lifecycle",
        WARNING,
        "an elastic job that cannot complete once it has shrunk (no successPolicy, no minSuccess)",
    ),
    Rule(
        "lifecycle-multikueue-queue",
        "lifecycle",
        WARNING,
        "managedBy kueue.x-k8s.io/multikueue without the queue label: nothing runs the job",
    ),
    Rule(
        "lifecycle-multikueue-copies",
        "lifecycle",
        WARNING,
        "a MultiKueue Job whose pods name a ServiceAccount or subdomain MultiKueue does not copy",
    ),
    Rule(
        "lifecycle-release-gate",
        "lifecycle",
        WARNING,
        "a lifecycle field the targeted release drops or ignores (Job managedBy before 1.32, suspend before 1.22, "
        "TrainJob managedBy before Trainer 2.3)",
    ),
    Rule("lifecycle-gang-size", "lifecycle", ERROR, "a kubeflow PaddleJob gang larger than its pods: never met"),
    Rule(
        "lifecycle-gpu-shm",
        "lifecycle",
        WARNING,
        "`job` only: a pod of more than one GPU without a memory-backed /dev/shm (NCCL needs more than 64 MiB)",
        "tests/test_lifecycle.py: job --gpus 8 without --shm, on every runtime",
    ),
]

RULES: dict[str, Rule] = {rule.id: rule for rule in _RULES}

# Ids a checker uses on the way but never reports: validate turns "type-string" into
# yaml-implicit-type or type once it has seen the source.
INTERNAL = frozenset({"type-string"})


def is_known(rule_id: str, severity: str) -> bool:
    if rule_id in INTERNAL:
        return True
    rule = RULES.get(rule_id)
    return rule is not None and severity in rule.severities
