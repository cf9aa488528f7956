// Example 1 of the docs: wide & deep in parameter-server mode, on CPUs.
// The same as: paddlejob-manifests job wide-and-deep --image registry.baidubce.com/paddle-operator/demo-wide-and-deep:v1 --ps 2 --workers 2 --clean-pod-policy Never
// No withGloo (the docs set 1): with intranet PodIP the operator gives the gloo endpoint
// server 0's own port (validate: paddlejob-gloo-endpoint).
local paddlejob = import 'paddlejob/main.libsonnet';

paddlejob.render(
  paddlejob.new('wide-and-deep', 'registry.baidubce.com/paddle-operator/demo-wide-and-deep:v1')
  + paddlejob.ps(2)
  + paddlejob.worker(2)
  + paddlejob.withCleanPodPolicy('Never')
)
