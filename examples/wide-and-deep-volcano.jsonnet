// Example 4: gang scheduling with Volcano: no pod starts before all four can.
// The docs pair the job with a hand-written PodGroup of the same name and set schedulerName
// on the workers only; here every pod uses Volcano and the job says its gang size too (the
// operator creates the PodGroup itself when it runs with --scheduling=volcano).
// The same as: paddlejob-manifests job wide-and-deep-volcano --image registry.baidubce.com/paddle-operator/demo-wide-and-deep:v1 --ps 2 --workers 2 --clean-pod-policy Never --volcano --podgroup
// No withGloo (the docs set 1): with intranet PodIP the operator gives the gloo endpoint
// server 0's own port (validate: paddlejob-gloo-endpoint).
local paddlejob = import 'paddlejob/main.libsonnet';

paddlejob.render(
  paddlejob.new('wide-and-deep-volcano', 'registry.baidubce.com/paddle-operator/demo-wide-and-deep:v1')
  + paddlejob.ps(2)
  + paddlejob.worker(2)
  + paddlejob.withCleanPodPolicy('Never')
  + paddlejob.withVolcano(podGroup=true)
)
