// Elastic collective training through Paddle's own launcher (2.3 and newer, 3.x), the same on
// every runtime that can host it. `python -m paddle.distributed.launch` reads its settings from
// the environment (launch/context/args_envs.py, env_args_mapping): with PADDLE_MASTER an
// etcd:// URL its CollectiveElasticController runs (launch/controllers/collective.py, 3.3.1):
// each pod registers a heartbeat under PADDLE_JOB_ID, waits for between MIN and MAX of
// PADDLE_NNODES peers (PADDLE_ELASTIC_TIMEOUT seconds for more than MIN), and trains with those.
// When a peer fails, PADDLE_ELASTIC_LEVEL 1 makes the others stop their trainers and meet again
// (controller.py `watch`: "internal restart"), at most PADDLE_MAX_RESTART times; the launcher's
// default, -1, makes them exit instead. The paddle-operator's own `spec.elastic` needs a launcher
// older than 2.3 and is not used.
//
// The etcd is the one given (`elastic.etcd`, host:port), or the job's own: a one-pod StatefulSet
// and a Service `<job>-etcd` in the job's namespace, which the bundle holds.
local pod = import 'pod.libsonnet';
local util = import 'util.libsonnet';

local etcdImage = 'quay.io/coreos/etcd:v3.5.17';
local etcdPort = 2379;

{
  // The description's elastic settings, or null.
  of(job):: util.get(job, 'elastic'),

  // The most workers: the pods every runtime creates.
  most(job):: util.get($.of(job), 'maxReplicas', job.roles.worker.replicas),
  // The fewest workers the launcher trains with.
  fewest(job):: util.get($.of(job), 'minReplicas', $.most(job)),

  etcdName(job):: '%s-etcd' % job.name,

  // host:port of the etcd the launchers meet at.
  endpoint(job)::
    local given = util.get($.of(job), 'etcd');
    if given != null then given else '%s:%d' % [$.etcdName(job), etcdPort],

  // The launcher's settings, for the worker containers (nothing when the job is not elastic).
  env(job)::
    local elastic = $.of(job);
    if elastic == null then [] else [
      { name: 'PADDLE_MASTER', value: 'etcd://' + $.endpoint(job) },
      { name: 'PADDLE_NNODES', value: '%d:%d' % [$.fewest(job), $.most(job)] },
      { name: 'PADDLE_JOB_ID', value: job.name },
      { name: 'PADDLE_ELASTIC_LEVEL', value: std.toString(util.get(elastic, 'level', 1)) },
      { name: 'PADDLE_MAX_RESTART', value: std.toString(util.get(elastic, 'maxRestart', 3)) },
      // The launcher's etcd client (etcd3 0.12, which the image must have) imports its generated
      // protobuf modules under Paddle's protobuf >= 4 only with the pure-Python implementation.
      { name: 'PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION', value: 'python' },
    ] + (
      if std.objectHas(elastic, 'timeout') then [{ name: 'PADDLE_ELASTIC_TIMEOUT', value: std.toString(elastic.timeout) }] else []
    ),

  // What a fixed-size collective job's contract sets and an elastic worker must not have:
  // PADDLE_TRAINER_ENDPOINTS makes the launcher's plugin collective_compatible
  // (launch/plugins/__init__.py) replace the etcd master with its first entry and the node
  // range with the host count; PADDLE_TRAINER_ID pins the rank (args_envs.py parse_args), and
  // ETCDMaster.sync_peers fails (IndexError) when fewer than the most have met.
  notForElastic:: ['PADDLE_TRAINER_ENDPOINTS', 'PADDLE_TRAINER_ID'],

  // ``env`` (a contract) without what an elastic worker must not have; as it is otherwise.
  contract(job, env)::
    if $.of(job) == null then env else [e for e in env if !std.member($.notForElastic, e.name)],

  // ``command`` started through a shell that unsets those names first: for a controller that
  // sets them itself (the paddle-operator: constructPod and its ConfigMap).
  unsetting(command)::
    ['sh', '-c', 'unset %s; exec "$0" "$@"' % std.join(' ', $.notForElastic)] + command,

  // The job's own etcd (a Service and a one-pod StatefulSet), when no endpoint is given.
  etcd(job)::
    local elastic = $.of(job);
    local labels = { 'paddle-etcd': job.name };
    if elastic == null || util.get(elastic, 'etcd') != null then [] else [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: pod.metadata(job, $.etcdName(job), labels),
        // headless: the StatefulSet's pod gets its DNS name, and <job>-etcd resolves to it
        spec: {
          clusterIP: 'None',
          publishNotReadyAddresses: true,
          selector: labels,
          ports: [{ name: 'client', port: etcdPort, targetPort: etcdPort }],
        },
      },
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: pod.metadata(job, $.etcdName(job), labels),
        spec: {
          serviceName: $.etcdName(job),
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels: job.labels + labels },
            spec: {
              containers: [{
                name: 'etcd',
                image: etcdImage,
                command: [
                  'etcd',
                  '--name=etcd',
                  '--data-dir=/var/run/etcd/data',
                  '--listen-client-urls=http://0.0.0.0:%d' % etcdPort,
                  '--advertise-client-urls=http://%s:%d' % [$.etcdName(job), etcdPort],
                ],
                ports: [{ name: 'client', containerPort: etcdPort }],
                volumeMounts: [{ name: 'data', mountPath: '/var/run/etcd' }],
              }],
              volumes: [{ name: 'data', emptyDir: {} }],
            },
          },
        },
      },
    ],
}
