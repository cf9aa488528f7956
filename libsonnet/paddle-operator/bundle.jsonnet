// Entry point of `paddlejob-manifests render`; usable on its own too:
//   jsonnet -J libsonnet --tla-code params='{ apiextensions: "v1beta1" }' libsonnet/paddle-operator/bundle.jsonnet
function(params={}) (import 'main.libsonnet').new(params)
