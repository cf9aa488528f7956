// paddle-operator: a batch.paddlepaddle.org/v1 PaddleJob; the operator creates the pods, their
// services and PADDLE_* environment. A PodGroup only when asked for (volcano.podGroup): with
// --scheduling=volcano the operator creates its own from spec.schedulingPolicy.
local pod = import '../pod.libsonnet';
local util = import '../util.libsonnet';

local roleSpec(job, name) =
  local role = job.roles[name];
  local elastic = name == 'worker' && std.objectHas(job, 'elastic') && job.elastic != null;
  local volcano = std.objectHas(job, 'volcano') && job.volcano != null;
  local elasticEnv = if std.objectHas(job, 'elastic') && job.elastic != null
  then [{ name: 'PADDLE_ELASTIC_SERVER', value: job.elastic.etcd }] else [];
  {
    replicas: role.replicas,
    [if elastic && std.objectHas(job.elastic, 'minReplicas') then 'requests']: job.elastic.minReplicas,
    [if elastic && std.objectHas(job.elastic, 'maxReplicas') then 'limits']: job.elastic.maxReplicas,
    template: pod.template(job, name, {}, elasticEnv, if volcano then { schedulerName: 'volcano' } else {}),
  };

{
  render(job)::
    local volcano = util.get(job, 'volcano');
    local total = pod.totalPods(job);
    [{
      apiVersion: 'batch.paddlepaddle.org/v1',
      kind: 'PaddleJob',
      metadata: pod.metadata(job),
      spec: {
        [if util.get(job, 'cleanPodPolicy') != null then 'cleanPodPolicy']: job.cleanPodPolicy,
        [if util.get(job, 'intranet') != null then 'intranet']: job.intranet,
        [if util.get(job, 'withGloo') != null then 'withGloo']: job.withGloo,
        [if util.get(job, 'elastic') != null then 'elastic']: job.elastic.level,
        [if volcano != null then 'schedulingPolicy']: {
          minAvailable: util.get(volcano, 'minAvailable', total),
          [if std.objectHas(volcano, 'queue') then 'queue']: volcano.queue,
          [if std.objectHas(volcano, 'priorityClass') then 'priorityClass']: volcano.priorityClass,
          [if std.objectHas(volcano, 'minResources') then 'minResources']: volcano.minResources,
        },
      } + { [r]: roleSpec(job, r) for r in std.objectFields(job.roles) },
    }] + (
      if volcano != null && util.get(volcano, 'podGroup', false) then [{
        apiVersion: 'scheduling.volcano.sh/v1beta1',
        kind: 'PodGroup',
        // The operator's pods join the PodGroup named like the job.
        metadata: pod.metadata(job),
        spec: {
          minMember: util.get(volcano, 'minAvailable', total),
          [if std.objectHas(volcano, 'queue') then 'queue']: volcano.queue,
          [if std.objectHas(volcano, 'priorityClass') then 'priorityClassName']: volcano.priorityClass,
          [if std.objectHas(volcano, 'minResources') then 'minResources']: volcano.minResources,
        },
      }] else []
    ),
}
