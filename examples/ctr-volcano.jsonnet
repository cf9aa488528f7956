// The CTR job on Volcano's own Job: gang of all four pods, restart on eviction or failure,
// complete when the trainers are done.
local paddlejob = import 'paddlejob/main.libsonnet';

paddlejob.render((import 'ctr.libsonnet') + paddlejob.withVolcano(queue='default'), 'volcano')
