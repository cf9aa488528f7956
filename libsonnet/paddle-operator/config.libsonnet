// The parameters of the install bundle and their defaults.
//
// Every field can be overridden: `(import 'paddle-operator/main.libsonnet').new({ image: '...' })`.
// The Python CLI (`paddlejob-manifests render`) maps its flags onto these fields.
{
  // apiextensions.k8s.io version of the CRD: 'v1' (Kubernetes 1.16+) or 'v1beta1' (1.11 ... 1.15).
  apiextensions: 'v1',
  // The PaddleJob API for this CRD flavour, generated from schemas/paddlejob.v1.yaml by
  // `make manifests`: group, names, printer columns, openAPIV3Schema, the Kubernetes releases it
  // targets and what the oldest of them supports (`capabilities`, read from its API definitions).
  // The generator passes its own for other `--kube-version`s.
  // (std.parseJson of importstr: engines parse JSON text much faster than jsonnet code.)
  api: std.parseJson(
    if self.apiextensions == 'v1'
    then importstr 'generated/paddlejob-v1.json'
    else importstr 'generated/paddlejob-v1beta1.json'
  ),

  // Namespace the operator is installed in.
  namespace: 'paddle-system',
  // Whether the bundle creates that Namespace; false when it is made elsewhere (a platform
  // team's repository, `helm install --create-namespace`).
  createNamespace: true,
  // Pod Security level the operator's namespace enforces (and warns at): 'restricted' (the
  // controller meets it), 'baseline', 'privileged', or '' for no Pod Security labels.
  podSecurity: 'restricted',
  // A namespace for training jobs, labelled for what their pods need; '' for none. The
  // operator's namespace is no place for jobs: the pods the operator makes (its init container,
  // most training images) run as root, which "restricted" refuses after the job is admitted.
  // None by default when watchNamespace narrows the operator to a namespace of the user's.
  jobNamespace: if self.watchNamespace == '' then 'paddle-jobs' else '',
  // Pod Security level of the jobs' namespace. 'baseline' admits the pods the operator makes
  // (root, shared memory, GPUs); host networking (intranet: Host) or hostPath volumes need
  // 'privileged'.
  jobPodSecurity: 'baseline',
  // Namespace whose PaddleJobs the operator handles; '' (the default, as upstream's manifest and
  // its --namespace flag default) is every namespace, so the tutorial's jobs in any namespace run.
  watchNamespace: '',
  // Controller image.
  image: 'registry.baidubce.com/paddlecloud/controller:v0.3.5',
  // When the kubelet pulls the controller image: Always, IfNotPresent or Never.
  imagePullPolicy: 'IfNotPresent',
  // Image of the init container the operator adds to job pods: a shell loop over `nslookup`
  // until every peer resolves. Upstream's default (main.go, v0.3.5): busybox's nslookup has known
  // failures with cluster DNS search domains.
  initImage: 'docker.io/library/alpine:3.10',
  // '' or 'volcano': with 'volcano' the operator creates a PodGroup per job (gang scheduling)
  // and gets the RBAC rules for podgroups.
  scheduling: '',
  // Controller replicas; more than one only adds standby leaders.
  replicas: 1,
  // Controller requests and limits; each of the two given replaces its default (Helm values
  // merge key by key instead: resources.requests.cpu alone keeps the default memory request).
  resources: {
    limits: { cpu: '100m', memory: '300Mi' },
    requests: { cpu: '100m', memory: '20Mi' },
  },
  // Names of Secrets for pulling the controller image.
  imagePullSecrets: [],
  // Labels a node must have to run the controller (the pod's nodeSelector).
  nodeSelector: {},
  // Taints the controller tolerates: a list of Kubernetes Tolerations.
  tolerations: [],
  // Annotations that keep the CRD and the jobs' namespace when Argo CD or Flux prune the
  // operator: deleting either deletes every PaddleJob in it.
  keepJobs: true,
  // Extra labels on every object (selectors are not changed).
  labels: {},
  // A NetworkPolicy that lets the controller reach DNS and the apiserver only.
  networkPolicy: false,
  // The Paddle ClusterTrainingRuntimes for Kubeflow Trainer v2 (deploy/trainer/ holds them
  // alone), for clusters that run Trainer: its CRDs must be installed first (Kubernetes 1.31+;
  // the v1 bundle only).
  trainerRuntimes: false,
  // Those runtimes: the job library's (libsonnet/paddlejob/runtimes/trainer.libsonnet), which
  // `make manifests` writes here, so this library needs no other.
  trainerRuntimeObjects:: std.parseJson(importstr 'generated/trainer-runtimes.json'),
  // Ports the apiserver listens on, for the NetworkPolicy's egress rule.
  apiserverPorts: [443, 6443],
}
