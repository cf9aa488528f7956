// Example 1 of the docs: wide & deep in parameter-server mode, on CPUs.
// The same as: paddlejob-manifests job wide-and-deep --image registry.baidubce.com/paddle-operator/demo-wide-and-deep:v1 --ps 2 --workers 2 --with-gloo 1 --clean-pod-policy Never
local paddlejob = import 'paddlejob/main.libsonnet';

paddlejob.render(
  paddlejob.new('wide-and-deep', 'registry.baidubce.com/paddle-operator/demo-wide-and-deep:v1')
  + paddlejob.ps(2)
  + paddlejob.worker(2)
  + paddlejob.withGloo(1)
  + paddlejob.withCleanPodPolicy('Never')
)
