// kubernetes: plain Kubernetes, as the PaddlePaddle-on-Kubernetes docs did before the operator.
// Parameter servers are a StatefulSet behind a headless Service (stable names
// <job>-ps-<i>.<job>-ps); trainers an Indexed Job behind another (<job>-worker-<i>.<job>-worker),
// whose completion index is PADDLE_TRAINER_ID. The pods may list the job's pods (pod.podReader).
local elastic = import '../elastic.libsonnet';
local pod = import '../pod.libsonnet';
local util = import '../util.libsonnet';

local serviceName(job, role) = '%s-%s' % [job.name, role];
// <job>-<role>-<i>.<job>-<role>: StatefulSet pods and Indexed Job pods under their headless Service
local hosts(job) = function(role)
  ['%s-%d.%s' % [serviceName(job, role), i, serviceName(job, role)] for i in std.range(0, job.roles[role].replicas - 1)];
local labels(job, role) = pod.roleLabels(job, role, role);

local contract(job, role, trainingRole) =
  // An elastic worker's index is not its rank (elastic.libsonnet): it names only its host.
  local index = if role != 'ps' && elastic.of(job) != null then 'PADDLE_POD_INDEX' else 'PADDLE_TRAINER_ID';
  [
    pod.fieldRef('POD_NAME', 'metadata.name'),
    pod.fieldRef('NAMESPACE', 'metadata.namespace'),
  ] + (
    if role == 'ps' then [] else [
      pod.fieldRef(index, "metadata.annotations['batch.kubernetes.io/job-completion-index']"),
    ]
  ) + elastic.contract(job, pod.paddleEnv(
    job,
    trainingRole,
    if role == 'ps' then '$(POD_NAME).%s' % serviceName(job, 'ps')
    else '%s-$(%s).%s' % [serviceName(job, 'worker'), index, serviceName(job, 'worker')],
    hosts(job)
  )) + (if role == 'ps' then [] else elastic.env(job));

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

local podSpec(job) = { serviceAccountName: job.name };

{
  // What this runtime can express, by feature (features.libsonnet lists them): how, and why not.
  features:: {
    how: {
      'collective mode: workers only': 'an Indexed Job (1.21+)',
      'parameter-server mode (ps)': 'a StatefulSet',
      port: 'every endpoint in `PADDLE_*`, `PADDLE_PORT` and the headless Services',
      'ttl after finishing (ttl)': "the trainers' Job `ttlSecondsAfterFinished` (collective jobs: a parameter server's StatefulSet has no end)",
      'active deadline (deadline)': "the trainers' Job `activeDeadlineSeconds` (collective jobs)",
      'retries (backoffLimit)': "the trainers' Job `backoffLimit` (default 3)",
      suspend: "the trainers' Job `suspend` (collective jobs)",
      managedBy: "the trainers' Job `managedBy` (collective jobs; Kubernetes 1.32+, where the JobManagedBy gate is on by default: earlier the apiserver drops the field)",
      'priority class (priorityClass)': "the pod templates' `priorityClassName`",
      'Kueue queue (kueueQueue)': "the label `kueue.x-k8s.io/queue-name` on the trainers' Indexed Job (Kueue's `batch/job` integration, on by default; collective jobs: Kueue would admit a parameter server's StatefulSet apart from the trainers)",
      elastic: "Paddle's launcher with an etcd master (`PADDLE_MASTER=etcd://...`, `PADDLE_NNODES=MIN:MAX`); the Indexed Job recreates a failed pod within `backoffLimit`, and it joins again",
    },
    why: {
      'scheduler-plugins gang scheduling (coscheduling)': 'plain Jobs and StatefulSets have no PodGroup to gang them',
      intranet: 'headless Services give DNS names',
    },
  },

  render(job)::
    local workers = job.roles.worker.replicas;
    // The parameter servers are a StatefulSet: it has no end, deadline, suspend or manager, and
    // Kueue would admit it apart from the trainers' Job.
    local serversApart = [
      f
      for f in ['ttl', 'deadline', 'suspend', 'managedBy', 'kueueQueue']
      if std.objectHas(job.roles, 'ps') && std.objectHas(job, f) && job[f] != null && job[f] != false
    ];
    assert serversApart == [] :
           local f = serversApart[0];
           '%s cannot be expressed on the kubernetes runtime in parameter-server mode: %s; use the volcano runtime' % [
      f,
      if f == 'kueueQueue' then "Kueue would admit the servers' StatefulSet and the trainers' Job one by one, no gang"
      else "it would apply to the trainers' Job only, and the servers' StatefulSet has no such field (they would run on)",
    ];
    pod.podReader(job)
    + elastic.etcd(job)
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
        local queue = util.get(job, 'kueueQueue'),
        metadata: pod.metadata(
          job,
          serviceName(job, 'worker'),
          labels(job, 'worker') + (if queue != null then { 'kueue.x-k8s.io/queue-name': queue } else {})
        ),
        spec: {
          completionMode: 'Indexed',
          completions: workers,
          parallelism: workers,
          // An elastic job's lost or crashed worker is a failed pod: room for the launchers' restarts.
          backoffLimit: util.get(job, 'backoffLimit', if elastic.of(job) != null then util.get(job.elastic, 'maxRestart', 3) else 3),
          // An elastic job that has shrunk completes with its fewest workers (JobSuccessPolicy,
          // Kubernetes 1.31+: pkg/controller/job/success_policy.go matchSuccessPolicy).
          [if elastic.of(job) != null && elastic.fewest(job) < elastic.most(job) then 'successPolicy']: {
            rules: [{ succeededCount: elastic.fewest(job) }],
          },
          [if util.get(job, 'ttl') != null then 'ttlSecondsAfterFinished']: job.ttl,
          [if util.get(job, 'deadline') != null then 'activeDeadlineSeconds']: job.deadline,
          [if util.get(job, 'suspend', false) == true then 'suspend']: true,
          [if util.get(job, 'managedBy') != null then 'managedBy']: job.managedBy,
          template: pod.template(job,
                                 'worker',
                                 labels(job, 'worker'),
                                 contract(job, 'worker', 'TRAINER'),
                                 podSpec(job) + { subdomain: serviceName(job, 'worker'), restartPolicy: 'Never' }),
        },
      },
    ],
}
