// Elastic, fault-tolerant resnet on Volcano: 4 workers whose launchers meet at the job's own etcd,
// and training goes on with 2 or 3 of them when some fail (the survivors meet again, at most 3
// times; a failed pod restarts alone). Paddle's launcher (2.3+) runs it from its environment:
// PADDLE_MASTER=etcd://..., PADDLE_NNODES=2:4 (libsonnet/paddlejob/elastic.libsonnet). The Job
// completes with 2 workers (minSuccess) and gangs 2 (minAvailable). Not on paddle-operator v0.3.5,
// which trains with every worker or none (issue 34).
// The same job: paddlejob-manifests job resnet-elastic --image registry.baidubce.com/paddle-operator/demo-resnet:v1 --workers 4 --gpus 1 --shm --command "python -m paddle.distributed.launch train_fleet.py" --elastic --min-workers 2 --runtime volcano
local paddlejob = import 'paddlejob/main.libsonnet';

paddlejob.render(
  paddlejob.new('resnet-elastic', 'registry.baidubce.com/paddle-operator/demo-resnet:v1')
  + paddlejob.withCommand(['python', '-m', 'paddle.distributed.launch', 'train_fleet.py'])
  + paddlejob.worker(4, gpu=1)
  + paddlejob.withShm()
  + paddlejob.withElastic(minReplicas=2),
  'volcano'
)
