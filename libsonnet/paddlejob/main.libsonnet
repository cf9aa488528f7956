// Training jobs: one short description, rendered for one of five runtimes (runtimes.json).
//
//   local paddlejob = import 'paddlejob/main.libsonnet';
//   local job =
//     paddlejob.new('resnet', 'registry.baidubce.com/paddle-operator/demo-resnet:v1')
//     + paddlejob.withCommand(['python', '-m', 'paddle.distributed.launch', 'train_fleet.py'])
//     + paddlejob.worker(2, gpu=1)
//     + paddlejob.withShm();
//   paddlejob.render(job, 'paddle-operator')   // -> [manifests]
//
// A job is plain data (the same JSON the Python API and the CLI build): `new` makes it, every
// `withX` / role function is a mixin joined with `+`, `withXMixin` adds to what is there.
// The fields are documented in docs/jobs.md; runtimes/*.libsonnet turn it into manifests.
local checks = import 'checks.libsonnet';
local builders = import 'runtimes/builders.libsonnet';
local runtimes = { [r.name]: builders[r.builder] for r in (import 'runtimes.json').runtimes };

local role(replicas, cpu, memory, gpu, env, template) = {
  replicas: replicas,
  [if cpu != null then 'cpu']: cpu,
  [if memory != null then 'memory']: memory,
  [if gpu != 0 then 'gpu']: gpu,
  [if env != {} then 'env']: env,
  [if template != {} then 'template']: template,
};

local features = import 'features.libsonnet';

{
  // The runtimes, in the order of runtimes.json (the CLI's choices, the docs' columns).
  runtimes:: features.runtimes,

  new(name, image):: { name: name, image: image, roles: {} },

  withNamespace(namespace):: { namespace: namespace },
  withImage(image):: { image: image },
  // The program: command (the entry point) and args, as lists, like a container's.
  withCommand(command):: { command: command },
  withArgs(args):: { args: args },
  withWorkingDir(dir):: { workingDir: dir },
  // Environment of every Paddle container: { NAME: 'value' }.
  withEnv(env):: { env: env },
  withEnvMixin(env):: { env+: env },
  withLabels(labels):: { labels: labels },
  withLabelsMixin(labels):: { labels+: labels },

  // Roles: parameter servers, trainers (workers) and heter workers. `template` is a pod template
  // (metadata, spec) to start from; the Paddle container is containers[0] of it.
  ps(replicas, cpu=null, memory=null, gpu=0, env={}, template={})::
    { roles+: { ps: role(replicas, cpu, memory, gpu, env, template) } },
  worker(replicas, cpu=null, memory=null, gpu=0, env={}, template={})::
    { roles+: { worker: role(replicas, cpu, memory, gpu, env, template) } },
  heter(replicas, cpu=null, memory=null, gpu=0, env={}, template={})::
    { roles+: { heter: role(replicas, cpu, memory, gpu, env, template) } },
  // Change one field of a role that is already there: withRoleMixin('worker', { gpu: 2 }).
  withRoleMixin(name, fields):: { roles+: { [name]+: fields } },

  // Operator settings (paddle-operator runtime; kubeflow maps cleanPodPolicy Always/Never).
  withCleanPodPolicy(policy):: { cleanPodPolicy: policy },
  withIntranet(intranet):: { intranet: intranet },
  withGloo(level):: { withGloo: level },
  // Elastic collective training through Paddle's launcher (elastic.libsonnet): the etcd the
  // launchers meet at (host:port; null: the job's own), the fewest and most workers (the most is
  // the worker replicas), the launcher's restarts, elastic level and wait for more than the fewest.
  withElastic(etcd=null, minReplicas=null, maxReplicas=null, level=null, maxRestart=null, timeout=null):: {
    elastic: {
      [if etcd != null then 'etcd']: etcd,
      [if minReplicas != null then 'minReplicas']: minReplicas,
      [if maxReplicas != null then 'maxReplicas']: maxReplicas,
      [if level != null then 'level']: level,
      [if maxRestart != null then 'maxRestart']: maxRestart,
      [if timeout != null then 'timeout']: timeout,
    },
  },
  // Volcano gang scheduling; minAvailable defaults to every pod of the job. `podGroup: true`
  // (paddle-operator runtime) also writes a PodGroup, for operators run without --scheduling.
  withVolcano(queue=null, priorityClass=null, minAvailable=null, minResources=null, podGroup=false):: {
    volcano: {
      [if queue != null then 'queue']: queue,
      [if priorityClass != null then 'priorityClass']: priorityClass,
      [if minAvailable != null then 'minAvailable']: minAvailable,
      [if minResources != null then 'minResources']: minResources,
      [if podGroup then 'podGroup']: true,
    },
  },

  // The lifecycle: each runtime's own field (features.libsonnet), or an error naming why not.
  // Seconds after the job finishes until it is deleted; seconds it may be active; retries.
  withTtl(seconds):: { ttl: seconds },
  withDeadline(seconds):: { deadline: seconds },
  withBackoffLimit(retries):: { backoffLimit: retries },
  // Created suspended (Kueue admits it, or resume it yourself); the controller that runs it.
  withSuspend(suspend=true):: { suspend: suspend },
  withManagedBy(controller):: { managedBy: controller },
  // The pods' PriorityClass.
  withPriorityClass(name):: { priorityClass: name },

  // Kueue: the LocalQueue that admits the job (the label kueue.x-k8s.io/queue-name), on the
  // runtimes whose kind Kueue admits.
  withKueue(queue):: { kueueQueue: queue },
  // Gang scheduling by the scheduler-plugins coscheduling plugin (kubeflow-trainer runtime).
  withCoscheduling():: { coscheduling: true },

  // Placement.
  withNodeSelector(selector):: { nodeSelector: selector },
  withNodeSelectorMixin(selector):: { nodeSelector+: selector },
  withTolerations(tolerations):: { tolerations: tolerations },
  withTolerationsMixin(tolerations):: { tolerations+: tolerations },

  // Storage: /dev/shm as a memory emptyDir (GPU data loaders need more than the default 64M),
  // and data volumes mounted into every Paddle container.
  withShm(sizeLimit=null):: { shm: if sizeLimit == null then true else sizeLimit },
  withPvc(claim, mountPath, name='data'):: { volumes+: [{ name: name, pvc: claim, mountPath: mountPath }] },
  withCephfs(monitors, mountPath='/mnt/cephfs', path='/', user='admin', secretName='cephfs-secret', name='cephfs')::
    { volumes+: [{
      name: name,
      mountPath: mountPath,
      cephfs: { monitors: monitors, path: path, user: user, secretName: secretName },
    }] },
  withHostPath(hostPath, mountPath, name='host'):: { volumes+: [{ name: name, hostPath: hostPath, mountPath: mountPath }] },
  // The port the PS/collective endpoints use (volcano and kubernetes runtimes).
  withPort(port):: { port: port },

  // The ClusterTrainingRuntimes the kubeflow-trainer runtime's TrainJobs refer to (deploy/trainer/).
  trainerRuntimes(image=null)::
    if image == null then builders.trainer.clusterTrainingRuntimes() else builders.trainer.clusterTrainingRuntimes(image),

  // The manifests of `job` for `runtime`, one of runtimes.json's names; `releases`: the
  // third-party projects' releases they are for ({ jobset: '0.10' }; a builder that maps a field
  // per release reads its project's as the job's hidden field `releases`).
  render(job, runtime='paddle-operator', releases={})::
    assert std.objectHas(runtimes, runtime) :
           "runtime must be one of %s, got '%s'" % [std.join(', ', std.objectFields(runtimes)), runtime];
    runtimes[runtime].render(checks.check(job, runtime, releases) { releases:: releases }),
}
