// The CTR job as one JobSet (kubernetes-sigs/jobset): replicated Jobs `ps` and `trainer`, the
// servers started first (startupPolicy InOrder) and stopped when the trainers finish
// (successPolicy: All of targetReplicatedJobs [trainer]), under the JobSet's headless Service.
local paddlejob = import 'paddlejob/main.libsonnet';

paddlejob.render(import 'ctr.libsonnet', 'jobset')
