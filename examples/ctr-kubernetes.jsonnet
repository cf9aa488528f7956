// The CTR job on plain Kubernetes: parameter servers as a StatefulSet, trainers as an Indexed
// Job, each behind a headless Service, with a ServiceAccount that may list the job's pods.
local paddlejob = import 'paddlejob/main.libsonnet';

paddlejob.render(import 'ctr.libsonnet', 'kubernetes')
