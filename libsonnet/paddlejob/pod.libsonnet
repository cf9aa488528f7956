// Pod templates of a job's roles, shared by every runtime. The Paddle container is containers[0]
// (the paddle-operator sets its environment there); a role's `template` is the starting point.
local util = import 'util.libsonnet';
local envList(env) = [{ name: k, value: std.toString(env[k]) } for k in std.objectFields(env)];

// One entry per name, the first kept: the runtime's contract, then the template's, then the job's.
local firstOfEachName(entries) = std.foldl(
  function(kept, e) if std.member([k.name for k in kept], e.name) then kept else kept + [e], entries, []
);

local volume(v) =
  { name: v.name }
  + (if std.objectHas(v, 'pvc') then { persistentVolumeClaim: { claimName: v.pvc } }
     else if std.objectHas(v, 'hostPath') then { hostPath: { path: v.hostPath } }
     else if std.objectHas(v, 'cephfs') then {
       cephfs: {
         monitors: v.cephfs.monitors,
         path: util.get(v.cephfs, 'path', '/'),
         user: util.get(v.cephfs, 'user', 'admin'),
         secretRef: { name: util.get(v.cephfs, 'secretName', 'cephfs-secret') },
       },
     }
     else error 'volume %s needs one of pvc, hostPath, cephfs' % v.name);

local shmVolume(shm) = {
  name: 'dshm',
  emptyDir: { medium: 'Memory' } + (if std.isString(shm) then { sizeLimit: shm } else {}),
};

{
  envList:: envList,

  // Resources from cpu, memory (requested and limited alike: training wants Guaranteed QoS) and gpu.
  resources(role)::
    local sized = { [k]: role[k] for k in ['cpu', 'memory'] if std.objectHas(role, k) };
    local gpu = if util.get(role, 'gpu', 0) > 0 then { 'nvidia.com/gpu': role.gpu } else {};
    {
      [if sized != {} then 'requests']: sized,
      [if sized + gpu != {} then 'limits']: sized + gpu,
    },

  // Requests and limits as strings (`cpu: 10` becomes '10'), as `kubectl get -o yaml` shows them:
  // the official Python client's models refuse a number where a quantity goes.
  quantitiesAsStrings(resources):: resources {
    [kind]: std.mapWithKey(function(_, q) if std.isNumber(q) then std.toString(q) else q, resources[kind])
    for kind in ['requests', 'limits']
    if std.objectHas(resources, kind) && std.isObject(resources[kind])
  },

  // The pod template of `roleName`; `contractEnv` (a list) goes before the user's environment so
  // that $(VAR) references in the user's values can use it; `extra` adds to the pod spec.
  template(job, roleName, labels, contractEnv=[], extraSpec={})::
    local role = job.roles[roleName];
    local start = util.get(role, 'template', {});
    local startSpec = util.get(start, 'spec', {});
    local startContainers = util.get(startSpec, 'containers', []);
    local base = if startContainers != [] then startContainers[0] else {};
    local volumes = [volume(v) for v in job.volumes]
                    + (if util.get(job, 'shm', false) != false then [shmVolume(job.shm)] else []);
    local mounts = [{ name: v.name, mountPath: v.mountPath } for v in job.volumes]
                   + (if util.get(job, 'shm', false) != false then [{ name: 'dshm', mountPath: '/dev/shm' }] else []);
    local command = util.get(role, 'command', util.get(job, 'command'));
    local args = util.get(role, 'args', util.get(job, 'args'));
    local resources = $.resources(role);
    // The runtime's contract wires the pods; a job's value of one of its variables would be
    // dropped (the first entry is kept), so it is refused instead.
    local contractNames = [e.name for e in contractEnv];
    local overridden = [k for k in std.objectFields(job.env + util.get(role, 'env', {})) if std.member(contractNames, k)];
    assert overridden == [] :
           "env %s: this runtime sets it itself to wire the pods, so the value given would be dropped or would break the wiring; remove it (on the paddle-operator runtime a container's env overrides the operator's config map)" % overridden[0];
    local paddle = base {
      name: util.get(base, 'name', 'paddle'),
      image: util.get(role, 'image', job.image),
      [if command != null then 'command']: command,
      [if args != null then 'args']: args,
      [if util.get(job, 'workingDir') != null then 'workingDir']: job.workingDir,
      [if contractEnv + envList(job.env + util.get(role, 'env', {})) + util.get(base, 'env', []) != [] then 'env']:
        firstOfEachName(contractEnv + util.get(base, 'env', []) + envList(job.env + util.get(role, 'env', {}))),
      [if resources != {} || std.objectHas(base, 'resources') then 'resources']:
        $.quantitiesAsStrings(std.mergePatch(util.get(base, 'resources', {}), resources)),
      [if mounts != [] || std.objectHas(base, 'volumeMounts') then 'volumeMounts']: util.get(base, 'volumeMounts', []) + mounts,
    };
    local metadata = util.get(start, 'metadata', {})
                     + (if job.labels + labels != {} then { labels+: job.labels + labels } else {});
    {
      [if metadata != {} then 'metadata']: metadata,
      spec: startSpec {
        containers: [paddle] + startContainers[1:],
        [if volumes != [] || std.objectHas(startSpec, 'volumes') then 'volumes']: util.get(startSpec, 'volumes', []) + volumes,
        [if job.nodeSelector != {} then 'nodeSelector']: util.get(startSpec, 'nodeSelector', {}) + job.nodeSelector,
        [if job.tolerations != [] then 'tolerations']: util.get(startSpec, 'tolerations', []) + job.tolerations,
        [if util.get(job, 'priorityClass') != null then 'priorityClassName']: job.priorityClass,
      } + extraSpec,
    },

  // Metadata of a top-level object of the job.
  metadata(job, name=job.name, labels={}):: {
    name: name,
    [if job.namespace != null then 'namespace']: job.namespace,
    [if job.labels + labels != {} then 'labels']: job.labels + labels,
  },

  // Metadata of the object Kueue admits: the job's labels and its LocalQueue's.
  queuedMetadata(job)::
    local queue = util.get(job, 'kueueQueue');
    $.metadata(job, labels=if queue != null then { 'kueue.x-k8s.io/queue-name': queue } else {}),

  // Every pod of every role, for gang scheduling.
  totalPods(job):: std.foldl(function(sum, r) sum + job.roles[r].replicas, std.objectFields(job.roles), 0),

  // The gang of `volcano` (the job's volcano settings) as each runtime spells it: the size is
  // minAvailable or minMember, the priority class priorityClass or priorityClassName.
  gang(job, volcano, sizeField='minAvailable', priorityField='priorityClass'):: {
    [sizeField]: util.get(volcano, 'minAvailable', $.totalPods(job)),
    [if std.objectHas(volcano, 'queue') then 'queue']: volcano.queue,
    [if std.objectHas(volcano, 'priorityClass') then priorityField]: volcano.priorityClass,
    [if std.objectHas(volcano, 'minResources') then 'minResources']: volcano.minResources,
  },

  fieldRef(name, path):: { name: name, valueFrom: { fieldRef: { fieldPath: path } } },

  // Pod labels of a role for the runtimes that wire pods themselves: the convention of
  // PaddlePaddle's own Kubernetes scripts (paddle_k8s start_fluid and k8s_tools.py count, wait
  // for and number the pods by them): servers carry paddle-job-pserver=<job>, trainers
  // paddle-job=<job>, never both; paddle-role tells every role apart for selectors.
  roleLabels(job, role, roleName)::
    (if role == 'ps' then { 'paddle-job-pserver': job.name } else { 'paddle-job': job.name })
    + { 'paddle-role': roleName },

  // A ServiceAccount (named like the job) that may read the job's pods, and its Role: tools in the
  // pods wait for their peers and read their addresses through the API (k8s_tools.py).
  podReader(job):: [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: $.metadata(job),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: $.metadata(job),
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: $.metadata(job),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: job.name },
      subjects: [{ kind: 'ServiceAccount', name: job.name }
                 + (if job.namespace != null then { namespace: job.namespace } else {})],
    },
  ],

  // The PADDLE_* contract of a pod, for the runtimes that wire the pods themselves (volcano,
  // kubernetes), as the paddle-operator's config map and pod env define it (v0.3.5,
  // controllers/paddlejob_helper.go: constructConfigMap, constructPod). `hosts(role)` gives the
  // DNS names of a role's pods in order; `podIP` is this pod's, one of them.
  //   Paddle 2.0-2.2's launcher (fleet/cloud_utils.py) needs PADDLE_TRAINERS, POD_IP,
  //   PADDLE_TRAINER_ID and TRAINER_PORTS_NUM, or each pod trains alone; Paddle 3's launcher
  //   reads PADDLE_TRAINER_ENDPOINTS (its first entry is the master) and POD_IP; the PS role
  //   maker reads TRAINING_ROLE, PADDLE_PSERVERS_IP_PORT_LIST, PADDLE_TRAINERS_NUM,
  //   PADDLE_TRAINER_ID, POD_IP and PADDLE_PORT. docs/runtimes.md has the table.
  paddleEnv(job, trainingRole, podIP, hosts)::
    local endpoints(role) = std.join(',', ['%s:%d' % [h, job.port] for h in hosts(role)]);
    local gpus = util.get(job.roles.worker, 'gpu', 0);
    [
      { name: 'PADDLE_JOB_NAME', value: job.name },  // paddle_k8s start_fluid selects pods by it
      { name: 'POD_IP', value: podIP },
      { name: 'PADDLE_PORT', value: std.toString(job.port) },
      { name: 'PADDLE_CURRENT_ENDPOINT', value: '$(POD_IP):%d' % job.port },
      { name: 'PADDLE_TRAINERS_NUM', value: std.toString(job.roles.worker.replicas) },
      { name: 'PADDLE_TRAINERS', value: std.join(',', hosts('worker')) },
      { name: 'PADDLE_TRAINER_ENDPOINTS', value: endpoints('worker') },
      // one port (process) per device: Paddle 2's launcher starts one trainer per GPU
      { name: 'TRAINER_PORTS_NUM', value: std.toString(std.max(1, gpus)) },
      { name: 'TRAINING_ROLE', value: trainingRole },
      { name: 'PADDLE_TRAINING_ROLE', value: trainingRole },
    ] + (if std.objectHas(job.roles, 'ps') then [
           { name: 'PADDLE_PSERVERS_NUM', value: std.toString(job.roles.ps.replicas) },
           { name: 'PADDLE_PSERVERS_IP_PORT_LIST', value: endpoints('ps') },
         ] else []),
}
