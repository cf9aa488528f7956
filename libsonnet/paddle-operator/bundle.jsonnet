// Entry point of `paddlejob-manifests render`; usable on its own too:
//   jsonnet -J libsonnet --tla-code params='{ apiextensions: "v1beta1" }' libsonnet/paddle-operator/bundle.jsonnet
// `apiJson` is the generated API data as JSON text: the generator passes it for other
// --kube-versions (parsing JSON text is much faster than parsing it as jsonnet code).
// `trainerRuntimesJson` is the job library's Paddle ClusterTrainingRuntimes as JSON text, passed
// the same way, so a render never reads a stale generated/trainer-runtimes.json.
function(params={}, apiJson='', trainerRuntimesJson='')
  (import 'main.libsonnet').new(
    params
    + (if apiJson == '' then {} else { api: std.parseJson(apiJson) })
    + (if trainerRuntimesJson == '' then {} else { trainerRuntimeObjects:: std.parseJson(trainerRuntimesJson) })
  )
