// kubernetes: plain Kubernetes, as the PaddlePaddle-on-Kubernetes docs did before the operator.
// Parameter servers are a StatefulSet behind a headless Service (stable names
// <job>-ps-<i>.<job>-ps); trainers an Indexed Job behind another (<job>-worker-<i>.<job>-worker),
// whose completion index is PADDLE_TRAINER_ID. A ServiceAccount may list the job's pods, for
// tools that wait for their peers (the docs' k8s_tools.py).
local pod = import '../pod.libsonnet';

local serviceName(job, role) = '%s-%s' % [job.name, role];
local endpoints(job, role, count) =
  std.join(',', ['%s-%d.%s:%d' % [serviceName(job, role), i, serviceName(job, role), job.port] for i in std.range(0, count - 1)]);
local labels(job, role) = { 'paddle-job': job.name, 'paddle-role': role };

local contract(job, role, trainingRole) =
  local workers = job.roles.worker.replicas;
  local ps = if std.objectHas(job.roles, 'ps') then job.roles.ps.replicas else 0;
  [
    pod.fieldRef('POD_NAME', 'metadata.name'),
    pod.fieldRef('NAMESPACE', 'metadata.namespace'),
  ] + (
    if role == 'ps' then [
      { name: 'POD_IP', value: '$(POD_NAME).%s' % serviceName(job, 'ps') },
    ] else [
      pod.fieldRef('PADDLE_TRAINER_ID', "metadata.annotations['batch.kubernetes.io/job-completion-index']"),
      { name: 'POD_IP', value: '%s-$(PADDLE_TRAINER_ID).%s' % [serviceName(job, 'worker'), serviceName(job, 'worker')] },
    ]
  ) + [
    { name: 'PADDLE_PORT', value: std.toString(job.port) },
    { name: 'PADDLE_CURRENT_ENDPOINT', value: '$(POD_IP):%d' % job.port },
    { name: 'PADDLE_TRAINERS_NUM', value: std.toString(workers) },
    { name: 'PADDLE_TRAINER_ENDPOINTS', value: endpoints(job, 'worker', workers) },
    { name: 'TRAINING_ROLE', value: trainingRole },
    { name: 'PADDLE_TRAINING_ROLE', value: trainingRole },
  ] + (if ps > 0 then [
         { name: 'PADDLE_PSERVERS_NUM', value: std.toString(ps) },
         { name: 'PADDLE_PSERVERS_IP_PORT_LIST', value: endpoints(job, 'ps', ps) },
       ] else []);

local headless(job, role) = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: pod.metadata(job, serviceName(job, role), labels(job, role)),
  spec: {
    clusterIP: 'None',
    // Peers must resolve each other before they are ready: they wait for each other to start.
    publishNotReadyAddresses: true,
    selector: labels(job, role),
    ports: [{ name: 'paddle', port: job.port, targetPort: job.port }],
  },
};

local serviceAccount = {
  sa(job):: {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: pod.metadata(job),
  },
  role(job):: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: pod.metadata(job),
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }],
  },
  binding(job):: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: pod.metadata(job),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: job.name },
    subjects: [{ kind: 'ServiceAccount', name: job.name }
               + (if job.namespace != null then { namespace: job.namespace } else {})],
  },
};

local podSpec(job) = { serviceAccountName: job.name };

{
  render(job)::
    local workers = job.roles.worker.replicas;
    [serviceAccount.sa(job), serviceAccount.role(job), serviceAccount.binding(job)]
    + (if std.objectHas(job.roles, 'ps') then [
         headless(job, 'ps'),
         {
           apiVersion: 'apps/v1',
           kind: 'StatefulSet',
           metadata: pod.metadata(job, serviceName(job, 'ps'), labels(job, 'ps')),
           spec: {
             serviceName: serviceName(job, 'ps'),
             replicas: job.roles.ps.replicas,
             podManagementPolicy: 'Parallel',
             selector: { matchLabels: labels(job, 'ps') },
             template: pod.template(job, 'ps', labels(job, 'ps'), contract(job, 'ps', 'PSERVER'), podSpec(job)),
           },
         },
       ] else [])
    + [
      headless(job, 'worker'),
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: pod.metadata(job, serviceName(job, 'worker'), labels(job, 'worker')),
        spec: {
          completionMode: 'Indexed',
          completions: workers,
          parallelism: workers,
          backoffLimit: 3,
          template: pod.template(job,
                                 'worker',
                                 labels(job, 'worker'),
                                 contract(job, 'worker', 'TRAINER'),
                                 podSpec(job) + { subdomain: serviceName(job, 'worker'), restartPolicy: 'Never' }),
        },
      },
    ],
}
