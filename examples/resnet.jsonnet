// Example 2: resnet in collective mode on GPUs. GPU data loaders need a larger /dev/shm.
// The same as: paddlejob-manifests job resnet --image registry.baidubce.com/paddle-operator/demo-resnet:v1 --workers 2 --gpus 1 --shm --command "python -m paddle.distributed.launch train_fleet.py" --clean-pod-policy Never
local paddlejob = import 'paddlejob/main.libsonnet';

paddlejob.render(
  paddlejob.new('resnet', 'registry.baidubce.com/paddle-operator/demo-resnet:v1')
  + paddlejob.withCommand(['python', '-m', 'paddle.distributed.launch', 'train_fleet.py'])
  + paddlejob.worker(2, gpu=1)
  + paddlejob.withShm()
  + paddlejob.withCleanPodPolicy('Never')
)
