// The paddle-operator install bundle, kube-prometheus style: `new(params)` merges `params` over
// the documented defaults in config.libsonnet and returns the objects, grouped by file.
//
//   local paddle = import 'paddle-operator/main.libsonnet';
//   paddle.new({ namespace: 'training', scheduling: 'volcano' })
//
// gives { crd: <CustomResourceDefinition>, jobs: { namespace: ... }, operator: { namespace: ...,
// deployment: ..., ... } }.
local defaults = import 'config.libsonnet';
local crd = import 'crd.libsonnet';
local operator = import 'operator.libsonnet';

local check(c) =
  assert std.member(['v1', 'v1beta1'], c.api.target.apiextensions) :
         "apiextensions must be 'v1' or 'v1beta1', got '%s'" % c.api.target.apiextensions;
  assert std.member(['', 'volcano'], c.scheduling) :
         "scheduling must be '' or 'volcano', got '%s'" % c.scheduling;
  assert std.isString(c.image) && c.image != '' : 'must provide image';
  assert std.isString(c.namespace) && c.namespace != '' : 'must provide namespace';
  assert std.isNumber(c.replicas) && c.replicas >= 0 && c.replicas == std.floor(c.replicas) :
         'replicas must be a whole number >= 0, got %s' % c.replicas;
  assert std.member(operator.podSecurityLevels + [''], c.podSecurity) :
         "podSecurity must be 'restricted', 'baseline', 'privileged' or '', got '%s'" % c.podSecurity;
  assert std.member(operator.podSecurityLevels, c.jobPodSecurity) :
         "jobPodSecurity must be 'restricted', 'baseline' or 'privileged', got '%s'" % c.jobPodSecurity;
  assert c.jobNamespace != c.namespace :
         "jobNamespace must differ from namespace ('%s'), whose Pod Security level is the controller's; " % c.namespace
         + "set jobNamespace to '' to run jobs there, with a podSecurity their pods meet";
  local taken = [key for key in std.objectFields(c.labels) if std.member(operator.ownLabels, key)];
  assert taken == [] :
         "labels: the bundle sets '%s' itself; use namespace, podSecurity or jobPodSecurity instead" % taken[0];
  c;

{
  defaults:: defaults,

  new(params={})::
    // resources merge one level deep: giving requests keeps the default limits
    local c = check(defaults + params + {
      resources: defaults.resources + (if std.objectHas(params, 'resources') then params.resources else {}),
    });
    {
      config:: c,
      crd: (
        if c.api.target.apiextensions == 'v1'
        then crd.v1(c.api, c.labels)
        else crd.v1beta1(c.api, c.labels, if c.api.capabilities.preserveUnknownFields then false else null)
      ) + (if c.keepJobs then { metadata+: { annotations: operator.keepAnnotations(c) } } else {}),
      // The jobs' namespace: a file of its own, so removing the operator keeps it (and its jobs).
      [if c.jobNamespace != '' then 'jobs']: { namespace: operator.jobNamespace(c) },
      operator: {
        [if c.createNamespace then 'namespace']: operator.namespace(c),
        serviceAccount: operator.serviceAccount(c),
        leaderElectionRole: operator.leaderElectionRole(c),
        leaderElectionRoleBinding: operator.leaderElectionRoleBinding(c),
        managerRole: operator.managerRole(c),
        managerRoleBinding: operator.managerRoleBinding(c),
        managerConfig: operator.managerConfig(c),
        deployment: operator.deployment(c),
        [if c.networkPolicy then 'networkPolicy']: operator.networkPolicy(c),
      } + (
        if c.trainerRuntimes && c.api.target.apiextensions == 'v1' then {
          ['trainerRuntime-' + r.metadata.name]: r { metadata+: { labels+: c.labels } }
          for r in c.trainerRuntimeObjects
        } else {}
      ),
    },
}
