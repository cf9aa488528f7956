// kubeflow: the Kubeflow training-operator's kubeflow.org/v1 PaddleJob, collective jobs (Worker
// replicas). The training operator sets PADDLE_MASTER, PADDLE_NNODES and PADDLE_JOB_ID for
// Paddle's launcher (2.3 and newer; Paddle 2.0-2.2 images need another runtime), v1.9.0
// pkg/controller.v1/paddlepaddle/envvar.go. Its PS mode (Master replicas) gives each pod
// PADDLE_SERVER_NUM or PADDLE_TRAINER_NUM = 1, and Paddle 3's launcher then starts a server in
// every pod (4 servers for 2 + 2, seen with `local`): not the job described, so PS is refused.
// Its elasticPolicy is not acted on by the PaddleJob controller: elastic jobs are refused too.
// The Paddle container must be named `paddle`. cleanPodPolicy maps Always -> All and Never -> None; the outcome-based
// policies (OnFailure, OnCompletion) have no counterpart there. The rendezvous port is the `paddle`
// container's port named `master` (getPortFromPaddleJob; unset, PaddleJobDefaultPort 36543), so
// `port` is written as that container port.
local pod = import '../pod.libsonnet';
local util = import '../util.libsonnet';

local cleanPodPolicies = { Always: 'All', Never: 'None' };
local defaultPort = 36543;  // kubeflow.org/v1 PaddleJobDefaultPort

// The lifecycle in runPolicy (kubeflow.org/v1 RunPolicy, training-operator v1.9.0).
local lifecycle(job) = {
  [if util.get(job, 'ttl') != null then 'ttlSecondsAfterFinished']: job.ttl,
  [if util.get(job, 'deadline') != null then 'activeDeadlineSeconds']: job.deadline,
  [if util.get(job, 'backoffLimit') != null then 'backoffLimit']: job.backoffLimit,
  [if util.get(job, 'suspend', false) == true then 'suspend']: true,
  [if util.get(job, 'managedBy') != null then 'managedBy']: job.managedBy,
};

{
  // What this runtime can express, by feature (features.libsonnet lists them): how, and why not.
  features:: {
    how: {
      'collective mode: workers only': '`Worker` replicas',
      cleanPodPolicy: '`runPolicy.cleanPodPolicy`: Always -> All, Never -> None (not OnFailure, OnCompletion)',
      port: 'the `paddle` container port named `master`, which training-operator v1.9.0 puts in `PADDLE_MASTER` (getPortFromPaddleJob; default 36543)',
      'Volcano gang scheduling (volcano)': '`runPolicy.schedulingPolicy`',
      "the gang's minResources (volcano.minResources)": '`runPolicy.schedulingPolicy.minResources`',
      'Kueue queue (kueueQueue)': 'the label `kueue.x-k8s.io/queue-name` (Kueue 0.19 deprecated its kubeflow.org/v1 integrations and turned them off by default)',
      'ttl after finishing (ttl)': '`runPolicy.ttlSecondsAfterFinished`',
      'active deadline (deadline)': '`runPolicy.activeDeadlineSeconds`',
      'retries (backoffLimit)': '`runPolicy.backoffLimit`',
      suspend: '`runPolicy.suspend`',
      managedBy: '`runPolicy.managedBy`: `kubeflow.org/training-operator` or `kueue.x-k8s.io/multikueue`',
      'priority class (priorityClass)': "the pod template's `priorityClassName`",
    },
    why: {
      'scheduler-plugins gang scheduling (coscheduling)': 'training-operator v1.9.0 picks its gang scheduler when it starts (`--gang-scheduler-name`), not per job',
      'parameter-server mode (ps)': 'its Master replicas start a server in every pod with Paddle 3 (`local` showed 4 servers for 2 + 2)',
      elastic: "training-operator v1.9.0's PaddleJob controller does not act on `elasticPolicy`, and it sets `PADDLE_MASTER` and `PADDLE_NNODES` itself after the container's own (envvar.go setPodEnv), so the launcher would not meet at an etcd",
    },
  },

  render(job)::
    local volcano = util.get(job, 'volcano');
    local policy = util.get(job, 'cleanPodPolicy');
    assert policy == null || std.objectHas(cleanPodPolicies, policy) :
           'cleanPodPolicy %s cannot be expressed on the kubeflow runtime (it has All, Running, None); use Always or Never' % policy;
    local base = pod.template(job, 'worker', {}, []);
    local paddle = base.spec.containers[0];
    assert paddle.name == 'paddle' :
           "the Paddle container must be named 'paddle' on the kubeflow runtime, got '%s'" % paddle.name;
    local declared = [p.containerPort for p in util.get(paddle, 'ports', []) if util.get(p, 'name') == 'master'];
    assert declared == [] || declared[0] == job.port :
           "port %d: the template's container port 'master' is %d, and the training operator takes that one; give one port" % [job.port, declared[0]];
    local template = if job.port == defaultPort || declared != [] then base else base {
      spec+: { containers: [paddle { ports+: [{ name: 'master', containerPort: job.port }] }] + base.spec.containers[1:] },
    };
    local runPolicy = {
      [if policy != null then 'cleanPodPolicy']: cleanPodPolicies[policy],
      [if volcano != null then 'schedulingPolicy']: pod.gang(job, volcano),
    } + lifecycle(job);
    [{
      apiVersion: 'kubeflow.org/v1',
      kind: 'PaddleJob',
      metadata: pod.queuedMetadata(job),
      spec: {
        [if runPolicy != {} then 'runPolicy']: runPolicy,
        paddleReplicaSpecs: {
          Worker: {
            replicas: job.roles.worker.replicas,
            restartPolicy: 'OnFailure',
            template: template,
          },
        },
      },
    }],
}
