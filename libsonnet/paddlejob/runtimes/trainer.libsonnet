// kubeflow-trainer: Kubeflow Trainer v2 (trainer.kubeflow.org/v1alpha1), collective jobs. A
// TrainJob refers to a ClusterTrainingRuntime; Trainer makes a JobSet of the two and the JobSet
// controller makes its Jobs and their pods. Trainer ships no Paddle runtime, so this library
// writes one (`clusterTrainingRuntimes`, rendered to deploy/trainer/): with no framework plugin
// (Trainer v2.3.0 pkg/runtime/framework/plugins/plainml: numNodes becomes the node Job's
// parallelism and completions, the TrainJob's env is upserted into the container named `node`),
// the pods find their master by the JobSet's DNS names, as the JAX runtime's coordinator does:
//
//   JOBSET_NAME     the pod's label jobset.sigs.k8s.io/jobset-name (the TrainJob's name)
//   PADDLE_MASTER   $(JOBSET_NAME)-node-0-0.$(JOBSET_NAME):36543, node 0's host name under the
//                   JobSet's headless Service (subdomain: the JobSet's name)
//   PADDLE_RANK     the completion index of the node Job's pod
//   POD_IP          the pod's own name under that Service: Paddle's launcher starts the master
//                   on the node whose address is the master's host, compared as strings
//   PADDLE_NNODES   the runtime's numNodes (1); a TrainJob of N nodes sets it to N in its env,
//                   which validate checks (trainjob-paddle-nnodes): nothing else tells the pods
//   PADDLE_JOB_ID   $(JOBSET_NAME)
//
// The node Job has backoffLimit 0 and restartPolicy Never: a failed rank fails its Job, and as the
// JobSet has no failure policy (none is defaulted) the JobSet and the TrainJob fail, where a
// restarted rank would wait for a rendezvous that is over. docs/runtimes.md has the contract.
local pod = import '../pod.libsonnet';
local util = import '../util.libsonnet';

local api = 'trainer.kubeflow.org/v1alpha1';
local port = 36543;  // the master's port, as the kubeflow runtime's default
local node = 'node';  // the replicated Job and container Trainer's plainml plugin looks for
local manager = 'paddlepaddle.org/paddlejob-manifests';  // our runtimePatches entry's owner: Trainer wants a domain-prefixed path

// The runtime a TrainJob refers to: plain, or with Trainer's Volcano gang-scheduling plugin.
// The ClusterTrainingRuntimes TrainJobs refer to, by gang scheduler: runtimes.json, which
// validate's rules for them read too.
local runtimeNames = [r for r in (import '../runtimes.json').runtimes if r.builder == 'trainer'][0].trainingRuntimes;

local runtimeEnv = [
  pod.fieldRef('JOBSET_NAME', "metadata.labels['jobset.sigs.k8s.io/jobset-name']"),
  { name: 'PADDLE_MASTER', value: '$(JOBSET_NAME)-%s-0-0.$(JOBSET_NAME):%d' % [node, port] },
  pod.fieldRef('PADDLE_RANK', "metadata.annotations['batch.kubernetes.io/job-completion-index']"),
  // The node's own address as the launcher compares it with the master's host: node 0 starts the
  // rendezvous server only when they are the same string (launch/controllers/master.py
  // HTTPMaster.lazy_init); without it the node's address is its IP and every node waits.
  { name: 'POD_IP', value: '$(JOBSET_NAME)-%s-0-$(PADDLE_RANK).$(JOBSET_NAME)' % node },
  { name: 'PADDLE_NNODES', value: '1' },
  { name: 'PADDLE_JOB_ID', value: '$(JOBSET_NAME)' },
  { name: 'PYTHONUNBUFFERED', value: '1' },
];

// Trainer's gang plugins make the PodGroup and annotate the pods, but set no schedulerName
// (v2.3.0 plugins/volcano): the runtime does, or the default scheduler places the pods one by one.
local clusterTrainingRuntime(name, image, podGroupPolicy, schedulerName=null) = {
  apiVersion: api,
  kind: 'ClusterTrainingRuntime',
  metadata: { name: name, labels: { 'trainer.kubeflow.org/framework': 'paddle' } },
  spec: {
    mlPolicy: { numNodes: 1 },
    [if podGroupPolicy != null then 'podGroupPolicy']: podGroupPolicy,
    template: { spec: { replicatedJobs: [{
      name: node,
      replicas: 1,
      template: {
        metadata: { labels: { 'trainer.kubeflow.org/trainjob-ancestor-step': 'trainer' } },
        spec: {
          backoffLimit: 0,
          template: { spec: {
            restartPolicy: 'Never',
            [if schedulerName != null then 'schedulerName']: schedulerName,
            containers: [{
              name: node,
              image: image,
              command: ['python3', '-m', 'paddle.distributed.launch'],
              env: runtimeEnv,
              ports: [{ name: 'master', containerPort: port }],
            }],
          } },
        },
      },
    }] } },
  },
};

// What a TrainJob can carry of the job: runtimePatches (Trainer 2.2 and newer) give the pods
// their volumes, placement and labels, and the JobSet the annotations Trainer's plugins read;
// the rest of a pod template is the runtime's.
// What of a pod template a TrainJob carries (Trainer 2.3's runtime patch types,
// pkg/apis/trainer/v1alpha1 PodSpecPatch and ContainerPatch); the container's image, command,
// args, env and resources go in `trainer` itself. Anything else is the runtime's to set.
local patchablePod = [
  'volumes',
  'nodeSelector',
  'tolerations',
  'affinity',
  'imagePullSecrets',
  'securityContext',
  'serviceAccountName',
  'schedulingGates',
  'terminationGracePeriodSeconds',
];
local patchableContainer = ['volumeMounts', 'securityContext'];
local inTrainer = ['name', 'image', 'command', 'args', 'env', 'resources'];

local patches(template, annotations) =
  local spec = template.spec;
  local paddle = spec.containers[0];
  local container = { [k]: paddle[k] for k in patchableContainer if std.objectHas(paddle, k) };
  local podSpec = { [k]: spec[k] for k in patchablePod if std.objectHas(spec, k) }
                  + (if container != {} then { containers: [{ name: node } + container] } else {});
  local metadata = util.get(template, 'metadata', {});
  local podPatch = {
    [if metadata != {} then 'metadata']: metadata,
    [if podSpec != {} then 'spec']: podSpec,
  };
  if podPatch == {} && annotations == {} then [] else [{
    manager: manager,
    trainingRuntimeSpec: { template: {
      [if annotations != {} then 'metadata']: { annotations: annotations },
      [if podPatch != {} then 'spec']: { replicatedJobs: [{
        name: node,
        template: { spec: { template: podPatch } },
      }] },
    } },
  }];

// The first field of the pod template that a TrainJob cannot carry, or null.
local unexpressible(template) =
  local spec = template.spec;
  local paddle = spec.containers[0];
  local found =
    ['metadata.' + k for k in std.objectFields(util.get(template, 'metadata', {})) if !std.member(['labels', 'annotations'], k)]
    + ['spec.' + k for k in std.objectFields(spec) if !std.member(patchablePod + ['containers'], k)]
    + (if std.length(spec.containers) > 1 then ['spec.containers[1]'] else [])
    + ['spec.containers[0].' + k for k in std.objectFields(paddle) if !std.member(patchableContainer + inTrainer, k)];
  if found == [] then null else found[0];

{
  // What this runtime can express, by feature (features.libsonnet lists them): how, and why not.
  features:: {
    how: {
      'collective mode: workers only': 'a TrainJob of `numNodes` nodes on the `paddle-distributed` ClusterTrainingRuntime',
      'GPUs, CPU, memory': '`trainer.resourcesPerNode`: `nvidia.com/gpu` limit; CPU and memory requested = limited',
      'placement, shared memory, data volumes': 'a `runtimePatches` entry for the `node` Job (Trainer 2.2+)',
      'Volcano gang scheduling (volcano)': "the `paddle-distributed-volcano` runtime (Trainer's Volcano plugin: a PodGroup of every node); `queue` as the JobSet template's annotation `scheduling.volcano.sh/queue-name`, in a runtime patch",
      'Kueue queue (kueueQueue)': 'the label `kueue.x-k8s.io/queue-name` on the TrainJob',
      'active deadline (deadline)': '`spec.activeDeadlineSeconds` (Trainer 2.2+)',
      suspend: '`spec.suspend`',
      managedBy: '`spec.managedBy`: `trainer.kubeflow.org/trainjob-controller` or `kueue.x-k8s.io/multikueue`',
      'scheduler-plugins gang scheduling (coscheduling)': "the `paddle-distributed-coscheduling` runtime (Trainer's coscheduling plugin: a scheduler-plugins PodGroup of every node, 60 s to schedule them; the pods name `schedulerName: scheduler-plugins-scheduler`, the second scheduler's default name)",
    },
    why: {
      'parameter-server mode (ps)': 'a TrainJob has one trainer step of identical nodes; servers need a runtime with a step of their own',
      intranet: "the JobSet's headless Service gives DNS names",
      elastic: 'a TrainJob has a fixed `numNodes`',
      port: "the runtime's `PADDLE_MASTER` fixes it (36543); a ClusterTrainingRuntime of your own can change it",
      "the gang's minResources (volcano.minResources)": "Trainer's Volcano plugin sums the pods' requests itself",
      'ttl after finishing (ttl)': "a TrainJob has no TTL (Trainer v2.3.0 TrainJobSpec): the JobSet's `ttlSecondsAfterFinished` is the ClusterTrainingRuntime's, which `runtimePatches` cannot change",
      'retries (backoffLimit)': "a TrainJob has no retry count: the JobSet's `failurePolicy.maxRestarts` is the ClusterTrainingRuntime's (`runtimePatches` patch only the pods)",
      'priority class (priorityClass)': "`runtimePatches` cannot set a pod's `priorityClassName` (Trainer v2.3.0 PodSpecPatch); set it in a ClusterTrainingRuntime of your own",
    },
  },

  runtimeNames:: runtimeNames,
  port:: port,

  // The ClusterTrainingRuntimes this library's TrainJobs refer to, with `image` as the default
  // a TrainJob's trainer.image replaces.
  clusterTrainingRuntimes(image='registry.baidubce.com/paddlepaddle/paddle:3.3.1'):: [
    clusterTrainingRuntime(runtimeNames.plain, image, null),
    clusterTrainingRuntime(runtimeNames.volcano, image, { volcano: {} }, 'volcano'),
    // scheduler-plugins installed as a second scheduler (its chart's default name)
    clusterTrainingRuntime(runtimeNames.coscheduling,
                           image,
                           { coscheduling: { scheduleTimeoutSeconds: 60 } },
                           'scheduler-plugins-scheduler'),
  ],

  render(job)::
    local role = job.roles.worker;
    assert util.get(job, 'workingDir') == null :
           'workingDir cannot be expressed on the kubeflow-trainer runtime: a TrainJob has no working directory; cd in the command';
    local nodes = role.replicas;
    local contractNames = [e.name for e in runtimeEnv];
    local template = pod.template(job, 'worker', {}, [{ name: n } for n in contractNames]);
    local field = unexpressible(template);
    assert field == null :
           'roles.worker.template %s cannot be expressed on the kubeflow-trainer runtime: a TrainJob takes the pod from its runtime and patches only its volumes, placement, security and labels; write a ClusterTrainingRuntime of your own' % field;
    local paddle = template.spec.containers[0];
    // the template's env and the job's, without the contract's names (pod.template puts them first)
    local userEnv = [e for e in util.get(paddle, 'env', []) if !std.member(contractNames, e.name)];
    local volcano = util.get(job, 'volcano');
    local coscheduling = util.get(job, 'coscheduling', false) == true;
    assert volcano == null || !coscheduling :
           'volcano and coscheduling: a job has one gang scheduler; give one';
    local gang = if volcano != null then 'volcano' else if coscheduling then 'coscheduling' else 'plain';
    assert volcano == null || !std.objectHas(volcano, 'minAvailable') :
           "volcano.minAvailable cannot be expressed on the kubeflow-trainer runtime: Trainer's Volcano plugin makes the gang every node";
    assert volcano == null || !std.objectHas(volcano, 'priorityClass') :
           "volcano.priorityClass cannot be expressed on the kubeflow-trainer runtime: a TrainJob's runtimePatches cannot set a pod's priorityClassName; set it in a ClusterTrainingRuntime of your own";
    // Trainer's Volcano plugin reads the queue from the JobSet template's annotations, which a
    // runtime patch may set (v2.3.0 plugins/volcano Build; core/trainingruntime.go).
    local annotations = if volcano != null && std.objectHas(volcano, 'queue')
    then { 'scheduling.volcano.sh/queue-name': volcano.queue } else {};
    local runtimePatches = patches(template, annotations);
    [{
      apiVersion: api,
      kind: 'TrainJob',
      metadata: pod.queuedMetadata(job),
      spec: {
        runtimeRef: { name: runtimeNames[gang] },
        trainer: {
          image: paddle.image,
          [if std.objectHas(paddle, 'command') then 'command']: paddle.command,
          [if std.objectHas(paddle, 'args') then 'args']: paddle.args,
          numNodes: nodes,
          // The one variable the runtime cannot know: PADDLE_NNODES is numNodes.
          env: [{ name: 'PADDLE_NNODES', value: std.toString(nodes) }] + userEnv,
          [if std.objectHas(paddle, 'resources') then 'resourcesPerNode']: paddle.resources,
        },
        [if runtimePatches != [] then 'runtimePatches']: runtimePatches,
        [if util.get(job, 'deadline') != null then 'activeDeadlineSeconds']: job.deadline,
        [if util.get(job, 'suspend', false) == true then 'suspend']: true,
        [if util.get(job, 'managedBy') != null then 'managedBy']: job.managedBy,
      },
    }],
}
