// Each runtime builder of runtimes.json by its `builder` name: the one list of imports (jsonnet
// imports take literal paths). A builder renders a job (`render(job)`) and says what it can
// express (`features`: how, and why not, by feature name of features.libsonnet).
{
  operator: import 'operator.libsonnet',
  volcano: import 'volcano.libsonnet',
  kubeflow: import 'kubeflow.libsonnet',
  kubernetes: import 'kubernetes.libsonnet',
  trainer: import 'trainer.libsonnet',
  jobset: import 'jobset.libsonnet',
}
