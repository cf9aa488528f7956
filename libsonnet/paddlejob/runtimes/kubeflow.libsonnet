// kubeflow: the Kubeflow training-operator's kubeflow.org/v1 PaddleJob. Collective jobs only
// (Worker replicas; the training operator sets the PADDLE_* environment); the Paddle container
// must be named `paddle`. cleanPodPolicy maps Always -> All and Never -> None; the outcome-based
// policies (OnFailure, OnCompletion) have no counterpart there.
local pod = import '../pod.libsonnet';
local util = import '../util.libsonnet';

local cleanPodPolicies = { Always: 'All', Never: 'None' };

{
  render(job)::
    local volcano = util.get(job, 'volcano');
    local elastic = util.get(job, 'elastic');
    local policy = util.get(job, 'cleanPodPolicy');
    assert policy == null || std.objectHas(cleanPodPolicies, policy) :
           'cleanPodPolicy %s cannot be expressed on the kubeflow runtime (it has All, Running, None); use Always or Never' % policy;
    local template = pod.template(job, 'worker', {}, pod.elasticEnv(job));
    assert template.spec.containers[0].name == 'paddle' :
           "the Paddle container must be named 'paddle' on the kubeflow runtime, got '%s'" % template.spec.containers[0].name;
    [{
      apiVersion: 'kubeflow.org/v1',
      kind: 'PaddleJob',
      metadata: pod.metadata(job),
      spec: {
        [if policy != null || volcano != null then 'runPolicy']: {
          [if policy != null then 'cleanPodPolicy']: cleanPodPolicies[policy],
          [if volcano != null then 'schedulingPolicy']: pod.gang(job, volcano),
        },
        [if elastic != null then 'elasticPolicy']: {
          [if std.objectHas(elastic, 'minReplicas') then 'minReplicas']: elastic.minReplicas,
          [if std.objectHas(elastic, 'maxReplicas') then 'maxReplicas']: elastic.maxReplicas,
        },
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
