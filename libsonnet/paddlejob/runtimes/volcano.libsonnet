// volcano: a batch.volcano.sh/v1alpha1 Job in the shape of Volcano's PaddlePaddle example: tasks
// pserver and trainer, gang of every pod, restart the whole job when a pod fails or is evicted,
// complete it when the trainers are done.
//
// The pods find each other through Volcano's `svc` plugin (a headless Service named like the
// job, host names <job>-<task>-<index>) and `env` plugin. The PADDLE_* contract is pod.paddleEnv:
// POD_IP is the pod's DNS name, so it matches its entry in the endpoint lists.
local elastic = import '../elastic.libsonnet';
local pod = import '../pod.libsonnet';
local util = import '../util.libsonnet';

local taskNames = { ps: 'pserver', worker: 'trainer' };
// <job>-<task>-<i>.<job>: the svc plugin's headless Service and pod host names
local hosts(job) = function(role)
  ['%s-%s-%d.%s' % [job.name, taskNames[role], i, job.name] for i in std.range(0, job.roles[role].replicas - 1)];

// PADDLE_TRAINER_ID is the pod's index in its task. Volcano writes it to the annotation
// volcano.sh/task-index from v1.9.0 only; its env plugin has set VC_TASK_INDEX (and
// VK_TASK_INDEX) on every release, but appends them after our variables, where $(...) cannot
// see them. So a container with a command starts through a shell that exports the index from
// those; one without (the image's entrypoint) reads the annotation: Volcano 1.9 or newer.
local wrapped(command) =
  ['sh', '-c', 'export PADDLE_TRAINER_ID="${VC_TASK_INDEX:-$VK_TASK_INDEX}"; exec "$0" "$@"'] + command;

local contract(job, role, trainingRole) =
  [pod.fieldRef('POD_NAME', 'metadata.name')]
  + (if util.get(job, 'command') == null && !(role == 'worker' && elastic.of(job) != null)
     then [pod.fieldRef('PADDLE_TRAINER_ID', "metadata.annotations['volcano.sh/task-index']")] else [])
  + (if role == 'ps' then pod.paddleEnv(job, trainingRole, '$(POD_NAME).%s' % job.name, hosts(job))
     else elastic.contract(job, pod.paddleEnv(job, trainingRole, '$(POD_NAME).%s' % job.name, hosts(job))))
  + (if role == 'ps' then [] else elastic.env(job));

// A crash reaches maxRetry only when the pod fails: with restartPolicy OnFailure the kubelet
// restarts the container in place, the pod never reaches phase Failed, the PodFailed event
// (pkg/controllers/job/job_controller_handler.go updatePod, v1.15.0 l. 273-275) never fires and
// state/restarting.go never reads maxRetry. So a job with backoffLimit restarts Never: a crash
// fails the pod, PodFailed restarts the job (RestartJob), at most maxRetry times.
local restartPolicy(job) =
  if util.get(job, 'backoffLimit') != null && elastic.of(job) == null then 'Never' else 'OnFailure';

local task(job, roleName, taskName, trainingRole, policies) =
  local template = pod.template(job,
                                roleName,
                                pod.roleLabels(job, roleName, taskName),
                                contract(job, roleName, trainingRole),
                                { restartPolicy: restartPolicy(job), serviceAccountName: job.name });
  local paddle = template.spec.containers[0];
  {
    name: taskName,
    replicas: job.roles[roleName].replicas,
    [if policies != [] then 'policies']: policies,
    // (an elastic worker's index is not its rank: it gets no PADDLE_TRAINER_ID)
    template: if std.objectHas(paddle, 'command') && !(roleName == 'worker' && elastic.of(job) != null) then template {
      spec+: { containers: [paddle { command: wrapped(paddle.command) }] + template.spec.containers[1:] },
    } else template,
  };

{
  // What this runtime can express, by feature (features.libsonnet lists them): how, and why not.
  features:: {
    how: {
      'collective mode: workers only': 'task `trainer`',
      'parameter-server mode (ps)': 'task `pserver`',
      port: 'every endpoint in `PADDLE_*` and `PADDLE_PORT`',
      'Volcano gang scheduling (volcano)': 'native: `minAvailable`, `queue`, `priorityClassName`',
      'ttl after finishing (ttl)': '`spec.ttlSecondsAfterFinished`',
      'retries (backoffLimit)': '`spec.maxRetry` (1 or more: the webhook turns 0 into 3), the tasks `restartPolicy: Never` so that a crash fails the pod and `PodFailed` restarts the job, at most that many times (not with elastic, which has no `RestartJob`)',
      'priority class (priorityClass)': "`spec.priorityClassName` (the gang's) and the pod templates' `priorityClassName`",
      elastic: "Paddle's launcher with an etcd master (`PADDLE_MASTER=etcd://...`, `PADDLE_NNODES=MIN:MAX`); `minAvailable` is the fewest workers, and a failed pod restarts alone (no `RestartJob` policy, which would stop the survivors)",
    },
    why: {
      'scheduler-plugins gang scheduling (coscheduling)': 'Volcano gangs its own Jobs',
      intranet: 'the `svc` plugin gives DNS names',
      "the gang's minResources (volcano.minResources)": "a Volcano Job has no field for it: its controller sums the pods' requests",
      'Kueue queue (kueueQueue)': 'Volcano schedules its Jobs itself (its `queue`)',
      'active deadline (deadline)': 'a Volcano Job has no active deadline (batch.volcano.sh/v1alpha1 JobSpec)',
      suspend: 'a Volcano Job has no `suspend` (`vcctl job suspend` aborts it through a Command object)',
      managedBy: 'a Volcano Job has no `managedBy`',
    },
  },

  render(job)::
    local volcano = util.get(job, 'volcano', {});
    pod.podReader(job) + elastic.etcd(job) + [{
      apiVersion: 'batch.volcano.sh/v1alpha1',
      kind: 'Job',
      metadata: pod.metadata(job),
      // (a Volcano Job has no minResources: checks.libsonnet stops a job that sets them)
      spec: pod.gang(job, volcano, 'minAvailable', 'priorityClassName') + {
        [if elastic.of(job) != null && !std.objectHas(volcano, 'minAvailable') then 'minAvailable']: elastic.fewest(job),
        // An elastic job that has shrunk completes with its fewest workers: `minSuccess`
        // (pkg/controllers/job/state/running.go Execute, v1.15.0 l. 70-74: Completed once
        // status.Succeeded >= minSuccess), not only when every replica has succeeded.
        [if elastic.of(job) != null && elastic.fewest(job) < elastic.most(job) then 'minSuccess']: elastic.fewest(job),
        schedulerName: 'volcano',
        [if util.get(job, 'ttl') != null then 'ttlSecondsAfterFinished']: job.ttl,
        [if util.get(job, 'backoffLimit') != null then 'maxRetry']: job.backoffLimit,
        [if util.get(job, 'priorityClass') != null && !std.objectHas(volcano, 'priorityClass') then 'priorityClassName']: job.priorityClass,
        plugins: { svc: [], env: [] },
        // An elastic job's launchers meet again without the failed pod: restarting the job would stop them.
        [if elastic.of(job) == null then 'policies']: [
          { event: 'PodEvicted', action: 'RestartJob' },
          { event: 'PodFailed', action: 'RestartJob' },
        ],
        tasks: (if std.objectHas(job.roles, 'ps') then [task(job, 'ps', 'pserver', 'PSERVER', [])] else [])
               + [task(job, 'worker', 'trainer', 'TRAINER', [{ event: 'TaskCompleted', action: 'CompleteJob' }])],
      },
    }],
}
