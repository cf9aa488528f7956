"""`paddlejob-manifests validate`: check manifests offline, report each problem with file:line."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from generator import validate
from generator.cli import flags
from generator.core import rulebook
from generator.core.errors import InputError
from generator.core.kinds import PROJECTS
from generator.core.text import visible
from generator.schema import kubernetes
from generator.validate import discover
from generator.validate import output as outputs
from generator.validate import sources as schemasource

VALIDATE_EXAMPLE = """\
examples:
  paddlejob-manifests validate jobs/                      # every *.yaml, *.yml, *.json below jobs/
  paddlejob-manifests validate --kube-version 1.20 job.yaml
  kustomize build overlays/prod | paddlejob-manifests validate -
  paddlejob-manifests validate --output json deploy/ > findings.json
  paddlejob-manifests validate --skip-rules env-duplicate,paddlejob-gloo jobs/
  paddlejob-manifests validate --crd crds/ --crd cert-manager.crds.yaml manifests/
  paddlejob-manifests validate --list-rules
  paddlejob-manifests validate --build clusters/      # kustomizations and charts built, as Argo CD and Flux do
  paddlejob-manifests validate --output sarif=results.sarif --output text clusters/   # a file and the log

output: FILE:LINE:COLUMN: error|warning: KIND/NAME: PATH: message [rule]
ignore: an object's annotation ignore-check.paddlejob-manifests.io/RULE: "reason" silences RULE on it
config: --config FILE, else .paddlejob-manifests.yaml from here up to the repository's root, else
        [tool.paddlejob-manifests] in pyproject.toml: the flags' long names as keys; flags given win
exit:   0 no errors (warnings allowed), 1 errors found, 2 usage error, 3 internal error (a bug)
"""

# Flags a configuration file may not set: what only a command line says (which file, what to
# list), and what chooses the programs --build runs or lifts its sandbox, which a file a pull
# request can change must never choose.
COMMAND_LINE_ONLY = {
    "config": "the file itself",
    "no-config": "the file itself",
    "list-rules": "a command, not a setting",
    "require-end-of-options": "the pre-commit hook's entry",
    "kubectl": "the program --build runs: a file a pull request can change must not choose it",
    "helm": "the program --build runs: a file a pull request can change must not choose it",
    "build-unconfined": "it lifts --build's sandbox: a file a pull request can change must not",
}
# Keys of the file with another name than the flag's: `crds: [...]` is `--crd` given for each.
CONFIG_ALIASES = {"crds": "crd"}
COLOURS = ("auto", "always", "never")


def add_parser(sub) -> None:
    newest = kubernetes.version_name(kubernetes.newest())
    p = sub.add_parser(
        "validate",
        help="check manifests before kubectl apply, offline",
        description="Check Kubernetes, PaddleJob, Volcano and Kubeflow manifests the way the "
        "apiserver and the operators would, and report each problem with its file, line and field.",
        epilog=VALIDATE_EXAMPLE,
        formatter_class=flags.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="file, directory (recursive) or - for stdin")
    p.add_argument(
        "--require-end-of-options",
        action="store_true",
        help="refuse to run (exit 2) unless the arguments hold `--`, after which every argument is a PATH: "
        "the pre-commit hook's entry gives it, so that a committed file named like a flag is never read as one",
    )
    flags.add_kube_version(
        p, f"Kubernetes release to check against (default: {newest}; a file `render` wrote: the releases it records)"
    )
    p.add_argument(
        "--output",
        "-o",
        action="append",
        type=_output,
        metavar="FORMAT[=FILE]",
        help="text (default), json, junit (JUnit XML), sarif (SARIF 2.1.0: GitHub code scanning), github (Actions "
        "annotations), tap (Test Anything Protocol 13); FORMAT=FILE writes FILE (whole or not at all), FORMAT alone "
        "standard output (one at most); repeatable: --output sarif=results.sarif --output text",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="the configuration file (default: .paddlejob-manifests.yaml here or in a folder above, up to the "
        "repository's root, else [tool.paddlejob-manifests] in pyproject.toml); flags given win over it",
    )
    p.add_argument("--no-config", action="store_true", help="read no configuration file")
    p.add_argument(
        "--verbose", action="store_true", help="also list each finding an annotation ignored, with its reason"
    )
    p.add_argument(
        "--quiet", "-q", action="store_true", help="errors only: no warnings (still counted), notes or breakdown"
    )
    p.add_argument(
        "--color",
        "--colour",
        choices=COLOURS,
        default="auto",
        help="colour the text output: auto (default: on a terminal, without NO_COLOR), always, never",
    )
    p.add_argument("--strict-kinds", action="store_true", help="an object of a kind with no known schema is an error")
    p.add_argument(
        "--strict",
        action="store_true",
        help="fail on warnings too, and on kinds with no known schema (unknown fields are always errors)",
    )
    p.add_argument(
        "--summary",
        action="store_true",
        help="also print the summary line on stderr (the text output ends with it anyway), as kubeconform's -summary",
    )
    for project in PROJECTS:
        if project.validated:
            flags.add_project_version(p, project.name, project.checks)
    flags.add_kueue_version(
        p,
        "the Kueue release that queues the objects with a queue label: whether it has and enables their kind's "
        "integration, and a MultiKueue adapter for a job managed by kueue.x-k8s.io/multikueue (default: the "
        "newest this tool has read)",
    )
    p.add_argument(
        "--crd",
        action="append",
        default=[],
        metavar="PATH",
        help="a CRD file, a folder of them (CRD YAML files, or JSON Schemas laid out as the catalogs do: "
        "GROUP/KIND_VERSION.json) or an install manifest: their kinds are checked against the CRDs' schemas and "
        "x-kubernetes-validations rules; repeatable (`crds:` in the configuration file)",
    )
    p.add_argument(
        "--skip-kinds",
        metavar="KIND[,KIND...]",
        default="",
        help="do not check these kinds (Kind or apiVersion/Kind, comma-separated), as kubeconform's -skip; a Kind "
        "this tool does not know is refused (write GROUP/VERSION/Kind for a kind of your own)",
    )
    p.add_argument(
        "--ignore",
        action="append",
        metavar="REGEX",
        help="skip the files (named, or found in the folders named) whose path matches REGEX; repeatable",
    )
    p.add_argument(
        "--skip-rules",
        metavar="RULE[,RULE...]",
        default="",
        help="drop the findings of these rules (ids of --list-rules), as hadolint's --ignore",
    )
    p.add_argument(
        "--list-rules",
        action="store_true",
        help="print every rule (id, owner, severity, summary; --output json for data) and exit",
    )
    p.add_argument(
        "--fail-on-empty",
        action="store_true",
        help="exit 1 when the input holds no document (an empty pipe from a failed kustomize build)",
    )
    p.add_argument(
        "--max-errors",
        type=int,
        default=1000,
        metavar="N",
        help="stop reading after N errors (default: %(default)s; 0: read everything)",
    )
    p.add_argument(
        "--build",
        action="store_true",
        help="build each kustomization folder (kubectl kustomize DIR) and render each Helm chart (helm template, "
        "its default values), as Argo CD and Flux do, and check the output; findings name the source file. "
        "Nothing remote, no plugin or function, no network (docs/security.md)",
    )
    p.add_argument("--kubectl", metavar="PATH", help="the kubectl that --build runs (default: the first on PATH)")
    p.add_argument("--helm", metavar="PATH", help="the helm that --build runs (default: the first on PATH)")
    p.add_argument(
        "--build-timeout",
        type=float,
        default=discover.BUILD_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help="seconds all the builds of the run may take together (default: %(default)g); a build still running "
        "then is stopped and one not started is not run, each an error",
    )
    p.add_argument(
        "--build-unconfined",
        action="store_true",
        help="for files you trust, on a machine without bubblewrap: run kubectl and helm without the "
        "operating-system sandbox --build otherwise requires (the checks before each build still hold)",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=0,
        metavar="N",
        help="processes that check many files at once (default: 0, one per free core when there is enough work; "
        "1: this process alone; N: N whatever the load); the report is the same",
    )
    p.set_defaults(func=cmd_validate)


def _rule_ids(text: str) -> frozenset[str]:
    ids = frozenset(r.strip() for r in text.split(",") if r.strip())
    unknown = sorted(ids - set(rulebook.RULES))
    if unknown:
        import difflib  # here: only a mistyped rule needs a suggestion

        hint = difflib.get_close_matches(unknown[0], list(rulebook.RULES), n=1)
        also = f"; did you mean {hint[0]!r}?" if hint else " (--list-rules shows them)"
        raise InputError(f"--skip-rules: no rule {unknown[0]!r}{also}")
    return ids


def _tools(args: argparse.Namespace) -> dict[str, str | None]:
    """The executables --build runs, by the tool each kind of folder needs."""
    tools = {}
    for tool, name in (("kustomize", "kubectl"), ("helm", "helm")):
        given = getattr(args, name)
        if given and not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise InputError(f"--{name}: {given}: no executable file there")
        tools[tool] = _builder().find_tool(name, given and os.path.abspath(given))  # the tool runs in another folder
    return tools


def _output(value: str) -> tuple[str, str | None]:
    """--output FORMAT or FORMAT=FILE, parsed once (argparse's type)."""
    name, equals, path = value.partition("=")
    if name not in outputs.FORMATS:
        import difflib  # here: only a mistyped format needs it

        close = difflib.get_close_matches(name, list(outputs.FORMATS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise argparse.ArgumentTypeError(
            f"no format {name!r} (choose from {', '.join(outputs.FORMATS)}; FORMAT=FILE writes a file){hint}"
        )
    if equals and not path:
        raise argparse.ArgumentTypeError(f"{value!r}: no file after '='")
    return name, (path or None)


def _given(parser: argparse.ArgumentParser, argv: list[str]) -> set[str]:
    """The dests the command line sets (the file's settings give way to them): argv parsed
    again with every default suppressed, so only what it holds is in the result."""
    saved = [(action, action.default) for action in parser._actions]
    try:
        for action, _ in saved:
            action.default = argparse.SUPPRESS
        given, _ = parser.parse_known_args(argv, argparse.Namespace())
    finally:
        for action, default in saved:
            action.default = default
    return set(vars(given))


def apply_config(args: argparse.Namespace, parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """The configuration file's settings into ``args`` where the command line gave nothing; each
    value parsed as its flag's value is. Returns the file read, if any."""
    from generator.validate import config

    path = args.config or (None if args.no_config else config.find())
    if args.config and args.no_config:
        raise InputError("--config and --no-config: give one")
    if path is None:
        return None
    if args.config and not os.path.exists(path):
        raise InputError(f"--config: {path}: no such file")
    loaded = config.load(path)
    actions = {
        option[2:]: action
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--") and action.dest != "help"
    }
    given = _given(parser, argv)
    folder = os.path.dirname(path)
    for setting in loaded.settings:
        where = loaded.where(setting)
        key = setting.key if isinstance(setting.key, str) else str(setting.key)
        name = CONFIG_ALIASES.get(key, key)
        if name in COMMAND_LINE_ONLY:
            raise InputError(f"{where}: {key!r} is for the command line only ({COMMAND_LINE_ONLY[name]})")
        action = actions.get(name)
        if action is None:
            import difflib

            known = sorted({*actions, *CONFIG_ALIASES} - set(COMMAND_LINE_ONLY))
            close = difflib.get_close_matches(key.replace("_", "-"), known, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else f" (keys: {', '.join(known)})"
            raise InputError(visible(f"{where}: no setting {key!r}{hint}"))
        if action.dest in given:
            continue
        setattr(args, action.dest, _setting_value(parser, action, setting.value, f"{where}: {key}", folder))
    return path


def _setting_value(parser, action, value, where: str, folder: str):
    """A setting's value as the flag's parser makes it: a boolean for a switch, a list for a
    repeatable flag (a string alone is one item), a comma-separated list's items joined."""
    if isinstance(action, argparse._StoreTrueAction):
        if not isinstance(value, bool):
            raise InputError(visible(f"{where}: expected true or false, got {value!r}"))
        return value
    if isinstance(action, argparse._AppendAction):
        items = value if isinstance(value, list) else [value]
        return [_one_value(parser, action, item, where, folder) for item in items]
    if isinstance(value, list) and action.metavar and "," in str(action.metavar):
        return ",".join(str(_one_value(parser, action, item, where, folder)) for item in value)
    return _one_value(parser, action, value, where, folder)


def _one_value(parser, action, value, where: str, folder: str):
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InputError(visible(f"{where}: expected a string or number, got {value!r}"))
    try:
        parsed = parser._get_values(action, [str(value)]) if action.nargs is None else str(value)
    except argparse.ArgumentError as err:
        raise InputError(visible(f"{where}: {err.message}")) from None
    if isinstance(parsed, list):
        (parsed,) = parsed
    if action.dest == "crd":
        parsed = _in_config_folder(parsed, folder, where, "--crd")
    if action.dest == "output" and parsed[1] is not None:
        parsed = (parsed[0], _in_config_folder(parsed[1], folder, where, "--output"))
    return parsed


def _in_config_folder(path: str, folder: str, where: str, flag: str) -> str:
    """A file the configuration names (a CRD to read, an output to write), relative to the
    file's folder and inside it, links resolved: a file a pull request can change must not make
    a run read or write elsewhere on the machine."""
    base = os.path.realpath(folder or ".")
    target = os.path.realpath(os.path.join(base, path))
    if os.path.isabs(path) or not (target == base or target.startswith(base.rstrip(os.sep) + os.sep)):
        raise InputError(
            visible(f"{where}: {path!r} is outside the configuration file's folder; give it with {flag} instead")
        )
    return os.path.relpath(os.path.join(folder, path)) if folder else path


def _skip_kinds(text: str, checker) -> frozenset[str]:
    """--skip-kinds, each Kind one this tool knows (a typo would otherwise skip nothing, without
    a word); apiVersion/Kind of a group no schema here has is taken as a kind of the user's own."""
    skip = frozenset(k.strip() for k in text.split(",") if k.strip())
    if not skip:
        return skip
    from generator.core import kinds as registry

    known = checker.schemas.kinds()
    names = {kind for _, kind in known} | {entry.kind for entry in registry.KINDS}
    groups = {api_version.rpartition("/")[0] for api_version, _ in known}
    for entry in sorted(skip):
        api_version, _, kind = entry.rpartition("/")
        if kind in names or (api_version and api_version.rpartition("/")[0] not in groups):
            continue
        if not api_version and _in_other_release(kind):
            continue
        import difflib

        close = difflib.get_close_matches(kind, sorted(names), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InputError(
            visible(
                f"--skip-kinds: no kind {kind!r} is known here; {hint}"
                "(a kind of your own: GROUP/VERSION/Kind, or give its CRD with --crd)"
            )
        )
    return skip


def _in_other_release(kind: str) -> bool:
    """A built-in kind of another release (PodSecurityPolicy, gone in 1.25)."""
    return any(kind == k for minor in kubernetes.known_versions() for _, k in kubernetes.kinds(minor))


def _write_outputs(report, chosen: list[tuple[str, str | None]], colour: str) -> None:
    """Each output: a file written whole or not at all (a temporary file beside it, renamed),
    or standard output."""
    for name, path in chosen:
        if path is None:
            on = colour == "always" or (colour == "auto" and outputs.use_colour(sys.stdout))
            sys.stdout.write(outputs.FORMATS[name](report, colour=on))
        else:
            _write_atomically(path, outputs.FORMATS[name](report, colour=False))


def _write_atomically(path: str, text: str) -> None:
    import tempfile  # here: only an output file needs it

    folder = os.path.dirname(path) or "."
    try:
        fd, staged = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", dir=folder)
    except OSError as err:
        raise InputError(visible(f"--output: {path}: cannot write there: {err.strerror or err}")) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(staged, 0o644)
        os.replace(staged, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise InputError(visible(f"--output: {path}: cannot write it: {err.strerror or err}")) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise


def cmd_validate(args: argparse.Namespace) -> int:
    parser = args.subparsers["validate"] if hasattr(args, "subparsers") else None
    argv = getattr(args, "argv", None)
    if parser is not None and argv is not None:
        apply_config(args, parser, argv)
    chosen = args.output or [("text", None)]
    to_stdout = [name for name, path in chosen if path is None]
    if len(to_stdout) > 1:
        raise InputError(
            f"--output: {' and '.join(to_stdout)} both to standard output; give all but one a file (FORMAT=FILE)"
        )
    files_out = [path for _, path in chosen if path is not None]
    if len(set(files_out)) < len(files_out):
        raise InputError("--output: a file named twice")
    if args.verbose and args.quiet:
        raise InputError("--verbose and --quiet: give one")
    if args.list_rules:
        (name, path), *more = chosen
        if more or path is not None or name not in outputs.RULE_LISTS:
            raise InputError(f"--list-rules: --output is {' or '.join(outputs.RULE_LISTS)}")
        sys.stdout.write(outputs.RULE_LISTS[name]())
        return 0
    if args.require_end_of_options and not getattr(args, "end_of_options", False):
        raise InputError(
            "--require-end-of-options: no `--` before the paths; end the hook's `args:` with `--` "
            '(args: [--kube-version, "1.30", --]), so that no file name is read as a flag'
        )
    if not args.paths:
        raise InputError("give a PATH to check (a file, a folder, or - for stdin)")
    skip_rules = _rule_ids(args.skip_rules)
    minor = args.kube_version
    if args.max_errors < 0:
        raise InputError(f"--max-errors: expected 0 or more, got {args.max_errors}")
    if args.jobs < 0:
        raise InputError(f"--jobs: expected 0 or more, got {args.jobs}")
    for option in ("kubectl", "helm", "build_unconfined"):
        if getattr(args, option) and not args.build:
            raise InputError(f"--{option.replace('_', '-')}: only --build runs it; add --build")
    if not 0 < args.build_timeout <= 86400:  # nan and inf too
        raise InputError(f"--build-timeout: expected seconds above 0, at most 86400, got {args.build_timeout:g}")
    found = discover.find(args.paths, args.ignore, build=args.build)
    if not args.quiet:
        for path, why in found.skipped:
            print(visible(f"{path}: skipped: {why}"), file=sys.stderr)
    tools = _tools(args) if args.build else {}
    projects = {p.name: getattr(args, f"{p.name.replace('-', '_')}_version") for p in PROJECTS if p.validated}
    try:
        crds = schemasource.CrdSource(args.crd) if args.crd else None
    except schemasource.CrdLoadError as err:
        raise InputError(f"--crd: {err}") from None
    newest = kubernetes.newest()
    checker = validate.ObjectChecker(
        minor or newest,
        args.strict_kinds or args.strict,
        follow_records=minor is None,
        crds=crds,
        projects=projects,
        kueue=args.kueue_version,
    )
    skip = _skip_kinds(args.skip_kinds, checker)
    if skip:
        checker = validate.ObjectChecker(
            minor or newest,
            args.strict_kinds or args.strict,
            skip_kinds=skip,
            follow_records=minor is None,
            crds=crds,
            projects=projects,
            kueue=args.kueue_version,
        )
    roots = [os.path.realpath(p) for p in args.paths if p != "-" and os.path.isdir(p)]
    kube_version = kubernetes.version_name(minor or newest)
    # with nothing to build, build.py (and subprocess, shutil, tempfile) is never loaded
    built, refused, notes = (
        _builder().build_all(found.builds, tools, roots, kube_version, args.build_timeout, args.build_unconfined)
        if found.builds
        else ([], [], [])
    )
    if not args.quiet:
        for path, why in notes:
            print(visible(f"{path}: skipped: {why}"), file=sys.stderr)
    covered = frozenset().union(*(b.inputs for b in built))
    files = []
    for name in found.files:
        if covered and os.path.realpath(name) in covered:
            if not args.quiet:
                print(f"{visible(name)}: checked as a kustomization that names it builds it", file=sys.stderr)
        else:
            files.append(name)
    try:
        report = validate.validate_files(files, checker, args.max_errors, skip_rules, args.jobs or None)
        for item in refused:
            report.add(item)
        if built:
            _builder().check(built, checker, report)
    except schemasource.CrdLoadError as err:  # a CRD is parsed when its kind is first met
        raise InputError(f"--crd: {err}") from None
    files += [b.target.file for b in built]
    report.files = len(files)
    report.skipped_files = list(found.skipped) + list(notes)
    validate.note_empty(report, files, fail=args.fail_on_empty, named=args.paths)
    report.strict = args.strict
    report.verbosity = 0 if args.quiet else 2 if args.verbose else 1
    _write_outputs(report, chosen, args.color)
    if args.summary and "text" not in to_stdout:
        print(outputs.summary(report), file=sys.stderr)
    return 0 if report.valid else 1


def _builder():
    """validate/build.py, imported when --build asks for it: it loads the checker's stream."""
    from generator.validate import build

    return build
