"""Flags more than one subcommand has, declared once (Tanka's shared flags): the same spelling,
metavar and help everywhere, parsed by cliargs.py. And the flags people bring from other tools,
with what to write here instead."""

from __future__ import annotations

import argparse
import os
import sys

MANIFEST_FORMATS = ("yaml", "json")


def _terminal_columns() -> int:
    """shutil.get_terminal_size().columns, without importing shutil: argparse makes a formatter
    for every flag a parser gets (to check its metavar), and the default one imports shutil, with
    the compression modules shutil imports, to ask for the width: 3 ms of every run."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _TerminalWidth:
    """A formatter as wide as the terminal, less 2, as argparse's (see _terminal_columns)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        width = _terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class HelpFormatter(_TerminalWidth, argparse.HelpFormatter):
    """argparse.HelpFormatter; every parser here has this one or the next."""


class RawDescriptionHelpFormatter(_TerminalWidth, argparse.RawDescriptionHelpFormatter):
    """argparse.RawDescriptionHelpFormatter (a subcommand's examples keep their lines)."""


def kube_release(value: str):
    """--kube-version, parsed once, by argparse: '1.30' or 'v1.30.2' -> KubeVersion 1.30
    (core/versions.py), a release this tool knows."""
    from generator.schema import kubernetes

    try:
        return kubernetes.require_known(value)
    except kubernetes.UnknownVersionError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_kube_version(parser, help: str) -> None:
    parser.add_argument("--kube-version", type=kube_release, metavar="1.N", help=help)


def project_release(project: str):
    """The type of --volcano-version, --kubeflow-version, ...: '1.9' or 'v1.9.2' -> Release 1.9
    (core/versions.py), a release whose CRDs this tool has; parsed once, by argparse."""
    from generator.schema import projects as thirdparty

    def parse(value: str):
        try:
            return thirdparty.parse_release(project, value)
        except thirdparty.UnknownReleaseError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    parse.__name__ = f"{project} release"  # what argparse names in "invalid ... value"
    return parse


def add_project_version(parser, project: str, help: str) -> None:
    """--PROJECT-version, default the newest release of the project this tool has the CRDs of."""
    from generator.schema import projects as thirdparty

    newest = thirdparty.newest(project)
    parser.add_argument(
        f"--{project}-version",
        type=project_release(project),
        default=newest,
        metavar=f"{newest.major}.N",
        help=f"{help} (default: the newest, {newest})",
    )


def kueue_version(text: str) -> str:
    """--kueue-version's type: a Kueue release this tool has read (rules/kueue.py release)."""
    from generator.validate.rules import kueue

    try:
        return kueue.release(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_kueue_version(parser, help: str) -> None:
    """--kueue-version 0.N: the Kueue release a queue label and MultiKueue are judged by."""
    parser.add_argument("--kueue-version", type=kueue_version, metavar="0.N", help=help)


def add_output(parser, choices=MANIFEST_FORMATS, default: str = "yaml", help: str | None = None) -> None:
    """--output/-o; for manifests: YAML, or JSON as kubectl prints it (one object, or a v1 List)."""
    parser.add_argument(
        "--output",
        "-o",
        choices=list(choices),
        default=default,
        help=help or "yaml (default), or json as kubectl prints it: one object, or a v1 List of several",
    )


def add_placement(parser, labels_help: str = "a label on every object; repeatable") -> None:
    """--label, --node-selector and --toleration: KEY=VALUE labels (cliargs.labels) and
    KEY[=VALUE]:EFFECT tolerations (cliargs.toleration), each repeatable."""
    parser.add_argument("--label", action="append", metavar="KEY=VALUE", help=labels_help)
    parser.add_argument(
        "--node-selector", action="append", metavar="KEY=VALUE", help="a node label the pods need; repeatable"
    )
    parser.add_argument(
        "--toleration", action="append", metavar="KEY[=VALUE]:EFFECT", help="a taint the pods tolerate; repeatable"
    )


# Flags people bring from kubeconform and kubectl, and what to write here instead.
HABITS = {
    "-summary": "use --summary",
    "-skip": "use --skip-kinds",
    "-strict": "use --strict (unknown fields are always errors here; --strict also fails on warnings)",
    "-output": "use --output",
    "-kube-version": "use --kube-version",
    "--kube-version": "use --kube-version",
    "-ignore-filename-pattern": "use --ignore",
    "-ignore-missing-schemas": "not needed: a kind without a schema is a warning (--strict-kinds makes it an error)",
    "-schema-location": "use --crd FILE for your CRDs; the Kubernetes, Volcano, Kubeflow, Trainer and JobSet "
    "schemas are built in (--kube-version and the --*-version flags choose their releases)",
    "-f": "give the files and folders as arguments (- for stdin)",
    "--filename": "give the files and folders as arguments (- for stdin)",
    "--dry-run": "not needed: this tool never contacts a cluster",
    "--server-side": "not needed: this tool never contacts a cluster",
    "-n": "use --jobs N (kubeconform's -n is its number of workers; a namespace comes from the files)",
    "--format": "use --output (text, json, junit, sarif, github, tap; FORMAT=FILE for a file)",
    "-format": "use --output (text, json, junit, sarif, github, tap; FORMAT=FILE for a file)",
    "--config": "validate takes --config FILE (its flags' long names as keys); other subcommands take none",
    "--include": "give the files and folders to check as arguments (--ignore REGEX leaves some out)",
    "--exclude": "use --ignore REGEX (a file's path, named or found in a folder)",
    "-exclude": "use --ignore REGEX (a file's path, named or found in a folder)",
    "--add-all-built-in": "not needed: every rule runs; --skip-rules RULE[,RULE...] drops some",
    "--do-not-auto-add-defaults": "use --skip-rules RULE[,RULE...]",
}


def misread_habit(subparser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """The error for a single-dash long flag of kubeconform (`-output json`, `-summary`) that
    argparse would read as a short flag and its value (`-o utput`): said with what to write,
    before argparse misreads it. None when there is none (up to `--`)."""
    options = {o for action in subparser._actions for o in action.option_strings}
    for arg in argv:
        if arg == "--":
            return None
        flag = arg.split("=", 1)[0]
        single = flag.startswith("-") and not flag.startswith("--") and len(flag) > 2
        if single and flag in HABITS and flag not in options and flag[:2] in options:
            return f"unrecognized arguments: {arg}\n  {flag}: {HABITS[flag]}"
    return None


def unrecognized(subparser: argparse.ArgumentParser, extras: list[str]) -> str:
    """The error for flags the subcommand does not have, with what to write instead."""
    import difflib

    options = [o for action in subparser._actions for o in action.option_strings]
    hints = []
    for extra in extras:
        flag = extra.split("=", 1)[0]
        if not flag.startswith("-"):
            continue
        close = difflib.get_close_matches(flag if flag.startswith("--") else "-" + flag, options, n=1, cutoff=0.7)
        if flag in HABITS:
            hints.append(f"{flag}: {HABITS[flag]}")
        elif close:
            hints.append(f"{flag}: did you mean {close[0]}?")
    return f"unrecognized arguments: {' '.join(extras)}" + "".join(f"\n  {h}" for h in hints)


# Description fields as the CLI spells them, so a jsonnet error names the flag to change.
FLAG_OF_FIELD = {
    "roles.worker.replicas": "--workers",
    "roles.ps.replicas": "--ps",
    "roles.heter.replicas": "--heter",
    "roles.worker.gpu": "--gpus",
    "roles.heter.gpu": "--gpus",
    "roles.ps": "--ps",
    "roles.heter": "--heter",
    "name": "NAME",
    "image": "--image",
    "cleanPodPolicy": "--clean-pod-policy",
    "intranet": "--intranet",
    "withGloo": "--with-gloo",
    "elastic.etcd": "--etcd",
    "elastic.minReplicas": "--min-workers",
    "elastic.maxReplicas": "--max-workers",
    "elastic.maxRestart": "--max-restart",
    "elastic": "--elastic",
    "ttl": "--ttl",
    "deadline": "--deadline",
    "active deadline (deadline)": "--deadline",
    "retries (backoffLimit)": "--backoff-limit",
    "backoffLimit": "--backoff-limit",
    "suspend": "--suspend",
    "managedBy": "--managed-by",
    "priority class (priorityClass)": "--priority-class",
    "Volcano gang scheduling (volcano)": "--volcano",
    "a hand-written PodGroup (volcano.podGroup)": "--podgroup",
    "parameter-server mode (ps)": "--ps",
    "heter mode (heter)": "--heter",
    "port": "--port",
    "Kueue queue (kueueQueue)": "--kueue-queue",
    "kueueQueue": "--kueue-queue",
    "scheduler-plugins gang scheduling (coscheduling)": "--coscheduling",
    "volcano and coscheduling": "--coscheduling",
    "volcano.minAvailable": "--min-available",
    "volcano.priorityClass": "--priority-class",
    "workingDir": "--working-dir",
    "env ": "--env",
}


def flag_message(message: str) -> str:
    """'roles.worker.gpu must be ...' -> '--gpus: roles.worker.gpu must be ...'."""
    for field in sorted(FLAG_OF_FIELD, key=len, reverse=True):
        if message.startswith(field):
            return f"{FLAG_OF_FIELD[field]}: {message}"
    return message
