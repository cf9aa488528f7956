// The operator's install objects: namespace, RBAC, controller ConfigMap and Deployment,
// and an optional NetworkPolicy. Each is a function of the resolved config (config.libsonnet).
local selector = { 'control-plane': 'controller-manager' };
local commonLabels = {
  'app.kubernetes.io/name': 'paddle-operator',
  'app.kubernetes.io/component': 'controller',
} + selector;

local allVerbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
local rule(groups, resources, verbs) = { apiGroups: groups, resources: resources, verbs: verbs };

local podSecurityLevels = ['restricted', 'baseline', 'privileged'];
local podSecurityLabels(level) =
  if level == '' then {} else {
    'pod-security.kubernetes.io/enforce': level,
    'pod-security.kubernetes.io/warn': level,
  };

// Argo CD and Flux leave these objects in place when they prune or delete the application.
local keepAnnotations = {
  'argocd.argoproj.io/sync-options': 'Delete=false',
  'kustomize.toolkit.fluxcd.io/prune': 'disabled',
};

{
  podSecurityLevels:: podSecurityLevels,
  keepAnnotations(c):: if c.keepJobs then keepAnnotations else {},
  // Label keys the bundle sets itself: a user's `labels` may not replace them (selectors and
  // Pod Security depend on them; each has its own parameter).
  ownLabels:: std.objectFields(commonLabels + podSecurityLabels('restricted')),

  labels(c):: commonLabels + c.labels,

  metadata(c, name, namespaced=true):: {
    name: name,
    [if namespaced then 'namespace']: c.namespace,
    labels: $.labels(c),
  },

  // Pod Security admission enforces `podSecurity` ("restricted" by default) on the operator's
  // namespace (1.23+; older clusters ignore the labels).
  namespace(c):: {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: $.metadata(c, c.namespace, namespaced=false) + {
      labels+: podSecurityLabels(c.podSecurity),
    },
  },

  // Where training jobs go: the level their pods need ("baseline" by default).
  jobNamespace(c):: {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: c.jobNamespace,
      labels: { 'app.kubernetes.io/name': 'paddle-operator', 'app.kubernetes.io/component': 'jobs' }
              + c.labels + podSecurityLabels(c.jobPodSecurity),
      [if c.keepJobs then 'annotations']: $.keepAnnotations(c),
    },
  },

  serviceAccount(c):: {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: $.metadata(c, 'paddle-manager-sa'),
  },

  // Leader election: the lock is a Lease (or a ConfigMap on old controller-runtime).
  leaderElectionRole(c):: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: $.metadata(c, 'paddle-leader-election-role'),
    rules: [
      rule(['', 'coordination.k8s.io'], ['configmaps', 'leases'], allVerbs),
      rule([''], ['events'], ['create', 'patch']),
    ],
  },

  leaderElectionRoleBinding(c):: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: $.metadata(c, 'paddle-leader-election-rolebinding'),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'paddle-leader-election-role' },
    subjects: [{ kind: 'ServiceAccount', name: 'paddle-manager-sa', namespace: c.namespace }],
  },

  // What the controller does to run jobs: pods (and exec into them), services, configmaps,
  // events, the PaddleJobs themselves, and Volcano PodGroups when it schedules with Volcano.
  managerRole(c):: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: $.metadata(c, 'paddle-manager-role', namespaced=false),
    rules: [
      rule([''], ['configmaps'], allVerbs),
      rule([''], ['configmaps/status'], ['get']),
      rule([''], ['events'], ['create', 'patch']),
      rule([''], ['pods'], allVerbs),
      rule([''], ['pods/exec'], ['create', 'get']),
      rule([''], ['pods/status'], ['get']),
      rule([''], ['services'], allVerbs),
      rule([''], ['services/status'], ['get']),
      rule(['batch.paddlepaddle.org'], ['paddlejobs'], allVerbs),
      rule(['batch.paddlepaddle.org'], ['paddlejobs/finalizers'], ['update']),
      rule(['batch.paddlepaddle.org'], ['paddlejobs/status'], ['get', 'patch', 'update']),
    ] + (
      if c.scheduling == 'volcano' then [
        rule(['scheduling.volcano.sh'], ['podgroups'], allVerbs),
        rule(['scheduling.volcano.sh'], ['podgroups/status'], ['get', 'patch', 'update']),
      ] else []
    ),
  },

  managerRoleBinding(c):: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: $.metadata(c, 'paddle-manager-rolebinding', namespaced=false),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'paddle-manager-role' },
    subjects: [{ kind: 'ServiceAccount', name: 'paddle-manager-sa', namespace: c.namespace }],
  },

  // The controller-runtime settings upstream ships; the flags below match them.
  managerConfig(c):: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: $.metadata(c, 'paddle-manager-config'),
    data: {
      'controller_manager_config.yaml': |||
        apiVersion: controller-runtime.sigs.k8s.io/v1alpha1
        kind: ControllerManagerConfig
        health:
          healthProbeBindAddress: :8081
        metrics:
          bindAddress: :8080
        webhook:
          port: 9443
        leaderElection:
          leaderElect: true
          resourceName: b2a304f2.paddlepaddle.org
      |||,
    },
  },

  managerArgs(c)::
    ['--leader-elect']
    + (if c.watchNamespace != '' then ['--namespace=' + c.watchNamespace] else [])
    + ['--initImage=' + c.initImage]
    + (if c.scheduling != '' then ['--scheduling=' + c.scheduling] else []),

  // Pod Security "restricted": non-root, no privilege escalation, no capabilities, RuntimeDefault
  // seccomp, read-only root. Releases before 1.19 have no seccompProfile field: there the
  // profile is the (then current) pod annotation.
  deployment(c)::
    local seccompField = c.api.capabilities.seccompProfile;
    local seccomp = if seccompField then { seccompProfile: { type: 'RuntimeDefault' } } else {};
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: $.metadata(c, 'paddle-controller-manager'),
      spec: {
        replicas: c.replicas,
        selector: { matchLabels: selector },
        template: {
          metadata: {
            labels: $.labels(c),
            [if !seccompField then 'annotations']: {
              'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default',
            },
          },
          spec: {
            serviceAccountName: 'paddle-manager-sa',
            terminationGracePeriodSeconds: 10,
            securityContext: { runAsNonRoot: true, runAsUser: 65532 } + seccomp,
            containers: [{
              name: 'manager',
              image: c.image,
              imagePullPolicy: c.imagePullPolicy,
              command: ['/manager'],
              args: $.managerArgs(c),
              ports: [
                { name: 'metrics', containerPort: 8080, protocol: 'TCP' },
                { name: 'health', containerPort: 8081, protocol: 'TCP' },
              ],
              livenessProbe: {
                httpGet: { path: '/healthz', port: 'health' },
                initialDelaySeconds: 15,
                periodSeconds: 20,
              },
              readinessProbe: {
                httpGet: { path: '/readyz', port: 'health' },
                initialDelaySeconds: 5,
                periodSeconds: 10,
              },
              resources: c.resources,
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ['ALL'] },
              } + seccomp,
              // controller-runtime may write temporary files; the root filesystem is read-only.
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            }],
            volumes: [{ name: 'tmp', emptyDir: {} }],
            [if c.imagePullSecrets != [] then 'imagePullSecrets']: [
              { name: secret }
              for secret in c.imagePullSecrets
            ],
            [if c.nodeSelector != {} then 'nodeSelector']: c.nodeSelector,
            [if c.tolerations != [] then 'tolerations']: c.tolerations,
          },
        },
      },
    },

  // Ingress: only the metrics port. Egress: DNS and the apiserver.
  networkPolicy(c):: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: $.metadata(c, 'paddle-controller-manager'),
    spec: {
      podSelector: { matchLabels: selector },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ ports: [{ port: 8080, protocol: 'TCP' }] }],
      egress: [
        { ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }] },
        { ports: [{ port: port, protocol: 'TCP' } for port in c.apiserverPorts] },
      ],
    },
  },
}
