// Example 3: GPUs on chosen nodes. (Not intranet Service: the operator then sets POD_IP to the
// pod's name, which Paddle 2.3+'s launcher ignores, and the pods wait for ever; see docs/runtimes.md.)
// The same as: paddlejob-manifests job wide-and-deep-gpu --image registry.baidubce.com/paddle-operator/demo-wide-and-deep:v1 --ps 2 --workers 2 --gpus 1 --node-selector accelerator=nvidia-tesla-p100 --clean-pod-policy Never
// (the CLI's --gpus is for workers; here the servers get a GPU too, as in the docs)
local paddlejob = import 'paddlejob/main.libsonnet';

paddlejob.render(
  paddlejob.new('wide-and-deep-gpu', 'registry.baidubce.com/paddle-operator/demo-wide-and-deep:v1')
  + paddlejob.ps(2, gpu=1)
  + paddlejob.worker(2, gpu=1)
  + paddlejob.withNodeSelector({ accelerator: 'nvidia-tesla-p100' })
  // Never, not the docs' OnCompletion: v0.3.5 never marks a job with parameter servers Completed
  // (validate: paddlejob-clean-pod-policy), so that policy never fires
  + paddlejob.withCleanPodPolicy('Never')
)
