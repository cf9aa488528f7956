// Elastic, fault-tolerant resnet: 2 to 4 workers that register with etcd, and that etcd.
// The same job without the etcd: paddlejob-manifests job resnet-elastic --image registry.baidubce.com/paddle-operator/demo-resnet:v1 --workers 2 --gpus 1 --shm --command "fleetrun train_fleet.py" --elastic --etcd paddle-elastic-etcd:2379 --min-workers 2 --max-workers 4
// fleetrun: Paddle 2.3+'s paddle.distributed.launch ignores the operator's PADDLE_ELASTIC_* and each
// pod would train alone (validate: paddlejob-elastic-launcher).
local paddlejob = import 'paddlejob/main.libsonnet';

local etcdLabels = { app: 'paddle-elastic-etcd' };
local etcd = [
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'paddle-elastic-etcd' },
    spec: { selector: etcdLabels, ports: [{ name: 'client', port: 2379, targetPort: 2379 }] },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'paddle-elastic-etcd', labels: etcdLabels },
    spec: {
      replicas: 1,
      selector: { matchLabels: etcdLabels },
      template: {
        metadata: { labels: etcdLabels },
        spec: {
          containers: [{
            name: 'etcd',
            image: 'registry.k8s.io/etcd:3.5.12-0',
            command: [
              'etcd',
              '--data-dir=/var/lib/etcd',
              '--listen-client-urls=http://0.0.0.0:2379',
              '--advertise-client-urls=http://paddle-elastic-etcd:2379',
            ],
            ports: [{ containerPort: 2379, name: 'client' }],
            volumeMounts: [{ name: 'data', mountPath: '/var/lib/etcd' }],
          }],
          volumes: [{ name: 'data', emptyDir: {} }],
        },
      },
    },
  },
];

etcd + paddlejob.render(
  paddlejob.new('resnet-elastic', 'registry.baidubce.com/paddle-operator/demo-resnet:v1')
  + paddlejob.withCommand(['fleetrun', 'train_fleet.py'])
  + paddlejob.worker(2, gpu=1)
  + paddlejob.withShm()
  + paddlejob.withElastic('paddle-elastic-etcd:2379', minReplicas=2, maxReplicas=4)
)
