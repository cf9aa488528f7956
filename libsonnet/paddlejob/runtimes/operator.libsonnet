// paddle-operator: a batch.paddlepaddle.org/v1 PaddleJob; the operator creates the pods, their
// services and PADDLE_* environment. A PodGroup only when asked for (volcano.podGroup): with
// --scheduling=volcano the operator creates its own from spec.schedulingPolicy.
local pod = import '../pod.libsonnet';
local util = import '../util.libsonnet';

// With a hand-written PodGroup (an operator run without --scheduling=volcano), the pods must
// name it themselves: Volcano admits a pod into a gang only through this annotation, which the
// operator adds only with --scheduling=volcano (v0.3.5, paddlejob_controller.go).
local groupAnnotation = 'scheduling.k8s.io/group-name';

local roleSpec(job, name) =
  local role = job.roles[name];
  local elastic = name == 'worker' && std.objectHas(job, 'elastic') && job.elastic != null;
  local volcano = std.objectHas(job, 'volcano') && job.volcano != null;
  local ownGroup = volcano && util.get(job.volcano, 'podGroup', false);
  local template = pod.template(job, name, {}, pod.elasticEnv(job), if volcano then { schedulerName: 'volcano' } else {});
  {
    replicas: role.replicas,
    [if elastic && std.objectHas(job.elastic, 'minReplicas') then 'requests']: job.elastic.minReplicas,
    [if elastic && std.objectHas(job.elastic, 'maxReplicas') then 'limits']: job.elastic.maxReplicas,
    template: if ownGroup then template { metadata+: { annotations+: { [groupAnnotation]: job.name } } } else template,
  };

{
  render(job)::
    local volcano = util.get(job, 'volcano');
    [{
      apiVersion: 'batch.paddlepaddle.org/v1',
      kind: 'PaddleJob',
      metadata: pod.metadata(job),
      spec: {
        [if util.get(job, 'cleanPodPolicy') != null then 'cleanPodPolicy']: job.cleanPodPolicy,
        [if util.get(job, 'intranet') != null then 'intranet']: job.intranet,
        [if util.get(job, 'withGloo') != null then 'withGloo']: job.withGloo,
        [if util.get(job, 'elastic') != null then 'elastic']: job.elastic.level,
        [if volcano != null then 'schedulingPolicy']: pod.gang(job, volcano),
      } + { [r]: roleSpec(job, r) for r in std.objectFields(job.roles) },
    }] + (
      if volcano != null && util.get(volcano, 'podGroup', false) then [{
        apiVersion: 'scheduling.volcano.sh/v1beta1',
        kind: 'PodGroup',
        // The operator's pods join the PodGroup named like the job.
        metadata: pod.metadata(job),
        spec: pod.gang(job, volcano, 'minMember', 'priorityClassName'),
      }] else []
    ),
}
