// The rules a job description must follow, and what each runtime can express.
// check(job, runtime) returns the job with its defaults filled in, or stops with an error that
// names the field, the value and what is allowed.
local lifecycle = import 'lifecycle.libsonnet';
local util = import 'util.libsonnet';
local has(obj, field) = std.objectHas(obj, field) && obj[field] != null;
local isCount(n, least) = std.isNumber(n) && n == std.floor(n) && n >= least;
// A value as a message shows it: a string quoted, so that "2" does not read as 2.
local shown(v) = if std.isString(v) then "the string '%s'" % v else std.toString(v);

// Which runtime can express which feature: features.libsonnet, the one table.
local support = (import 'features.libsonnet').support;
local whyNot = (import 'features.libsonnet').whyNot;

// Pod names are <job>-<role>-<index> with these role names, and they are host names too.
local roleNames = { [r.name]: r.roleNames for r in (import 'runtimes.json').runtimes };

// spec's enums, generated from schemas/paddlejob.v1.yaml by `make manifests`.
local enums = import 'generated/spec-enums.json';
local oneOf(values) =
  local shown = [if std.isString(v) then v else std.toString(v) for v in values];
  std.join(', ', shown[:std.length(shown) - 1]) + ' or ' + shown[std.length(shown) - 1];

local usedFeatures(job) = std.prune([
  if std.objectHas(job.roles, 'ps') then 'parameter-server mode (ps)',
  if std.objectHas(job.roles, 'heter') then 'heter mode (heter)',
  if has(job, 'cleanPodPolicy') then 'cleanPodPolicy',
  if has(job, 'intranet') then 'intranet',
  if has(job, 'withGloo') then 'withGloo',
  if has(job, 'elastic') then 'elastic',
  if has(job, 'port') then 'port',
  if has(job, 'volcano') then 'Volcano gang scheduling (volcano)',
  if has(job, 'volcano') && util.get(job.volcano, 'podGroup', false) then 'a hand-written PodGroup (volcano.podGroup)',
  if has(job, 'volcano') && util.get(job.volcano, 'minResources') != null then "the gang's minResources (volcano.minResources)",
  if has(job, 'kueueQueue') then 'Kueue queue (kueueQueue)',
  if util.get(job, 'coscheduling', false) == true then 'scheduler-plugins gang scheduling (coscheduling)',
  if has(job, 'ttl') then 'ttl after finishing (ttl)',
  if has(job, 'deadline') then 'active deadline (deadline)',
  if has(job, 'backoffLimit') then 'retries (backoffLimit)',
  if util.get(job, 'suspend', false) == true then 'suspend',
  if has(job, 'managedBy') then 'managedBy',
  if has(job, 'priorityClass') then 'priority class (priorityClass)',
]);

local isLabel(name) =
  local chars = std.stringChars(name);
  std.length(name) > 0 && std.length(name) <= 63
  && util.all([std.member('abcdefghijklmnopqrstuvwxyz0123456789-', c) for c in chars])
  && std.member('abcdefghijklmnopqrstuvwxyz', chars[0])
  && chars[std.length(chars) - 1] != '-';

// Paddle's launcher runs elastic training for collective jobs only (CollectiveElasticController);
// the runtimes create the most workers, and the launchers train with MIN to MAX of them.
local checkElastic(job, e, roles) =
  assert std.isObject(e) : 'elastic must be an object {etcd, minReplicas, maxReplicas, maxRestart, level, timeout}';
  assert std.objectHas(roles, 'worker') && std.length(roles) == 1 :
         "elastic training is collective (Paddle's launcher has no elastic parameter-server mode): give roles.worker only";
  local most = util.get(e, 'maxReplicas', roles.worker.replicas);
  local fewest = util.get(e, 'minReplicas', most);
  assert isCount(most, 1) : 'elastic.maxReplicas must be a whole number >= 1, got %s' % shown(most);
  assert isCount(fewest, 1) : 'elastic.minReplicas must be a whole number >= 1, got %s' % shown(fewest);
  assert fewest <= most : 'elastic.minReplicas (%d) must not exceed elastic.maxReplicas (%d)' % [fewest, most];
  assert most == roles.worker.replicas :
         'elastic.maxReplicas (%d) must equal roles.worker.replicas (%d): the runtimes create the most workers, and the launchers train with between minReplicas and maxReplicas of them' % [most, roles.worker.replicas];
  assert isCount(util.get(e, 'maxRestart', 3), 0) : 'elastic.maxRestart must be a whole number >= 0, got %s' % shown(util.get(e, 'maxRestart'));
  assert isCount(util.get(e, 'timeout', 30), 1) : 'elastic.timeout must be a whole number of seconds >= 1, got %s' % shown(util.get(e, 'timeout'));
  assert std.member([-1, 0, 1], util.get(e, 'level', 1)) :
         "elastic.level must be 1 (the survivors meet again), 0 (a failed pod exits, the others hold) or -1 (all exit), Paddle's launcher's --elastic_level; got %s" % util.get(e, 'level');
  local templateContainers = util.get(util.get(util.get(roles.worker, 'template', {}), 'spec', {}), 'containers', []);
  assert util.get(roles.worker, 'command', util.get(job, 'command')) != null
         || (templateContainers != [] && util.get(templateContainers[0], 'command') != null) :
         "elastic training needs the workers' command: Paddle's launcher, python -m paddle.distributed.launch ...";
  local etcd = util.get(e, 'etcd');
  assert etcd == null || (std.isString(etcd) && std.length(std.split(etcd, ':')) == 2 && !std.startsWith(etcd, 'etcd://')) :
         "elastic.etcd must be host:port (the launcher adds etcd://), got '%s'" % etcd;
  true;

local checkRole(name, r) =
  assert isCount(util.get(r, 'replicas'), 1) :
         'roles.%s.replicas must be a whole number >= 1, got %s' % [name, shown(util.get(r, 'replicas'))];
  assert isCount(util.get(r, 'gpu', 0), 0) :
         'roles.%s.gpu must be a whole number >= 0, got %s' % [name, shown(util.get(r, 'gpu'))];
  true;

{
  support:: support,
  roleNames:: roleNames,

  check(job, runtime, releases={})::
    assert std.isString(util.get(job, 'name')) : 'must provide name';
    assert isLabel(job.name) :
           "name '%s' must be a DNS-1035 label: lower-case letters, digits and '-', starting with a letter, at most 63" % job.name;
    assert std.isString(util.get(job, 'image')) && job.image != '' : 'must provide image';
    local roles = util.get(job, 'roles', {});
    assert std.length(roles) > 0 : 'must provide a role: worker (collective), or ps and worker (parameter-server)';
    assert util.all([std.member(['ps', 'worker', 'heter'], r) for r in std.objectFields(roles)]) :
           'roles are ps, worker and heter, got %s' % std.join(', ', std.objectFields(roles));
    assert util.all([checkRole(r, roles[r]) for r in std.objectFields(roles)]);
    assert !std.objectHas(roles, 'ps') || std.objectHas(roles, 'worker') : 'roles.ps needs roles.worker: PS mode runs servers and trainers';
    assert !std.objectHas(roles, 'heter') || (std.objectHas(roles, 'ps') && std.objectHas(roles, 'worker')) :
           'roles.heter needs roles.ps and roles.worker';
    local bad = [f for f in std.objectFields(enums) if has(job, f) && !std.member(enums[f], job[f])];
    assert bad == [] :
           local f = bad[0];
           local got = if std.isString(job[f]) then "'%s'" % job[f] else std.toString(job[f]);
           '%s must be %s, got %s' % [f, oneOf(enums[f]), got];
    assert !has(job, 'elastic') || checkElastic(job, job.elastic, roles);
    local counts = [['ttl', 0, 'whole number of seconds'], ['deadline', 1, 'whole number of seconds'], ['backoffLimit', 0, 'whole number']];
    local badCount = [c for c in counts if has(job, c[0]) && !isCount(job[c[0]], c[1])];
    assert badCount == [] :
           local c = badCount[0];
           '%s must be a %s >= %d, got %s' % [c[0], c[2], c[1], shown(job[c[0]])];
    assert !has(job, 'suspend') || std.isBoolean(job.suspend) : 'suspend must be true or false, got %s' % job.suspend;
    local strings = [f for f in ['managedBy', 'priorityClass'] if has(job, f) && !(std.isString(job[f]) && job[f] != '')];
    assert strings == [] : '%s must be a non-empty string' % strings[0];
    // Paddle's pods wait for every peer (the launcher for PADDLE_NNODES or the endpoint list, the
    // PS role maker for every server): a gang smaller than that starts pods that hold their
    // resources while they wait for the rest. An elastic job trains with its fewest workers.
    local gangSize = if has(job, 'volcano') then util.get(job.volcano, 'minAvailable') else null;
    local total = std.foldl(function(sum, r) sum + roles[r].replicas, std.objectFields(roles), 0);
    local needed = if has(job, 'elastic')
    then util.get(job.elastic, 'minReplicas', roles.worker.replicas)
    else total;
    assert gangSize == null || !std.isNumber(gangSize) || gangSize >= needed :
           'volcano.minAvailable (%d) is below the %d pods the job needs together: %s; give at least %d, or leave it out (every pod)' % [
      gangSize,
      needed,
      if has(job, 'elastic') then "an elastic job's launchers train with no fewer than elastic.minReplicas workers"
      else "Paddle's pods wait for all their peers, so a smaller gang starts pods that hold their resources waiting for the rest",
      needed,
    ];
    local missing = [f for f in usedFeatures(job) if !std.member(support[f], runtime)];
    assert missing == [] :
           local why = util.get(whyNot[missing[0]], runtime);
           '%s cannot be expressed on the %s runtime%s; runtimes that have it: %s' % [
      missing[0],
      runtime,
      if why == null then '' else ' (%s)' % why,
      std.join(', ', support[missing[0]]),
    ];
    local tooLong = [
      '%s-%s-%d' % [job.name, roleNames[runtime][r], roles[r].replicas - 1]
      for r in std.objectFields(roles)
      if std.length('%s-%s-%d' % [job.name, roleNames[runtime][r], roles[r].replicas - 1]) > 63
    ];
    assert tooLong == [] :
           "name '%s' is too long: pod and host name '%s' would exceed 63 characters" % [job.name, tooLong[0]];
    // What the lifecycle flags promise, held to each runtime's controller (issue 34).
    assert lifecycle.check(job, runtime, releases);
    { namespace: null, port: 36543, env: {}, labels: {}, volumes: [], nodeSelector: {}, tolerations: [] } + job,
}
