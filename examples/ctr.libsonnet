// The click-through-rate job of the Volcano article: 2 parameter servers and 2 trainers running
// `paddle_k8s start_fluid` on data from the host. Rendered for Volcano (ctr-volcano.jsonnet) and
// for plain Kubernetes (ctr-kubernetes.jsonnet); the article's YAML had broken indentation.
local paddlejob = import 'paddlejob/main.libsonnet';

local resources(requestStorage) = {
  spec: {
    imagePullSecrets: [{ name: 'default-secret' }],
    containers: [{
      name: 'paddle',
      resources: {
        limits: { cpu: 10, memory: '30Gi', 'ephemeral-storage': '10Gi' },
        requests: { cpu: 1, memory: '100M', 'ephemeral-storage': requestStorage },
      },
    }],
  },
};

paddlejob.new('ctr', 'volcanosh/edlctr:v1')
+ paddlejob.withCommand(['paddle_k8s', 'start_fluid'])
+ paddlejob.withEnv({
  GLOG_v: '0',
  GLOG_logtostderr: '1',
  TRAINER_PACKAGE: '/workspace',
  PADDLE_IS_LOCAL: '0',
  ENTRY: 'cd /workspace/ctr && python train.py --is_local 0 --cloud_train 1',
  LD_LIBRARY_PATH: '/usr/local/lib:/usr/local/nvidia/lib64:/usr/local/rdma/lib64:/usr/lib64/mlnx_ofed/valgrind',
})
+ paddlejob.ps(2, template=resources('1Gi'))
+ paddlejob.worker(2, env={ CPU_NUM: '2' }, template=resources('10Gi'))
+ paddlejob.withHostPath('/home/work/', '/mnt/seqdata', name='seqdata')
+ paddlejob.withPort(30236)
