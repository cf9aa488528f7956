"""paddlejob-manifests: render the paddle-operator install bundles, write training jobs, validate manifests.

One module per subcommand, each a thin handler over the library (Tanka's cmd/tk): it parses
flags into library calls and prints what they return.

Exit codes, the same for every subcommand:
  0  success (validate: no error; warnings allowed)
  1  findings: the render or the input does not validate, or --check found drift
  2  usage: an unknown flag, a bad value (the message names the flag), a missing path
  3  internal error: a bug in this tool; the message asks for a report
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys

from generator import __version__
from generator.core import compiled
from generator.core.errors import Error, InputError
from generator.core.text import visible

BUG_REPORT = "https://github.com/paddleflow/paddlejob-manifests/issues"
# One module of this package per subcommand, named as the subcommand. Only the one being run is
# imported (with its library: validate never imports jsonnet), so a run starts fast.
SUBCOMMANDS = ("render", "validate", "job", "convert", "local", "completion")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of the subcommand ``only`` alone."""
    from generator.cli import flags  # here: --version needs no parser

    parser = argparse.ArgumentParser(
        prog="paddlejob-manifests",
        description=__doc__.split("\n\n")[0],
        epilog="exit codes: 0 success, 1 findings, 2 usage error, 3 internal error",
        formatter_class=flags.HelpFormatter,
    )
    parser.add_argument(
        "--version", "-v", action="version", version=f"paddlejob-manifests {__version__} ({compiled.build()})"
    )
    sub = parser.add_subparsers(dest="subcommand", required=True)
    for name in SUBCOMMANDS:
        if only in (None, name):
            importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    parser.set_defaults(subparsers=sub.choices)
    return parser


# The cyclic collector's thresholds for a process (Python's: 700, 10, 10). A run builds hundreds
# of thousands of long-lived containers (modules, schemas, validators), then short-lived acyclic
# data per document; collecting every 700 allocations walks the long-lived ones again and again.
# Cycles are still collected, less often: the memory stays flat (bench/validate_bench.py).
GC_THRESHOLDS = (50_000, 20, 20)


def entry_point() -> int:
    """The process's entry (the console script, `python -m generator`): main, with the
    collector set for a short-lived process, and the process ended as soon as main returns.
    A caller in a long-lived one calls main."""
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        code = main()
    except SystemExit as exit:  # argparse's: --help, a usage error (its message is said)
        code = exit.code if isinstance(exit.code, int) else 0 if exit.code is None else 1
        if isinstance(exit.code, str):
            print(visible(exit.code, lines=True), file=sys.stderr)
    finally:
        # What is alive now lives until the process ends: the collection at exit need not walk
        # it (a fifth of a small file's time went there).
        gc.freeze()
    code = _flush_stdout(code)
    _end_now(code)
    return code


class OutputError(Exception):
    """Standard output cannot be written: closed, a full disk (/dev/full), a reader that left."""

    def __init__(self, cause: BaseException | None):
        self.broken_pipe = isinstance(cause, BrokenPipeError)
        why = getattr(cause, "strerror", None) or ("it is closed" if cause is None else str(cause))
        super().__init__(f"cannot write to standard output: {why}")


class _Stdout:
    """sys.stdout while main runs: whatever a subcommand writes (print, sys.stdout.write, a
    library's output), a failure to write it is an OutputError, which main says once for all."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        if self.stream is None:  # started with stdout closed (`>&-`)
            raise OutputError(None)
        try:
            return self.stream.write(text)
        except UnicodeError:  # text it cannot encode: the output's bug, not the stream's
            raise
        except (OSError, ValueError) as err:  # ValueError: a closed stream
            raise OutputError(err) from None

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.stream is None:
            return
        try:
            self.stream.flush()
        except (OSError, ValueError) as err:
            raise OutputError(err) from None

    def isatty(self) -> bool:
        return self.stream is not None and self.stream.isatty()

    def __getattr__(self, name: str):
        if self.stream is None:
            raise OutputError(None)
        return getattr(self.stream, name)


class _Stderr:
    """sys.stderr while main runs: every message (this tool's errors, notes and warnings,
    argparse's usage errors, a library's warning) is written through core.text.visible, a line
    at a time, so that nothing an input holds (a file name, a value a message quotes) drives the
    terminal, forges a line or runs a CI command. A line is held until it ends or stderr is
    flushed, as Python holds it on its line-buffered stderr."""

    def __init__(self, stream):
        self.stream = stream
        self.pending = ""

    def write(self, text: str) -> int:
        self.pending += text
        end = self.pending.rfind("\n") + 1
        if end:
            lines, self.pending = self.pending[:end], self.pending[end:]
            self.stream.write(visible(lines, lines=True))
        return len(text)

    def flush(self) -> None:
        if self.pending:
            text, self.pending = self.pending, ""
            self.stream.write(visible(text, lines=True))
        self.stream.flush()

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


# Said already by main: what stays buffered is dropped at the end, not said again.
_stdout_failed = False


def _flush_stdout(code: int) -> int:
    """What is left in stdout's buffer written before the process ends (where a failure can be
    said and given exit 2), not at the interpreter's exit (a traceback, exit 120); after a
    failure, stdout is pointed at the null device so that the exit has nothing to fail on."""
    if sys.stdout is None:
        return code
    try:
        sys.stdout.flush()
        return code
    except (OSError, ValueError) as err:
        _drop_stdout()
        if _stdout_failed:
            return code
        failure = OutputError(err)
        if failure.broken_pipe:
            return code or 1
        print(f"paddlejob-manifests: error: {failure}", file=sys.stderr)
        return 2


def _drop_stdout() -> None:
    """Output that could not be written is dropped: stdout's descriptor becomes the null device."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def _end_now(code: int) -> None:
    """End the process with ``code`` now, without the interpreter's teardown: it frees every
    object one at a time (a twentieth of a small file's run), the end of the process all at
    once. Not when there is more to do at exit: functions registered with atexit (none of
    this tool's, a library's perhaps), another thread, or output that cannot be written."""
    import atexit

    threading = sys.modules.get("threading")
    if getattr(atexit, "_ncallbacks", lambda: 1)() or (threading and threading.active_count() > 1):
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # a closed pipe or stream: Python's exit says so, as ever
        return
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = "paddlejob-manifests" + (f" {argv[0]}" if argv and argv[0] in SUBCOMMANDS else "")
    global _stdout_failed
    real, real_stderr = sys.stdout, sys.stderr
    sys.stdout = _Stdout(real)  # the one place that turns a failure to write stdout into exit 2
    if real_stderr is not None:
        sys.stderr = _Stderr(real_stderr)  # the one place that escapes what stderr says
    try:
        code = _main(argv)
        sys.stdout.flush()  # what is buffered fails here, where it can be said, not at exit
        return code
    except OutputError as err:
        _stdout_failed = True
        if err.broken_pipe:  # `... | head`: the reader left; nothing more to say
            return 1
        print(f"{command}: error: {err}", file=sys.stderr)
        return 2
    finally:
        sys.stdout = real
        if sys.stderr is not real_stderr:
            with contextlib.suppress(OSError, ValueError):  # a closed stderr: nothing can be said
                sys.stderr.flush()
            sys.stderr = real_stderr


def _main(argv: list[str]) -> int:
    if argv in (["--version"], ["-v"]):  # what argparse's version action prints, without building a parser
        print(f"paddlejob-manifests {__version__} ({compiled.build()})")  # which build runs
        return 0
    completing = "_ARGCOMPLETE" in os.environ
    parser = build_parser(argv[0] if argv and argv[0] in SUBCOMMANDS and not completing else None)
    if completing:
        import argcomplete

        argcomplete.autocomplete(parser)  # answers the shell's completion request
    if argv and argv[0] in SUBCOMMANDS and not completing:
        from generator.cli import flags

        subparser = parser.get_default("subparsers")[argv[0]]
        habit = flags.misread_habit(subparser, argv[1:])
        if habit:  # `-output json` read by argparse as `-o utput`: said before it is misread
            subparser.error(habit)
    args, extras = parser.parse_known_args(argv)
    args.end_of_options = "--" in argv  # `--` given: what follows it is a path, never a flag
    args.argv = argv[1:] if argv and argv[0] == args.subcommand else argv  # the config file gives way to it
    if extras:  # said under the subcommand's usage, not the top-level one
        from generator.cli import flags

        args.subparsers[args.subcommand].error(flags.unrecognized(args.subparsers[args.subcommand], extras))
    try:
        return args.func(args)
    except InputError as err:
        print(f"paddlejob-manifests {args.subcommand}: error: {err}", file=sys.stderr)
        return 2
    except Error as err:  # expected, and not turned into findings by the handler: never exit 3
        print(f"paddlejob-manifests {args.subcommand}: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"paddlejob-manifests {args.subcommand}: interrupted", file=sys.stderr)
        return 130
    except OutputError:
        raise
    except Exception as err:  # noqa: BLE001 - the one place that turns a bug into exit 3
        import traceback  # here: a run that goes well never needs it

        where = traceback.extract_tb(err.__traceback__)[-1]
        print(
            f"paddlejob-manifests {args.subcommand}: internal error: {type(err).__name__}: {err} "
            f"(at {where.filename.rsplit('/', 2)[-1]}:{where.lineno}); this is a bug, please report it "
            f"with the command and input at {BUG_REPORT}",
            file=sys.stderr,
        )
        return 3
