"""`paddlejob-manifests local`: run a rendered job's pods on this machine, wired as on a cluster."""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from generator.cli import flags
from generator.core.errors import InputError
from generator.core.text import visible
from generator.local import run as localrun

EXAMPLE = """\
examples:
  paddlejob-manifests job demo --image paddle:3 --workers 2 \\
      --command "python -m paddle.distributed.launch train.py" --runtime volcano > demo.yaml
  paddlejob-manifests local --explain demo.yaml          # each pod's command and environment
  paddlejob-manifests local --workdir ./code demo.yaml   # run it: output prefixed with pod names
  paddlejob-manifests local --workdir ./code --kill demo-trainer-1 --after 60 demo.yaml   # a node fails at 60 s
  paddlejob-manifests local --workdir ./code --kill demo-trainer-1 --after 60 --for-good demo.yaml   # and stays lost
  paddlejob-manifests local --workdir ./code --state ./run1 demo.yaml   # keep Paddle's logs (run1/<pod>/log)

writes: nothing in --workdir of its own (the job's code runs there and writes what it writes); its
state (python shims, each pod's PADDLE_LOG_DIR unless the job sets one, an etcd's data) goes to a new
private temporary folder, removed at the end, or to --state DIR, kept

exit: 0 the job completed as on a cluster; 1 it failed, would stay Running, cannot run locally, or
completed but not as on a cluster (a pod ran on CPU instead of its GPUs, with --allow-cpu, or without
a volume local mode cannot provide: the verdict names each); 2 usage error (also
a PADDLE_LOG_DIR outside --workdir, or a link in a folder local mode writes in);
128+N stopped by signal N (SIGINT, SIGTERM, SIGHUP), every pod stopped first
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "local",
        help="run a job's pods as local processes, with the environment their controller gives them",
        description="Expand a job's manifests (a PaddleJob, a Volcano Job, a Kubeflow PaddleJob, a Kubeflow "
        "Trainer v2 TrainJob on deploy/trainer/'s ClusterTrainingRuntime, a JobSet, or plain Jobs and "
        "StatefulSets) into the pods its controller would create and run them here, each at its own "
        "127.0.0.x address in a network namespace of the run's own: "
        "does the distributed job wire up, before it spends GPU hours?",
        epilog=EXAMPLE,
        formatter_class=flags.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="the job's manifests (YAML or JSON), or - for stdin")
    p.add_argument(
        "--explain",
        action="store_true",
        help="print each pod's command and environment; run nothing (no probe either: the notes say what a run checks)",
    )
    p.add_argument("--python", default=sys.executable, help="interpreter for a `python` command (default: this one)")
    p.add_argument("--workdir", type=Path, default=Path.cwd(), help="where the training code is (default: here)")
    p.add_argument(
        "--state",
        type=Path,
        metavar="DIR",
        help="keep local mode's state here (each pod's Paddle logs in DIR/<pod>/log) and leave it after the run "
        "(default: a new temporary folder, removed when the run ends)",
    )
    p.add_argument("--timeout", type=float, default=3600, help="seconds before the job is stopped (default: 3600)")
    flags.add_project_version(
        p, "volcano", "the Volcano release to imitate (the task-index annotation exists from 1.9)"
    )
    p.add_argument(
        "--grace",
        type=float,
        default=localrun.GRACE,
        help="seconds to wait for the other pods once every trainer has exited (default: %(default)s); "
        "servers still running then mean the job would stay Running on the cluster",
    )
    p.add_argument(
        "--allow-cpu",
        action="store_true",
        help="run pods that ask for more GPUs (nvidia.com/gpu) than this machine has on CPU instead of refusing "
        "the job; the verdict then says it was not as on a cluster (exit 1)",
    )
    p.add_argument(
        "--kill",
        metavar="POD",
        help="kill this pod's processes (SIGKILL to all of them) --after SECONDS, as a node failure would; its "
        "controller then acts as on a cluster (replaces or restarts it, or fails the job)",
    )
    p.add_argument("--after", type=float, metavar="SECONDS", help="when --kill kills its pod (seconds from the start)")
    p.add_argument(
        "--for-good",
        action="store_true",
        help="with --kill: the node does not come back and no other has room, so the pod its controller makes in "
        "place of the killed one stays Pending; the job completes only if it can without it (successPolicy, "
        "minSuccess)",
    )
    p.set_defaults(func=cmd_local)


def cmd_local(args: argparse.Namespace) -> int:
    if args.file != "-" and not Path(args.file).is_file():
        raise InputError(f"{args.file}: no such file")
    if not args.workdir.is_dir():
        raise InputError(f"--workdir: {args.workdir} is not a folder")
    if (args.kill is None) != (args.after is None):
        raise InputError("--kill POD and --after SECONDS go together")
    if args.for_good and args.kill is None:
        raise InputError("--for-good goes with --kill POD --after SECONDS")
    if args.after is not None and not args.after >= 0:
        raise InputError(f"--after: {args.after} is not a number of seconds >= 0")
    with open(sys.stdin.fileno(), "rb", closefd=False) if args.file == "-" else open(args.file, "rb") as stream:
        data = stream.read(localrun.MAX_INPUT + 1)
    name = "<stdin>" if args.file == "-" else args.file
    if args.explain:
        return _local(args, data, name, None)
    if args.state is not None:
        return _local(args, data, name, args.state.absolute())
    state = Path(tempfile.mkdtemp(prefix="paddlejob-local-"))
    try:
        return _local(args, data, name, state)
    finally:
        shutil.rmtree(state, ignore_errors=True)


def _local(args: argparse.Namespace, data: bytes, name: str, state: Path | None) -> int:
    """The run (or --explain, ``state`` None) with local mode's state in ``state``."""
    try:
        block = localrun.EXPLAIN_BLOCK
        if not args.explain and (refused := localrun.isolate_network()):
            block = localrun.free_block()
            print(
                f"paddlejob-manifests local: warning: no network namespace of its own ({refused}): the pods use "
                f"{block}.x, and share this machine's ports with other runs",
                file=sys.stderr,
            )
        processes = localrun.prepare(
            data,
            name,
            args.python,
            args.workdir.resolve(),
            args.volcano_version,
            block,
            allow_cpu=args.allow_cpu,
            probe=not args.explain,  # --explain runs nothing: no nvidia-smi, no etcd3 import, no port tried
            state=state,
        )
    except localrun.LocalError as err:
        if isinstance(err, localrun.InvalidManifests):
            sys.stderr.write(err.report)
        print(f"paddlejob-manifests local: error: {err}", file=sys.stderr)
        return 2 if isinstance(err, localrun.Refused) else 1
    if args.explain:
        sys.stdout.write(visible(localrun.explain(processes), lines=True))  # the job's values, shown, never run
        return 0
    names = [proc.pod.name for proc in processes]
    if args.kill is not None and args.kill not in names:
        raise InputError(f"--kill: the job has no pod {args.kill!r}; its pods: {', '.join(names)}")
    try:
        localrun.require_commands(processes)
    except localrun.LocalError as err:
        print(f"paddlejob-manifests local: error: {err}", file=sys.stderr)
        return 1
    for proc in processes:
        for warning in proc.warnings:
            print(f"paddlejob-manifests local: warning: {warning}", file=sys.stderr)
    localrun.adopt_orphans()  # what a pod starts and detaches (setsid) ends with the run too
    try:
        kill = localrun.Kill(args.kill, args.after, args.for_good) if args.kill is not None else None
        outcome = localrun.run(
            processes, args.workdir.resolve(), args.timeout, args.python, grace=args.grace, kill=kill, state=state
        )
    except localrun.Refused as err:
        print(f"paddlejob-manifests local: error: {err}", file=sys.stderr)
        return 2
    except localrun.Stopped as stopped:
        name = signal.Signals(stopped.signum).name
        print(f"paddlejob-manifests local: stopped by {name}: every pod was stopped", file=sys.stderr)
        return 128 + stopped.signum
    if outcome.completed and outcome.unlike:
        print(
            f"paddlejob-manifests local: not as on a cluster (Completed here): {'; '.join(outcome.unlike)}",
            file=sys.stderr,
        )
        return 1
    print(f"paddlejob-manifests local: {outcome.phase}: {outcome.reason}", file=sys.stderr)
    for what in outcome.unlike:
        print(f"paddlejob-manifests local: note: not as on a cluster: {what}", file=sys.stderr)
    for line in localrun.after_finishing(data, outcome, args.grace):  # the TTL, waited up to --grace
        print(f"paddlejob-manifests local: {line}", file=sys.stderr)
    return 0 if outcome.as_on_a_cluster else 1
