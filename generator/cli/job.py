"""`paddlejob-manifests job`: a training job's manifests from flags."""

from __future__ import annotations

import argparse
import sys

from generator.cli import flags
from generator.cli.flags import flag_message
from generator.core import values
from generator.core.kinds import PROJECTS
from generator.jobs import model as jobs
from generator.jobs.model import CephFS, Elastic, JobError, Role, TrainingJob, Volcano, Volume

# Flags that only mean something with another flag: given without it, they would be dropped.
NEEDS = {
    "--volcano": ("podgroup", "queue", "min_available"),
    "--elastic": ("etcd", "min_workers", "max_workers", "max_restart"),
    "--kueue-queue": ("kueue_version",),
    "--cephfs": ("cephfs_mount", "cephfs_path", "cephfs_user", "cephfs_secret"),
}
CEPHFS_DEFAULTS = {
    "cephfs_mount": "/mnt/cephfs",
    "cephfs_path": "/",
    "cephfs_user": "admin",
    "cephfs_secret": "cephfs-secret",
}
FEATURE_OF_FLAG = {
    "--volcano": "Volcano gang scheduling (volcano)",
    "--elastic": "elastic",
    "--kueue-queue": "Kueue queue (kueueQueue)",
}


def _refuse_dropped_flags(args: argparse.Namespace) -> None:
    """A flag whose companion is missing would be dropped without a word: a usage error instead,
    naming the companion and the runtimes that have the feature."""
    for companion, dests in NEEDS.items():
        if getattr(args, companion[2:].replace("-", "_")):
            continue
        for dest in dests:
            if getattr(args, dest) not in (None, False):
                flag = "--" + dest.replace("_", "-")
                feature = FEATURE_OF_FLAG.get(companion)
                where = f" (runtimes that have it: {', '.join(jobs.runtimes_with(feature))})" if feature else ""
                raise values.InputError(f"{flag}: only with {companion}{where}; without it {flag} is not used")


JOB_EXAMPLE = """\
examples:
  # wide & deep, parameter-server mode on CPU
  paddlejob-manifests job wide-and-deep --image registry.baidubce.com/paddle-operator/demo-wide-and-deep:v1 \\
      --ps 2 --workers 2 --with-gloo 1 --clean-pod-policy Never
  # resnet, collective on GPUs, with shared memory, on Volcano's own Job
  paddlejob-manifests job resnet --image registry.baidubce.com/paddle-operator/demo-resnet:v1 \\
      --workers 2 --gpus 1 --shm --command "python -m paddle.distributed.launch train_fleet.py" --runtime volcano
  # elastic: 3 workers, training goes on with 2 if one fails (the job's own etcd)
  paddlejob-manifests job ft --image registry.baidubce.com/paddlepaddle/paddle:3.3.1 --workers 3 \\
      --elastic --min-workers 2 --command "python -m paddle.distributed.launch train.py" --runtime kubernetes
  # lifecycle: deleted an hour after it ends, at most 2 h active, 2 retries
  paddlejob-manifests job bert --image registry.baidubce.com/paddlepaddle/paddle:3.3.1 --workers 4 \\
      --ttl 3600 --deadline 7200 --backoff-limit 2 --runtime kubeflow
  # created suspended for MultiKueue, its pods at a priority class of the cluster's
  paddlejob-manifests job bert --image registry.baidubce.com/paddlepaddle/paddle:3.3.1 --workers 4 \\
      --suspend --managed-by kueue.x-k8s.io/multikueue --kueue-queue team-a --priority-class high --runtime jobset
"""


def _source_and_mount(option: str, value: str) -> tuple[str, str]:
    source, sep, mount = value.partition(":")
    if not sep or not source or not mount.startswith("/"):
        raise values.InputError(f"{option}: expected SOURCE:/MOUNT/PATH, got {value!r}")
    return source, mount


def job_from_args(args: argparse.Namespace) -> TrainingJob:
    """The job the flags describe; flag-level mistakes raise InputError naming the flag."""
    cpu, memory = values.quantity("--cpu", args.cpu), values.quantity("--memory", args.memory)
    if args.gpus < 0:
        raise values.InputError(f"--gpus: must be 0 or more, got {args.gpus}")
    if args.mode == "collective" and args.ps:
        raise values.InputError("--mode collective: remove --ps (collective jobs have workers only)")
    if args.mode == "ps" and not args.ps:
        raise values.InputError("--mode ps: give the number of parameter servers with --ps N")
    if args.mode == "heter" and not args.heter:
        raise values.InputError("--mode heter: give the number of heter workers with --heter N")
    for flag in ("ttl", "deadline", "backoff_limit"):
        value = getattr(args, flag)
        if value is not None and value < (1 if flag == "deadline" else 0):
            raise values.InputError(
                f"--{flag.replace('_', '-')}: must be {1 if flag == 'deadline' else 0} or more, got {value}"
            )
    _refuse_dropped_flags(args)
    volumes = []
    for i, value in enumerate(args.pvc or []):
        claim, path = _source_and_mount("--pvc", value)
        volumes.append(Volume(f"data-{i}" if i else "data", path, pvc=claim))
    for i, value in enumerate(args.host_path or []):
        host, path = _source_and_mount("--host-path", value)
        volumes.append(Volume(f"host-{i}" if i else "host", path, host_path=host))
    if args.cephfs:
        given = {k: getattr(args, k) or default for k, default in CEPHFS_DEFAULTS.items()}
        cephfs = CephFS(args.cephfs.split(","), given["cephfs_path"], given["cephfs_user"], given["cephfs_secret"])
        volumes.append(Volume("cephfs", given["cephfs_mount"], cephfs=cephfs))

    def role(replicas: int, gpu: int = 0) -> Role:
        return Role(replicas, cpu=cpu, memory=memory, gpu=gpu)

    return TrainingJob(
        name=args.name,
        image=args.image,
        namespace=args.namespace,
        worker=role(args.workers, args.gpus),
        ps=role(args.ps) if args.ps else None,
        heter=role(args.heter, args.gpus) if args.heter else None,
        command=values.words("--command", args.command),
        args=values.words("--args", args.args),
        working_dir=args.working_dir,
        env=values.pairs("--env", args.env),
        labels=values.labels("--label", args.label),
        clean_pod_policy=args.clean_pod_policy,
        intranet=args.intranet,
        with_gloo=args.with_gloo,
        elastic=Elastic(args.etcd, args.min_workers, args.max_workers, max_restart=args.max_restart)
        if args.elastic
        else None,
        # with --volcano, the priority class is the gang's too
        volcano=Volcano(args.queue, args.priority_class, args.min_available, None, args.podgroup)
        if args.volcano
        else None,
        kueue_queue=args.kueue_queue,
        coscheduling=args.coscheduling,
        node_selector=values.labels("--node-selector", args.node_selector),
        tolerations=[values.toleration(t) for t in args.toleration or []],
        shm=args.shm if args.shm is not None else False,
        volumes=volumes,
        port=args.port,
        ttl=args.ttl,
        deadline=args.deadline,
        backoff_limit=args.backoff_limit,
        suspend=args.suspend,
        managed_by=args.managed_by,
        priority_class=args.priority_class,
    )


def cmd_job(args: argparse.Namespace) -> int:
    from generator.cli.output import write_manifests  # the writer and its schemas: not for --help

    job = job_from_args(args)
    try:
        warned: list[str] = []
        releases = {p: getattr(args, f"{p.replace('-', '_')}_version") for p in jobs.runtime_projects()}
        if args.kueue_queue:  # the queue label and MultiKueue judged for that Kueue release
            releases["kueue"] = args.kueue_version or jobs.kueue_releases()[-1]
        manifests = job.render(args.runtime, args.kube_version, warned, releases)
    except JobError as err:
        text = str(err)
        if "\n" in text:  # rendered, but the manifests do not validate: show every finding
            print(f"paddlejob-manifests job: error: {text}", file=sys.stderr, end="")
            return 1
        raise values.InputError(flag_message(text)) from None
    for line in warned:
        print(f"paddlejob-manifests job: warning: {line}", file=sys.stderr)
    write_manifests(manifests, args.output, args.schema_modeline)
    return 0


def _spec_enum(field: str) -> values.LazyChoices:
    """A flag's choices: the PaddleJob schema's enum of spec.FIELD (jobs.spec_enums)."""
    return values.LazyChoices(lambda: jobs.spec_enums()[field])


def add_parser(sub) -> None:
    p = sub.add_parser(
        "job",
        help="write a training job's manifests from flags",
        description="Render one training job for a runtime, validated. Per-role details (env, pod "
        "template fields) are for the jsonnet library or the Python API.",
        epilog=JOB_EXAMPLE,
        formatter_class=flags.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", metavar="NAME", help="job name: a DNS-1035 label; pods are NAME-ROLE-INDEX")
    p.add_argument("--image", required=True, help="container image of every role (REGISTRY/PATH:TAG)")
    p.add_argument("--workers", type=int, required=True, help="trainers (workers)")
    p.add_argument("--ps", type=int, default=0, help="parameter servers (PS mode)")
    p.add_argument("--heter", type=int, default=0, help="heter workers (heter mode; needs --ps)")
    p.add_argument("--mode", choices=["ps", "collective", "heter"], help="checked against the roles given")
    p.add_argument("--gpus", type=int, default=0, help="GPUs per worker (and heter worker)")
    p.add_argument("--cpu", help="CPU per pod, requested and limited (e.g. 2, 500m)")
    p.add_argument("--memory", help="memory per pod, requested and limited (e.g. 4Gi)")
    p.add_argument("--command", help='entry point, split like a shell does: "python train.py"')
    p.add_argument("--args", help="arguments after the command, split like a shell does")
    p.add_argument("--working-dir", help="working directory of the container (where the code is)")
    p.add_argument("--env", action="append", metavar="KEY=VALUE", help="repeatable")
    p.add_argument("--namespace", help="namespace of every object (default: none, kubectl's current one)")
    flags.add_placement(p, labels_help="a label on the job and its pods; repeatable")
    p.add_argument(
        "--intranet",
        choices=_spec_enum("intranet"),
        metavar="MODE",
        help="how pods reach each other: %(choices)s (default PodIP)",
    )
    p.add_argument(
        "--with-gloo",
        type=int,
        choices=_spec_enum("withGloo"),
        metavar="LEVEL",
        help="Gloo in PS mode: %(choices)s (1 on the workers, 2 also on the servers)",
    )
    p.add_argument(
        "--clean-pod-policy",
        choices=_spec_enum("cleanPodPolicy"),
        metavar="POLICY",
        help="when the operator deletes the pods after the job ends: %(choices)s (Never: keep them to debug)",
    )
    p.add_argument("--volcano", action="store_true", help="gang-schedule with Volcano")
    p.add_argument("--queue", help="Volcano queue (with --volcano)")
    p.add_argument("--priority-class", help="the pods' PriorityClass (with --volcano, the gang's too)")
    p.add_argument("--min-available", type=int, help="gang size (with --volcano; default: every pod)")
    p.add_argument("--podgroup", action="store_true", help="also write a PodGroup (with --volcano)")
    p.add_argument("--kueue-queue", metavar="QUEUE", help="the Kueue LocalQueue that admits the job")
    flags.add_kueue_version(
        p,
        "the Kueue release that queues the job (with --kueue-queue): whether it has and enables the "
        "integration of the job's kind, and a MultiKueue adapter for it with --managed-by "
        "kueue.x-k8s.io/multikueue (default: the newest release this tool has read)",
    )
    p.add_argument("--coscheduling", action="store_true", help="gang-schedule with scheduler-plugins")
    p.add_argument("--pvc", action="append", metavar="CLAIM:MOUNT_PATH", help="repeatable")
    p.add_argument("--host-path", action="append", metavar="HOST_PATH:MOUNT_PATH", help="repeatable")
    p.add_argument("--cephfs", metavar="MONITOR[,MONITOR...]", help="mount CephFS")
    p.add_argument("--cephfs-mount", help="where CephFS is mounted (with --cephfs; default: /mnt/cephfs)")
    p.add_argument("--cephfs-path", help="the CephFS folder to mount (with --cephfs; default: /)")
    p.add_argument("--cephfs-user", help="the CephFS user (with --cephfs; default: admin)")
    p.add_argument("--cephfs-secret", help="the Secret with the CephFS key (with --cephfs; default: cephfs-secret)")
    p.add_argument("--shm", nargs="?", const=True, metavar="SIZE", help="/dev/shm in memory (GPU jobs need it)")
    elastic = p.add_argument_group(
        "elastic training",
        "Paddle's launcher (2.3+) with an etcd master: the pods train with MIN to MAX workers and meet "
        "again when one fails. The command must run `python -m paddle.distributed.launch`.",
    )
    elastic.add_argument("--elastic", action="store_true", help="elastic, fault-tolerant collective training")
    elastic.add_argument("--etcd", metavar="HOST:PORT", help="an etcd of your own (default: the job's own etcd)")
    elastic.add_argument("--min-workers", type=int, help="fewest workers the launchers train with (default --workers)")
    elastic.add_argument("--max-workers", type=int, help="most workers; must equal --workers (the pods created)")
    elastic.add_argument("--max-restart", type=int, help="times the launchers meet again after a failure (default 3)")
    lifecycle = p.add_argument_group(
        "lifecycle", "Each runtime's own field (docs/runtimes.md); a runtime without one refuses the flag."
    )
    lifecycle.add_argument("--ttl", type=int, metavar="SECONDS", help="delete the job this long after it finishes")
    lifecycle.add_argument("--deadline", type=int, metavar="SECONDS", help="fail the job after this long active")
    lifecycle.add_argument("--backoff-limit", type=int, metavar="N", help="retries before the job fails")
    lifecycle.add_argument("--suspend", action="store_true", help="create the job suspended (Kueue, or resume later)")
    lifecycle.add_argument(
        "--managed-by", metavar="CONTROLLER", help="the controller that runs the job (kueue.x-k8s.io/multikueue)"
    )
    p.add_argument("--port", type=int, help="endpoint port (default 36543)")
    p.add_argument(
        "--runtime",
        choices=values.LazyChoices(jobs.runtimes),
        metavar="RUNTIME",
        default="paddle-operator",
        help="the controller that runs the job: %(choices)s (docs/runtimes.md; default: %(default)s). A flag "
        "whose feature a runtime cannot express is refused, naming the runtimes that can",
    )
    for project in jobs.runtime_projects():  # the projects whose kinds a runtime writes (the registry's)
        title = next(p.title for p in PROJECTS if p.name == project)
        flags.add_project_version(
            p, project, f"the {title} release the job's {title} objects are written for and checked against"
        )
    p.add_argument(
        "--schema-modeline",
        metavar="SCHEMAS",
        help="start each custom-kind document with a yaml-language-server comment naming its schema "
        "under SCHEMAS (a path or URL of schemas/jsonschema), for editors",
    )
    flags.add_kube_version(p, "the Kubernetes release the job is checked against (default: the newest known)")
    flags.add_output(p)
    p.set_defaults(func=cmd_job)
