// A Tanka environment: the operator with Volcano scheduling, and one training job.
// After `jb install` (jsonnetfile.json), `tk show environments/default` renders it; the
// libraries resolve from vendor/ as `paddle-operator/...` and `paddlejob/...`.
local paddle = import 'paddle-operator/main.libsonnet';
local paddlejob = import 'paddlejob/main.libsonnet';

local operator = paddle.new({ scheduling: 'volcano', watchNamespace: 'training' });
local resnet =
  paddlejob.new('resnet', 'registry.baidubce.com/paddle-operator/demo-resnet:v1')
  + paddlejob.withNamespace('training')
  + paddlejob.withCommand(['python', '-m', 'paddle.distributed.launch', 'train_fleet.py'])
  + paddlejob.worker(2, gpu=1)
  + paddlejob.withShm()
  + paddlejob.withVolcano(queue='default');

local jobManifests = paddlejob.render(resnet);

{
  crd: operator.crd,
  operator: operator.operator,
  training: {
    namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'training' } },
    jobs: { [m.kind + '-' + m.metadata.name]: m for m in jobManifests },
  },
}
