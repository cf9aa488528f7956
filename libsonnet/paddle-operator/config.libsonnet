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
  // Extra labels on every object (selectors are not changed).
  labels: {},
  // A NetworkPolicy that lets the controller reach DNS and the apiserver only.
  networkPolicy: false,
  // Ports the apiserver listens on, for the NetworkPolicy's egress rule.
  apiserverPorts: [443, 6443],
}
