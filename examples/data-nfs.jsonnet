// Example 5: training data on NFS through a PersistentVolume and its claim; the image only
// brings the runtime. The docs wrote `cleanPolicy`, which the apiserver drops without a word:
// here it is cleanPodPolicy.
local paddlejob = import 'paddlejob/main.libsonnet';

local storage = [
  {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'nfs-pv' },
    spec: {
      capacity: { storage: '10Gi' },
      volumeMode: 'Filesystem',
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: 'slow',
      mountOptions: ['hard', 'nfsvers=4.1'],
      nfs: { path: '/nas', server: 'nfs.example.com' },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'nfs-pvc' },
    spec: {
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      resources: { requests: { storage: '10Gi' } },
      storageClassName: 'slow',
      volumeName: 'nfs-pv',
    },
  },
];

local never = { spec: { restartPolicy: 'Never' } };

storage + paddlejob.render(
  paddlejob.new('paddlejob-demo-1', 'registry.baidubce.com/paddle-operator/paddle-ubuntu:2.0.0-18.04')
  + paddlejob.withCommand(['bash', '-c'])
  + paddlejob.withArgs(['cd /nas/wide_and_deep; python3 train.py'])
  + paddlejob.ps(2, template=never)
  + paddlejob.worker(2, template=never)
  + paddlejob.withPvc('nfs-pvc', '/nas')
  // The docs' OnCompletion never fires here: paddle-operator v0.3.5 never marks a job with
  // parameter servers Completed (validate: paddlejob-clean-pod-policy). Never keeps the pods.
  + paddlejob.withCleanPodPolicy('Never')
)
