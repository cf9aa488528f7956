// Entry point of `paddlejob-manifests job` and of the Python API: a job description (JSON) and a
// runtime in, the manifests out.
//   jsonnet -J libsonnet --tla-code-file job=job.json --tla-str runtime=volcano libsonnet/paddlejob/render.jsonnet
function(job, runtime='paddle-operator') (import 'main.libsonnet').render(job, runtime)
