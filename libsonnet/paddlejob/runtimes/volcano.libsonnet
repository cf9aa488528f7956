// volcano: a batch.volcano.sh/v1alpha1 Job in the shape of Volcano's PaddlePaddle example: tasks
// pserver and trainer, gang of every pod, restart the whole job when a pod fails or is evicted,
// complete it when the trainers are done.
//
// The pods find each other through Volcano's `svc` plugin (a headless Service named like the
// job, host names <job>-<task>-<index>) and `env` plugin. The PADDLE_* contract is set here:
// POD_IP is the pod's DNS name, so it matches its entry in the endpoint lists.
local pod = import '../pod.libsonnet';
local util = import '../util.libsonnet';

local endpoints(job, task, count) =
  std.join(',', ['%s-%s-%d.%s:%d' % [job.name, task, i, job.name, job.port] for i in std.range(0, count - 1)]);

local contract(job, role) =
  local workers = job.roles.worker.replicas;
  local ps = if std.objectHas(job.roles, 'ps') then job.roles.ps.replicas else 0;
  [
    pod.fieldRef('POD_NAME', 'metadata.name'),
    { name: 'POD_IP', value: '$(POD_NAME).%s' % job.name },
    pod.fieldRef('PADDLE_TRAINER_ID', "metadata.annotations['volcano.sh/task-index']"),
    { name: 'PADDLE_PORT', value: std.toString(job.port) },
    { name: 'PADDLE_CURRENT_ENDPOINT', value: '$(POD_IP):%d' % job.port },
    { name: 'PADDLE_TRAINERS_NUM', value: std.toString(workers) },
    { name: 'PADDLE_TRAINER_ENDPOINTS', value: endpoints(job, 'trainer', workers) },
    { name: 'TRAINING_ROLE', value: role },
    { name: 'PADDLE_TRAINING_ROLE', value: role },
  ] + (if ps > 0 then [
         { name: 'PADDLE_PSERVERS_NUM', value: std.toString(ps) },
         { name: 'PADDLE_PSERVERS_IP_PORT_LIST', value: endpoints(job, 'pserver', ps) },
       ] else []);

local task(job, roleName, taskName, trainingRole, policies) = {
  name: taskName,
  replicas: job.roles[roleName].replicas,
  [if policies != [] then 'policies']: policies,
  template: pod.template(job,
                         roleName,
                         { 'paddle-job': job.name, 'paddle-role': taskName },
                         contract(job, trainingRole),
                         { restartPolicy: 'OnFailure' }),
};

{
  render(job)::
    local volcano = util.get(job, 'volcano', {});
    [{
      apiVersion: 'batch.volcano.sh/v1alpha1',
      kind: 'Job',
      metadata: pod.metadata(job),
      // (a Volcano Job has no minResources: checks.libsonnet stops a job that sets them)
      spec: pod.gang(job, volcano, 'minAvailable', 'priorityClassName') + {
        schedulerName: 'volcano',
        plugins: { svc: [], env: [] },
        policies: [
          { event: 'PodEvicted', action: 'RestartJob' },
          { event: 'PodFailed', action: 'RestartJob' },
        ],
        tasks: (if std.objectHas(job.roles, 'ps') then [task(job, 'ps', 'pserver', 'PSERVER', [])] else [])
               + [task(job, 'worker', 'trainer', 'TRAINER', [{ event: 'TaskCompleted', action: 'CompleteJob' }])],
      },
    }],
}
