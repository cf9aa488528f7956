// What each runtime can express, and how: the one table that the render's checks
// (checks.libsonnet), the runtime list of the CLI and the Python API, and the table in
// docs/runtimes.md (written by `make manifests`) are made from. The features are listed here;
// each runtime's column is its builder's `features` (runtimes/*.libsonnet): `how` it expresses a
// feature, or `why` it cannot. A runtime without a `how` cannot express the feature: the render
// stops and names the runtimes that can. A feature with `every` is one every runtime has, with
// that text unless its builder says otherwise.
local runtimes = (import 'runtimes.json').runtimes;
local builders = import 'runtimes/builders.libsonnet';
local column(r) = { how: {}, why: {} } + builders[r.builder].features;

local features = [
  { name: 'collective mode: workers only', field: '`roles.worker`, `--workers`' },
  { name: 'parameter-server mode (ps)', field: '`roles.ps`, `--ps`' },
  { name: 'heter mode (heter)', field: '`roles.heter`, `--heter`' },
  { name: 'GPUs, CPU, memory', field: '`gpu`, `cpu`, `memory`, `--gpus`', every: '`nvidia.com/gpu` limit; CPU and memory requested = limited' },
  { name: 'placement, shared memory, data volumes', field: '`nodeSelector`, `tolerations`, `shm`, `volumes`', every: 'in every pod template' },
  { name: 'cleanPodPolicy', field: '`cleanPodPolicy`, `--clean-pod-policy`' },
  { name: 'intranet', field: '`intranet`, `--intranet`' },
  { name: 'withGloo', field: '`withGloo`, `--with-gloo`' },
  { name: 'elastic', field: '`elastic`, `--elastic --etcd`' },
  { name: 'port', field: '`port`, `--port`' },
  { name: 'Volcano gang scheduling (volcano)', field: '`volcano`, `--volcano`' },
  { name: 'a hand-written PodGroup (volcano.podGroup)', field: '`volcano.podGroup`, `--podgroup`' },
  { name: "the gang's minResources (volcano.minResources)", field: '`volcano.minResources`' },
  { name: 'Kueue queue (kueueQueue)', field: '`kueueQueue`, `--kueue-queue`' },
  { name: 'scheduler-plugins gang scheduling (coscheduling)', field: '`coscheduling`, `--coscheduling`' },
  // The lifecycle: one vocabulary, each runtime's own field.
  { name: 'ttl after finishing (ttl)', field: '`ttl`, `--ttl`' },
  { name: 'active deadline (deadline)', field: '`deadline`, `--deadline`' },
  { name: 'retries (backoffLimit)', field: '`backoffLimit`, `--backoff-limit`' },
  { name: 'suspend', field: '`suspend`, `--suspend`' },
  { name: 'managedBy', field: '`managedBy`, `--managed-by`' },
  { name: 'priority class (priorityClass)', field: '`priorityClass`, `--priority-class`' },
];

local names = [f.name for f in features];
local unknown = [
  '%s: %s' % [r.builder, k]
  for r in runtimes
  for k in std.objectFields(column(r).how) + std.objectFields(column(r).why)
  if !std.member(names, k)
];
assert unknown == [] : 'runtimes/%s names no feature of features.libsonnet' % unknown[0];

{
  // The runtimes, in the order of runtimes.json (the CLI's choices, the docs' columns).
  runtimes: [r.name for r in runtimes],

  features: [
    f {
      how: {
        [r.name]: if std.objectHas(column(r).how, f.name) then column(r).how[f.name] else f.every
        for r in runtimes
        if std.objectHas(column(r).how, f.name) || std.objectHas(f, 'every')
      },
      why: { [r.name]: column(r).why[f.name] for r in runtimes if std.objectHas(column(r).why, f.name) },
    }
    for f in features
  ],

  // feature name -> the runtimes that have it
  support:: { [f.name]: [r for r in $.runtimes if std.objectHas(f.how, r)] for f in $.features },
  // feature name -> runtime -> why it cannot express the feature
  whyNot:: { [f.name]: f.why for f in $.features },
}
