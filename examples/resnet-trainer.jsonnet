// resnet, collective on GPUs, as a Kubeflow Trainer v2 TrainJob on this project's
// paddle-distributed ClusterTrainingRuntime (deploy/trainer/), gang-scheduled by Volcano
// through Trainer's Volcano plugin and admitted by Kueue.
// The same as: paddlejob-manifests job resnet-trainer --image registry.baidubce.com/paddle-operator/demo-resnet:v1 --workers 2 --gpus 1 --shm --command "python -m paddle.distributed.launch train_fleet.py" --volcano --queue gpu --kueue-queue team-a --runtime kubeflow-trainer
local paddlejob = import 'paddlejob/main.libsonnet';

paddlejob.render(
  paddlejob.new('resnet-trainer', 'registry.baidubce.com/paddle-operator/demo-resnet:v1')
  + paddlejob.withCommand(['python', '-m', 'paddle.distributed.launch', 'train_fleet.py'])
  + paddlejob.worker(2, gpu=1)
  + paddlejob.withShm()
  + paddlejob.withVolcano(queue='gpu')
  + paddlejob.withKueue('team-a'),
  'kubeflow-trainer'
)
