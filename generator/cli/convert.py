"""`paddlejob-manifests convert`: a legacy (or any) PaddleJob to the job model, then to a runtime."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.cli import flags
from generator.cli.flags import flag_message
from generator.cli.output import write_manifests
from generator.core.errors import InputError
from generator.core.text import visible
from generator.core.values import LazyChoices
from generator.jobs import convert
from generator.jobs import model as jobs
from generator.jobs.model import JobError
from generator.kubeyaml.load import read_documents


def cmd_convert(args: argparse.Namespace) -> int:
    name = "<stdin>" if args.file == "-" else args.file
    if args.file != "-" and not Path(args.file).is_file():
        raise InputError(f"{args.file}: no such file")
    try:
        docs, problems = read_documents(sys.stdin.buffer if args.file == "-" else Path(args.file))
    except OSError as err:
        raise InputError(f"{args.file}: cannot read it: {err.strerror}") from None
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        for problem in errors:
            print(
                visible(f"{name}:{problem.line}:{problem.column}: error: {problem.message} [{problem.rule}]"),
                file=sys.stderr,
            )
        print("paddlejob-manifests convert: error: the input is not valid YAML as kubectl reads it", file=sys.stderr)
        return 1
    if not docs:  # an empty file, or comments only: exit 0 with no output would pass for a conversion
        print(
            f"paddlejob-manifests convert: error: {visible(name)}: no document to convert (the input is empty "
            "or holds only comments); give the file of the PaddleJob",
            file=sys.stderr,
        )
        return 1
    try:
        source = "" if args.file == "-" else Path(args.file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        source = ""
    manifests = []
    for doc in docs:
        try:
            job, notes = convert.to_job(doc)
            convert.fit_runtime(job, notes, args.to)
            manifests += job.render(args.to)
        except (convert.ConvertError, JobError) as err:
            # a ConvertError quotes the input (a kind, a field) on one line; a JobError lists findings, a line each
            text = _on_input(str(err), name, source) if isinstance(err, JobError) else str(err)
            message = visible(flag_message(text), lines=isinstance(err, JobError))
            print(f"paddlejob-manifests convert: error: {message}", file=sys.stderr)
            return 1
        for note in notes:
            print(visible(f"{name}: {note}"), file=sys.stderr)  # a note quotes the input's values
    write_manifests(manifests, args.output)
    return 0


def add_parser(sub) -> None:
    c = sub.add_parser(
        "convert",
        help="convert a legacy paddlepaddle.org/v1 PaddleJob, or move a job to another runtime",
        description="Read a legacy paddlepaddle.org/v1 PaddleJob (or a batch.paddlepaddle.org/v1 one) and "
        "write the job for --to; each field mapped, and each one that could not be, is listed on stderr.",
        epilog="example:\n  paddlejob-manifests convert old-job.yaml > job.yaml\n"
        "  paddlejob-manifests convert job.yaml --to volcano > volcano-job.yaml",
        formatter_class=flags.RawDescriptionHelpFormatter,
    )
    c.add_argument("file", metavar="FILE", help="YAML file, or - for stdin")
    c.add_argument(
        "--to",
        choices=LazyChoices(jobs.runtimes),
        metavar="RUNTIME",
        default="paddle-operator",
        help="the runtime to write: %(choices)s (default: %(default)s)",
    )
    flags.add_output(c)
    c.set_defaults(func=cmd_convert)


def _on_input(message: str, name: str, source: str) -> str:
    """The findings of the converted job (`rendered:LINE:COLUMN: ...`, places in YAML the user
    never sees) placed on the input file: at the value the finding quotes where the input holds
    it (an image, a name), else at the input's first line; each names the converted job's field."""
    import re

    def placed(match: re.Match) -> str:
        rest = match.group(3)
        line, column = 1, 1
        for quoted in re.findall(r"'([^']+)'", rest):
            at = source.find(quoted)
            if at >= 0:
                line = source.count("\n", 0, at) + 1
                column = at - (source.rfind("\n", 0, at) + 1) + 1
                break
        return f"{name}:{line}:{column}: {rest} (in the converted job)"

    return re.sub(r"(?m)^rendered:(\d+):(\d+): (.*)$", placed, message)
