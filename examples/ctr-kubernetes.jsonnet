// The CTR job on plain Kubernetes: parameter servers as a StatefulSet, trainers as an Indexed
// Job, each behind a headless Service, with a ServiceAccount that may list the job's pods.
// validate warns: across-pserver (Paddle's servers serve until stopped and a StatefulSet restarts
// them: delete the StatefulSet when the trainers' Job is Complete, or use the volcano runtime)
local paddlejob = import 'paddlejob/main.libsonnet';

paddlejob.render(import 'ctr.libsonnet', 'kubernetes')
