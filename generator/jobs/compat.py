"""The old `paddle.job` Python API, returning manifests instead of submitting to a cluster.

    from generator.jobs.compat import PaddleJob, CephFSVolume
    job = PaddleJob(job_name="paddle-job", entry_point="python train.py", runtime_image="yancey1989/paddle-job",
                    cpu_nums=3, memory="1Gi", pservers=3, trainers=3,
                    cephfs_volume=CephFSVolume(monitors_addr="172.19.32.166:6789"))
    manifests = job.manifests()          # or job.manifests("volcano"), job.to_yaml()

The parameters and defaults are the old API's (seeds: "PaddleJob parameters"): pservers 2,
trainers 3, gpu_nums 0; CephFS user admin, secret cephfs-secret, mounted at /mnt/cephfs. Its
trainers find TRAINER_ID (their index) and TRAINERS (their count) in the environment, as before.
Its own example also used `cpu_num`, `use_gpu` and `trainer_package_path`; they are accepted.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from generator.jobs.model import CephFS, JobError, Role, TrainingJob, Volume, known_fields


@known_fields
@dataclass
class CephFSVolume:
    monitors_addr: str
    user: str = "admin"
    secret_name: str = "cephfs-secret"
    mount_path: str = "/mnt/cephfs"
    path: str = "/"


@known_fields
class PaddleJob:
    def __init__(
        self,
        job_name: str,
        entry_point: str,
        runtime_image: str,
        cpu_nums: int | None = None,
        memory: str | None = None,
        gpu_nums: int = 0,
        pservers: int = 2,
        trainers: int = 3,
        cephfs_volume: CephFSVolume | None = None,
        namespace: str | None = None,
        *,
        cpu_num: int | None = None,
        use_gpu: bool = False,
        trainer_package_path: str | None = None,
    ):
        cpu = cpu_nums if cpu_nums is not None else cpu_num
        if cpu is None:
            raise JobError("PaddleJob needs cpu_nums (the CPU count of every pod)")
        # The old API's trainers read TRAINER_ID and TRAINERS (seeds: "Fetch Runtime information"):
        # TRAINERS is known now; TRAINER_ID is the pod's index, which each runtime gives under its
        # own name when the pod starts, so a shell exports it under the old one.
        legacy = ["sh", "-c", 'export TRAINER_ID="${PADDLE_TRAINER_ID:-$PADDLE_RANK}"; exec "$0" "$@"']
        trainer_env = {"TRAINERS": str(trainers)}
        self.job = TrainingJob(
            name=job_name,
            image=runtime_image,
            namespace=namespace,
            command=shlex.split(entry_point),
            working_dir=trainer_package_path,
            ps=Role(pservers, cpu=str(cpu), memory=memory) if pservers else None,
            worker=Role(
                trainers,
                cpu=str(cpu),
                memory=memory,
                gpu=gpu_nums or (1 if use_gpu else 0),
                env=trainer_env,
                command=legacy + shlex.split(entry_point),
            ),
            volumes=[_cephfs(cephfs_volume)] if cephfs_volume else [],
        )

    def manifests(self, runtime: str = "paddle-operator", kube_version: str | None = None) -> list[dict]:
        """``kube_version``: the Kubernetes minor the manifests must validate on (default: the
        newest); a CephFS volume is in-tree, which no kubelet mounts from 1.31."""
        return self.job.render(runtime, kube_version)

    def to_yaml(self, runtime: str = "paddle-operator", kube_version: str | None = None) -> str:
        return self.job.to_yaml(runtime, kube_version)


def _cephfs(volume: CephFSVolume) -> Volume:
    monitors = [m.strip() for m in volume.monitors_addr.split(",") if m.strip()]
    return Volume("cephfs", volume.mount_path, cephfs=CephFS(monitors, volume.path, volume.user, volume.secret_name))
