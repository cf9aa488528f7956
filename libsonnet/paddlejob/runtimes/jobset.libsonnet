// jobset: one jobset.x-k8s.io/v1alpha2 JobSet (kubernetes-sigs/jobset), the API Kubeflow Trainer v2
// builds on and Kueue admits natively (MultiKueue too). Replicated Jobs `ps` (servers) and
// `trainer` (workers), each one Indexed Job of every pod of its role; the JobSet controller makes
// the Jobs `<job>-<replicatedJob>-0` (pkg/controllers/jobset_controller.go constructJob) and a
// headless Service named like the JobSet (network.enableDNSHostnames), so the pods are
// `<job>-<replicatedJob>-0-<index>.<job>`, the index the Job's completion index.
//
// Its lifecycle, the same in every JobSet release this tool has the CRDs of (0.8 to 0.12):
//   - PS mode: successPolicy {operator: All, targetReplicatedJobs: [trainer]}: the JobSet completes
//     when the trainers' Job does, and the controller deletes the servers' Job, still active
//     (Reconcile: a finished JobSet's active Jobs are deleted); startupPolicy InOrder: the
//     trainers' Job is made once the servers' is ready (deprecated for dependsOn, still served);
//   - --backoff-limit N: failurePolicy.maxRestarts N (a failed Job recreates every Job, N times at
//     most; failure_policy.go); each Job's backoffLimit is 0, so a failed pod fails its Job;
//   - elastic: a failed worker is recreated alone by its Indexed Job within backoffLimit (default
//     3), with no failurePolicy, which would restart the survivors;
//   - ttl, suspend, managedBy: the JobSet's; deadline: each Job's activeDeadlineSeconds.
local elastic = import '../elastic.libsonnet';
local pod = import '../pod.libsonnet';
local util = import '../util.libsonnet';

local api = 'jobset.x-k8s.io/v1alpha2';
local since = [0, 8];  // the oldest JobSet release whose CRD this tool has: every field below is there
local replicatedJob = { ps: 'ps', worker: 'trainer' };
// <job>-<replicatedJob>-0-<i>.<job>: the Job's Indexed pods under the JobSet's headless Service
local host(job, role, index) = '%s-%s-0-%s.%s' % [job.name, replicatedJob[role], index, job.name];
local hosts(job) = function(role) [host(job, role, i) for i in std.range(0, job.roles[role].replicas - 1)];
local labels(job, role) = pod.roleLabels(job, role, replicatedJob[role]);

local contract(job, role, trainingRole) =
  // An elastic worker's index is not its rank (elastic.libsonnet), and a server's is no trainer's.
  local index = if role == 'ps' || elastic.of(job) != null then 'PADDLE_POD_INDEX' else 'PADDLE_TRAINER_ID';
  [
    pod.fieldRef('POD_NAME', 'metadata.name'),
    pod.fieldRef(index, "metadata.annotations['batch.kubernetes.io/job-completion-index']"),
  ]
  + (if role == 'ps' then pod.paddleEnv(job, trainingRole, host(job, role, '$(%s)' % index), hosts(job))
     else elastic.contract(job, pod.paddleEnv(job, trainingRole, host(job, role, '$(%s)' % index), hosts(job))))
  + (if role == 'ps' then [] else elastic.env(job));

local release(job) =
  local given = if std.objectHasAll(job, 'releases') then util.get(job.releases, 'jobset') else null;
  if given == null then null else [std.parseInt(p) for p in std.split(given, '.')];

{
  // What this runtime can express, by feature (features.libsonnet lists them): how, and why not.
  features:: {
    how: {
      'collective mode: workers only': 'a JobSet: replicated Job `trainer`, one Indexed Job of every worker',
      'parameter-server mode (ps)': 'replicated Job `ps` before `trainer` (`startupPolicy: InOrder`); `successPolicy` All of `targetReplicatedJobs: [trainer]`, so the servers stop when the trainers finish',
      port: 'every endpoint in `PADDLE_*` and `PADDLE_PORT`',
      elastic: "Paddle's launcher with an etcd master (`PADDLE_MASTER=etcd://...`, `PADDLE_NNODES=MIN:MAX`); the trainers' Indexed Job recreates a failed pod within its `backoffLimit` (no `failurePolicy`, which would restart the others)",
      'Kueue queue (kueueQueue)': "the label `kueue.x-k8s.io/queue-name` on the JobSet (Kueue's `jobset.x-k8s.io/jobset` integration: one workload of every pod, MultiKueue copies the whole JobSet)",
      'ttl after finishing (ttl)': '`spec.ttlSecondsAfterFinished`',
      'active deadline (deadline)': "each replicated Job's `activeDeadlineSeconds` (a Job past it fails, and so the JobSet)",
      'retries (backoffLimit)': '`spec.failurePolicy.maxRestarts`: a failed Job recreates every Job, that many times at most; each Job `backoffLimit: 0`',
      suspend: '`spec.suspend`',
      managedBy: '`spec.managedBy`: `jobset.sigs.k8s.io/jobset-controller` or `kueue.x-k8s.io/multikueue`',
      'priority class (priorityClass)': "the pod templates' `priorityClassName`",
    },
    why: {
      intranet: "the JobSet's headless Service gives DNS names",
      'Volcano gang scheduling (volcano)': 'a JobSet has no gang of its own; Kueue admits it whole (`--kueue-queue`)',
      'scheduler-plugins gang scheduling (coscheduling)': 'a JobSet makes no PodGroup; Kueue admits it whole (`--kueue-queue`)',
    },
  },

  render(job)::
    local version = release(job);
    assert version == null || version[0] > since[0] || version[1] >= since[1] :
           'the jobset runtime writes JobSet %d.%d and newer fields; got %s' % [since[0], since[1], job.releases.jobset];
    local isElastic = elastic.of(job) != null;
    local hasPs = std.objectHas(job.roles, 'ps');
    local backoff = util.get(job, 'backoffLimit');
    // MultiKueue copies the JobSet alone to the worker cluster (pkg/controller/jobs/jobset
    // jobset_multikueue_adapter.go SyncJob): a ServiceAccount of the job's would stay behind, and
    // pods naming it would not be created there; they run as the namespace's default.
    local multikueue = util.get(job, 'managedBy') == 'kueue.x-k8s.io/multikueue';
    local replicated(role, trainingRole) = {
      name: replicatedJob[role],
      replicas: 1,
      template: {
        metadata: { labels: labels(job, role) },
        spec: {
          completionMode: 'Indexed',
          completions: job.roles[role].replicas,
          parallelism: job.roles[role].replicas,
          backoffLimit: if isElastic && role == 'worker' then util.get(job, 'backoffLimit', util.get(job.elastic, 'maxRestart', 3)) else 0,
          // An elastic job that has shrunk completes with its fewest workers (the Job's
          // successPolicy, Kubernetes 1.31+: pkg/controller/job/success_policy.go).
          [if isElastic && role == 'worker' && elastic.fewest(job) < elastic.most(job) then 'successPolicy']: {
            rules: [{ succeededCount: elastic.fewest(job) }],
          },
          [if util.get(job, 'deadline') != null then 'activeDeadlineSeconds']: job.deadline,
          template: pod.template(job,
                                 role,
                                 labels(job, role),
                                 contract(job, role, trainingRole),
                                 { [if !multikueue then 'serviceAccountName']: job.name, restartPolicy: 'Never' }),
        },
      },
    };
    (if multikueue then [] else pod.podReader(job))
    + elastic.etcd(job)
    + [{
      apiVersion: api,
      kind: 'JobSet',
      metadata: pod.queuedMetadata(job),
      spec: {
        network: { enableDNSHostnames: true, publishNotReadyAddresses: true },
        [if hasPs then 'startupPolicy']: { startupPolicyOrder: 'InOrder' },
        [if hasPs then 'successPolicy']: { operator: 'All', targetReplicatedJobs: [replicatedJob.worker] },
        [if backoff != null && !isElastic then 'failurePolicy']: { maxRestarts: backoff },
        [if util.get(job, 'ttl') != null then 'ttlSecondsAfterFinished']: job.ttl,
        [if util.get(job, 'suspend', false) == true then 'suspend']: true,
        [if util.get(job, 'managedBy') != null then 'managedBy']: job.managedBy,
        replicatedJobs: (if hasPs then [replicated('ps', 'PSERVER')] else []) + [replicated('worker', 'TRAINER')],
      },
    }],
}
