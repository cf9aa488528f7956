// paddle-operator: a batch.paddlepaddle.org/v1 PaddleJob; the operator creates the pods, their
// services and PADDLE_* environment. A PodGroup only when asked for (volcano.podGroup): with
// --scheduling=volcano the operator creates its own from spec.schedulingPolicy.
local elastic = import '../elastic.libsonnet';
local pod = import '../pod.libsonnet';
local util = import '../util.libsonnet';

// With a hand-written PodGroup (an operator run without --scheduling=volcano), the pods must
// name it themselves: Volcano admits a pod into a gang only through this annotation, which the
// operator adds only with --scheduling=volcano (v0.3.5, paddlejob_controller.go).
local groupAnnotation = 'scheduling.k8s.io/group-name';

local roleSpec(job, name) =
  local role = job.roles[name];
  local elastic_ = name == 'worker' && elastic.of(job) != null;
  local volcano = std.objectHas(job, 'volcano') && job.volcano != null;
  local ownGroup = volcano && util.get(job.volcano, 'podGroup', false);
  // An elastic worker restarts in place (constructPod keeps a template's restartPolicy), and its
  // launcher joins the others again.
  local template = pod.template(job,
                                name,
                                {},
                                if elastic_ then elastic.env(job) else [],
                                (if volcano then { schedulerName: 'volcano' } else {})
                                + (if elastic_ then { restartPolicy: 'OnFailure' } else {})
                                // intranet Host: the operator runs the pods on the host network,
                                // where only this policy resolves cluster names
                                + (if util.get(job, 'intranet') == 'Host' then { dnsPolicy: 'ClusterFirstWithHostNet' } else {}));
  // The operator sets PADDLE_TRAINER_ENDPOINTS and PADDLE_TRAINER_ID itself (its ConfigMap,
  // constructPod): an elastic worker's shell unsets them before the launcher starts.
  local paddle = template.spec.containers[0];
  local launched = if elastic_ then template {
    spec+: { containers: [paddle { command: elastic.unsetting(paddle.command) }] + template.spec.containers[1:] },
  } else template;
  {
    replicas: role.replicas,
    template: if ownGroup then launched { metadata+: { annotations+: { [groupAnnotation]: job.name } } } else launched,
  };

{
  // What this runtime can express, by feature (features.libsonnet lists them): how, and why not.
  features:: {
    how: {
      'collective mode: workers only': 'yes',
      'parameter-server mode (ps)': 'yes',
      'heter mode (heter)': "rendered, but v0.3.5 sets `TRAINING_ROLE=HETER`, which Paddle's `PaddleCloudRoleMaker` refuses: the heter pods fail (validate and job warn, `paddlejob-heter`)",
      cleanPodPolicy: '`spec.cleanPodPolicy`',
      intranet: '`spec.intranet`',
      withGloo: '`spec.withGloo`',
      elastic: "Paddle's launcher with an etcd master (`PADDLE_MASTER=etcd://...`, `PADDLE_NNODES=MIN:MAX`), workers `restartPolicy: OnFailure`; not the operator's `spec.elastic`, whose protocol Paddle's launcher left in 2.3",
      'Volcano gang scheduling (volcano)': '`spec.schedulingPolicy`, `schedulerName: volcano`',
      'a hand-written PodGroup (volcano.podGroup)': 'a PodGroup named like the job; the pod templates carry `scheduling.k8s.io/group-name` (Volcano gangs pods only by it; the operator adds it only with `--scheduling=volcano`)',
      "the gang's minResources (volcano.minResources)": '`schedulingPolicy.minResources`',
      'priority class (priorityClass)': "the pod templates' `priorityClassName` (constructPod copies the template's spec)",
    },
    why: {
      'scheduler-plugins gang scheduling (coscheduling)': 'paddle-operator v0.3.5 gangs pods with Volcano only (`--scheduling=volcano`)',
      port: 'v0.3.5 picks the port itself: 36000 with intranet Service, 36000 + a random offset below 20000 otherwise (constructConfigMap)',
      'Kueue queue (kueueQueue)': 'Kueue has no integration for batch.paddlepaddle.org PaddleJobs',
      'ttl after finishing (ttl)': "paddle-operator v0.3.5's PaddleJobSpec has no such field (api/v1/paddlejob_types.go); `cleanPodPolicy` deletes the pods, not the job",
      'active deadline (deadline)': "paddle-operator v0.3.5's PaddleJobSpec has no such field (api/v1/paddlejob_types.go)",
      'retries (backoffLimit)': "paddle-operator v0.3.5's PaddleJobSpec has no such field (api/v1/paddlejob_types.go): a failed pod fails the job",
      suspend: "paddle-operator v0.3.5's PaddleJobSpec has no such field (api/v1/paddlejob_types.go)",
      managedBy: "paddle-operator v0.3.5's PaddleJobSpec has no such field (api/v1/paddlejob_types.go)",
    },
  },

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
        [if volcano != null then 'schedulingPolicy']: pod.gang(job, volcano),
      } + { [r]: roleSpec(job, r) for r in std.objectFields(job.roles) },
    }] + elastic.etcd(job) + (
      if volcano != null && util.get(volcano, 'podGroup', false) then [{
        apiVersion: 'scheduling.volcano.sh/v1beta1',
        kind: 'PodGroup',
        // The operator's pods join the PodGroup named like the job.
        metadata: pod.metadata(job),
        spec: pod.gang(job, volcano, 'minMember', 'priorityClassName'),
      }] else []
    ),
}
