// Entry point of `paddlejob-manifests job` and of the Python API: a job description (JSON) and a
// runtime in, the manifests out.
// `releases`: the third-party projects' releases the manifests are for ({ jobset: '0.10' }), which
// a builder reads to map a field per release (the newest it knows where not given).
//   jsonnet -J libsonnet --tla-code-file job=job.json --tla-str runtime=volcano libsonnet/paddlejob/render.jsonnet
function(job, runtime='paddle-operator', releases={}) (import 'main.libsonnet').render(job, runtime, releases)
