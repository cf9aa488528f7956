// What each runtime can express, and how: the one table that the render's checks
// (checks.libsonnet), the runtime list of the CLI and the Python API, and the table in
// docs/runtimes.md (written by `make manifests`) are made from. A runtime missing from a
// feature's `how` cannot express it: the render stops and names the runtimes that can; `why`
// says why it cannot.
{
  // The runtimes, in the order of runtimes.json (the CLI's choices, the docs' columns).
  runtimes: [r.name for r in (import 'runtimes.json').runtimes],

  features: [
    {
      name: 'collective mode: workers only',
      field: '`roles.worker`, `--workers`',
      how: {
        'paddle-operator': 'yes',
        volcano: 'task `trainer`',
        kubeflow: '`Worker` replicas',
        kubernetes: 'an Indexed Job (1.21+)',
        'kubeflow-trainer': 'a TrainJob of `numNodes` nodes on the `paddle-distributed` ClusterTrainingRuntime',
      },
    },
    {
      name: 'parameter-server mode (ps)',
      field: '`roles.ps`, `--ps`',
      how: { 'paddle-operator': 'yes', volcano: 'task `pserver`', kubernetes: 'a StatefulSet' },
      why: {
        kubeflow: 'its Master replicas start a server in every pod with Paddle 3 (`local` showed 4 servers for 2 + 2)',
        'kubeflow-trainer': 'a TrainJob has one trainer step of identical nodes; servers need a runtime with a step of their own',
      },
    },
    {
      name: 'heter mode (heter)',
      field: '`roles.heter`, `--heter`',
      how: { 'paddle-operator': "rendered, but v0.3.5 sets `TRAINING_ROLE=HETER`, which Paddle's `PaddleCloudRoleMaker` refuses: the heter pods fail (validate and job warn, `paddlejob-heter`)" },
    },
    {
      name: 'GPUs, CPU, memory',
      field: '`gpu`, `cpu`, `memory`, `--gpus`',
      how: { [r]: '`nvidia.com/gpu` limit; CPU and memory requested = limited' for r in $.runtimes }
           + { 'kubeflow-trainer': '`trainer.resourcesPerNode`: `nvidia.com/gpu` limit; CPU and memory requested = limited' },
    },
    {
      name: 'placement, shared memory, data volumes',
      field: '`nodeSelector`, `tolerations`, `shm`, `volumes`',
      how: { [r]: 'in every pod template' for r in $.runtimes }
           + { 'kubeflow-trainer': 'a `runtimePatches` entry for the `node` Job (Trainer 2.2+)' },
    },
    {
      name: 'cleanPodPolicy',
      field: '`cleanPodPolicy`, `--clean-pod-policy`',
      how: {
        'paddle-operator': '`spec.cleanPodPolicy`',
        kubeflow: '`runPolicy.cleanPodPolicy`: Always -> All, Never -> None (not OnFailure, OnCompletion)',
      },
    },
    {
      name: 'intranet',
      field: '`intranet`, `--intranet`',
      how: { 'paddle-operator': '`spec.intranet`' },
      why: {
        volcano: 'the `svc` plugin gives DNS names',
        kubernetes: 'headless Services give DNS names',
        'kubeflow-trainer': "the JobSet's headless Service gives DNS names",
      },
    },
    {
      name: 'withGloo',
      field: '`withGloo`, `--with-gloo`',
      how: { 'paddle-operator': '`spec.withGloo`' },
    },
    {
      name: 'elastic',
      field: '`elastic`, `--elastic --etcd`',
      how: {
        'paddle-operator': '`spec.elastic`, worker `requests`/`limits`, `PADDLE_ELASTIC_SERVER` (the operator adds `PADDLE_ELASTIC_JOB_ID`, `_NP`, `_TIMEOUT`)',
      },
      why: {
        kubeflow: "training-operator v1.9.0's PaddleJob controller does not act on `elasticPolicy`",
        'kubeflow-trainer': 'a TrainJob has a fixed `numNodes`',
      },
    },
    {
      name: 'port',
      field: '`port`, `--port`',
      how: {
        volcano: 'every endpoint in `PADDLE_*` and `PADDLE_PORT`',
        kubeflow: 'the `paddle` container port named `master`, which training-operator v1.9.0 puts in `PADDLE_MASTER` (getPortFromPaddleJob; default 36543)',
        kubernetes: 'every endpoint in `PADDLE_*`, `PADDLE_PORT` and the headless Services',
      },
      why: {
        'paddle-operator': 'v0.3.5 picks the port itself: 36000 with intranet Service, 36000 + a random offset below 20000 otherwise (constructConfigMap)',
        'kubeflow-trainer': "the runtime's `PADDLE_MASTER` fixes it (36543); a ClusterTrainingRuntime of your own can change it",
      },
    },
    {
      name: 'Volcano gang scheduling (volcano)',
      field: '`volcano`, `--volcano`',
      how: {
        'paddle-operator': '`spec.schedulingPolicy`, `schedulerName: volcano`',
        volcano: 'native: `minAvailable`, `queue`, `priorityClassName`',
        kubeflow: '`runPolicy.schedulingPolicy`',
        'kubeflow-trainer': "the `paddle-distributed-volcano` runtime (Trainer's Volcano plugin: a PodGroup of every node); `queue` as the TrainJob's annotation `scheduling.volcano.sh/queue-name`",
      },
    },
    {
      name: 'a hand-written PodGroup (volcano.podGroup)',
      field: '`volcano.podGroup`, `--podgroup`',
      how: {
        'paddle-operator': 'a PodGroup named like the job; the pod templates carry `scheduling.k8s.io/group-name` (Volcano gangs pods only by it; the operator adds it only with `--scheduling=volcano`)',
      },
    },
    {
      name: "the gang's minResources (volcano.minResources)",
      field: '`volcano.minResources`',
      how: {
        'paddle-operator': '`schedulingPolicy.minResources`',
        kubeflow: '`runPolicy.schedulingPolicy.minResources`',
      },
      why: {
        volcano: "a Volcano Job has no field for it: its controller sums the pods' requests",
        'kubeflow-trainer': "Trainer's Volcano plugin sums the pods' requests itself",
      },
    },
    {
      name: 'Kueue queue (kueueQueue)',
      field: '`kueueQueue`, `--kueue-queue`',
      how: {
        kubeflow: 'the label `kueue.x-k8s.io/queue-name` (Kueue deprecates its kubeflow.org/v1 integrations)',
        'kubeflow-trainer': 'the label `kueue.x-k8s.io/queue-name` on the TrainJob',
      },
      why: {
        'paddle-operator': 'Kueue has no integration for batch.paddlepaddle.org PaddleJobs',
        volcano: 'Volcano schedules its Jobs itself (its `queue`)',
        kubernetes: 'Kueue would admit the servers and the trainers one by one, no gang',
      },
    },
  ],

  // feature name -> the runtimes that have it
  support:: { [f.name]: [r for r in $.runtimes if std.objectHas(f.how, r)] for f in $.features },
}
