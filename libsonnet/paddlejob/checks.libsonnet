// The rules a job description must follow, and what each runtime can express.
// check(job, runtime) returns the job with its defaults filled in, or stops with an error that
// names the field, the value and what is allowed.
local util = import 'util.libsonnet';
local has(obj, field) = std.objectHas(obj, field) && obj[field] != null;
local isCount(n, least) = std.isNumber(n) && n == std.floor(n) && n >= least;

// Which runtime can express which feature: features.libsonnet, the one table.
local support = (import 'features.libsonnet').support;

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
]);

local isLabel(name) =
  local chars = std.stringChars(name);
  std.length(name) > 0 && std.length(name) <= 63
  && util.all([std.member('abcdefghijklmnopqrstuvwxyz0123456789-', c) for c in chars])
  && std.member('abcdefghijklmnopqrstuvwxyz', chars[0])
  && chars[std.length(chars) - 1] != '-';

local checkRole(name, r) =
  assert isCount(util.get(r, 'replicas'), 1) :
         'roles.%s.replicas must be a whole number >= 1, got %s' % [name, util.get(r, 'replicas')];
  assert isCount(util.get(r, 'gpu', 0), 0) :
         'roles.%s.gpu must be a whole number >= 0, got %s' % [name, util.get(r, 'gpu')];
  true;

{
  support:: support,
  roleNames:: roleNames,

  check(job, runtime)::
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
    assert !has(job, 'elastic') || std.objectHas(roles, 'worker') : 'elastic needs roles.worker';
    assert !has(job, 'elastic') || runtime != 'paddle-operator' || std.isString(util.get(job.elastic, 'etcd')) :
           'elastic.etcd must give the etcd endpoint (host:port) the pods register with';
    local missing = [f for f in usedFeatures(job) if !std.member(support[f], runtime)];
    assert missing == [] :
           '%s cannot be expressed on the %s runtime; runtimes that have it: %s' % [missing[0], runtime, std.join(', ', support[missing[0]])];
    local tooLong = [
      '%s-%s-%d' % [job.name, roleNames[runtime][r], roles[r].replicas - 1]
      for r in std.objectFields(roles)
      if std.length('%s-%s-%d' % [job.name, roleNames[runtime][r], roles[r].replicas - 1]) > 63
    ];
    assert tooLong == [] :
           "name '%s' is too long: pod and host name '%s' would exceed 63 characters" % [job.name, tooLong[0]];
    { namespace: null, port: 36543, env: {}, labels: {}, volumes: [], nodeSelector: {}, tolerations: [] } + job,
}
