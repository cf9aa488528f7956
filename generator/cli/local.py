"""`paddlejob-manifests local`: run a rendered job's pods on this machine, wired as on a cluster."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import cliargs, kube, localrun, outputs, pods, validate
from ..yamlload import read_documents

EXAMPLE = """\
examples:
  paddlejob-manifests job demo --image paddle:3 --workers 2 \\
      --command "python -m paddle.distributed.launch train.py" --runtime volcano > demo.yaml
  paddlejob-manifests local --explain demo.yaml          # each pod's command and environment
  paddlejob-manifests local --workdir ./code demo.yaml   # run it: output prefixed with pod names

exit: 0 the job completed, 1 it failed (or cannot run locally), 2 usage error
"""


MAX_INPUT = 16 << 20  # a job's manifests; read whole, as they are checked before anything runs


def add_parser(sub) -> None:
    p = sub.add_parser(
        "local",
        help="run a job's pods as local processes, with the environment their controller gives them",
        description="Expand a job's manifests into the pods its controller (paddle-operator, Volcano, "
        "Kubeflow, Kubernetes) would create and run them here, each at its own 127.0.0.x address: "
        "does the distributed job wire up, before it spends GPU hours?",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="the job's manifests (YAML or JSON), or - for stdin")
    p.add_argument("--explain", action="store_true", help="print each pod's command and environment; run nothing")
    p.add_argument("--python", default=sys.executable, help="interpreter for a `python` command (default: this one)")
    p.add_argument("--workdir", type=Path, default=Path.cwd(), help="where the training code is (default: here)")
    p.add_argument("--timeout", type=float, default=3600, help="seconds before the job is stopped (default: 3600)")
    p.add_argument(
        "--volcano-version",
        default="1.15",
        metavar="1.N",
        help="the Volcano release to imitate (the task-index annotation exists from 1.9)",
    )
    p.set_defaults(func=cmd_local)


def _version(text: str) -> tuple[int, int]:
    major, _, minor = text.removeprefix("v").partition(".")
    if not (major.isdigit() and minor.split(".")[0].isdigit()):
        raise cliargs.UsageError(f"--volcano-version: expected 1.N, got {text!r}")
    return int(major), int(minor.split(".")[0])


def cmd_local(args: argparse.Namespace) -> int:
    if args.file != "-" and not Path(args.file).is_file():
        raise cliargs.UsageError(f"{args.file}: no such file")
    if not args.workdir.is_dir():
        raise cliargs.UsageError(f"--workdir: {args.workdir} is not a folder")
    with open(sys.stdin.fileno(), "rb", closefd=False) if args.file == "-" else open(args.file, "rb") as stream:
        data = stream.read(MAX_INPUT + 1)
    if len(data) > MAX_INPUT:
        print(
            f"paddlejob-manifests local: error: {args.file}: more than {MAX_INPUT >> 20} MiB: no job is that large",
            file=sys.stderr,
        )
        return 1
    # the one checker first: what the apiserver or a webhook would refuse never starts here either
    report = validate.Report()
    name = "<stdin>" if args.file == "-" else args.file
    validate.validate_stream(name, data, validate.ObjectChecker(kube.known_versions()[-1]), report)
    if not report.valid:
        sys.stderr.write(outputs.text(report))
        print("paddlejob-manifests local: error: the manifests do not validate; nothing was run", file=sys.stderr)
        return 1
    docs, _ = read_documents(data)
    docs = [validate.without_nulls(doc) for doc in docs]  # null is absent, as the apiserver reads it
    try:
        found, services = pods.expand(docs, _version(args.volcano_version))
        processes = localrun.plan(found, services, args.python, args.workdir.resolve())
    except (pods.ExpandError, localrun.LocalError) as err:
        print(f"paddlejob-manifests local: error: {err}", file=sys.stderr)
        return 1
    if args.explain:
        sys.stdout.write(localrun.explain(processes))
        return 0
    try:
        localrun.require_commands(processes)
    except localrun.LocalError as err:
        print(f"paddlejob-manifests local: error: {err}", file=sys.stderr)
        return 1
    outcome = localrun.run(processes, args.workdir.resolve(), args.timeout, args.python)
    verdict = "Completed" if outcome.completed else "Failed"
    print(f"paddlejob-manifests local: {verdict}: {outcome.reason}", file=sys.stderr)
    return 0 if outcome.completed else 1
