"""`paddlejob-manifests validate`: check manifests offline, report each problem with file:line."""

from __future__ import annotations

import argparse
import os
import sys

from generator import validate
from generator.cli import flags
from generator.core import rulebook
from generator.core import values as cliargs
from generator.core.kinds import PROJECTS
from generator.core.text import visible
from generator.schema import kubernetes as kube
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

output: FILE:LINE:COLUMN: error|warning: KIND/NAME: PATH: message [rule]
exit:   0 no errors (warnings allowed), 1 errors found, 2 usage error
"""


def add_parser(sub) -> None:
    newest = kube.version_name(kube.newest())
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
    flags.add_output(
        p,
        sorted(outputs.FORMATS),
        "text",
        help="text, json, junit (JUnit XML), sarif (SARIF 2.1.0: GitHub code scanning), github (Actions "
        "annotations), tap (Test Anything Protocol 13)",
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
    p.add_argument(
        "--crd",
        action="append",
        default=[],
        metavar="PATH",
        help="a CRD file, a folder of them or an install manifest: their kinds are checked against "
        "the CRDs' schemas and x-kubernetes-validations rules; repeatable",
    )
    p.add_argument(
        "--skip-kinds",
        metavar="KIND[,KIND...]",
        default="",
        help="do not check these kinds (Kind or apiVersion/Kind, comma-separated), as kubeconform's -skip",
    )
    p.add_argument(
        "--ignore",
        action="append",
        metavar="REGEX",
        help="skip files under the folders named whose path matches REGEX; repeatable",
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
        raise cliargs.InputError(f"--skip-rules: no rule {unknown[0]!r}{also}")
    return ids


def _tools(args: argparse.Namespace) -> dict[str, str | None]:
    """The executables --build runs, by the tool each kind of folder needs."""
    tools = {}
    for tool, name in (("kustomize", "kubectl"), ("helm", "helm")):
        given = getattr(args, name)
        if given and not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise cliargs.InputError(f"--{name}: {given}: no executable file there")
        tools[tool] = _builder().find_tool(name, given and os.path.abspath(given))  # the tool runs in another folder
    return tools


def cmd_validate(args: argparse.Namespace) -> int:
    if args.list_rules:
        if args.output not in outputs.RULE_LISTS:
            raise cliargs.InputError(f"--list-rules: --output is {' or '.join(outputs.RULE_LISTS)}")
        sys.stdout.write(outputs.RULE_LISTS[args.output]())
        return 0
    if args.require_end_of_options and not getattr(args, "end_of_options", False):
        raise cliargs.InputError(
            "--require-end-of-options: no `--` before the paths; end the hook's `args:` with `--` "
            '(args: [--kube-version, "1.30", --]), so that no file name is read as a flag'
        )
    if not args.paths:
        raise cliargs.InputError("give a PATH to check (a file, a folder, or - for stdin)")
    skip_rules = _rule_ids(args.skip_rules)
    minor = args.kube_version
    if args.max_errors < 0:
        raise cliargs.InputError(f"--max-errors: expected 0 or more, got {args.max_errors}")
    if args.jobs < 0:
        raise cliargs.InputError(f"--jobs: expected 0 or more, got {args.jobs}")
    for option in ("kubectl", "helm", "build_unconfined"):
        if getattr(args, option) and not args.build:
            raise cliargs.InputError(f"--{option.replace('_', '-')}: only --build runs it; add --build")
    if not 0 < args.build_timeout <= 86400:  # nan and inf too
        raise cliargs.InputError(
            f"--build-timeout: expected seconds above 0, at most 86400, got {args.build_timeout:g}"
        )
    found = discover.find(args.paths, args.ignore, build=args.build)
    for path, why in found.skipped:
        print(visible(f"{path}: skipped: {why}"), file=sys.stderr)
    tools = _tools(args) if args.build else {}
    skip = frozenset(k.strip() for k in args.skip_kinds.split(",") if k.strip())
    projects = {p.name: getattr(args, f"{p.name.replace('-', '_')}_version") for p in PROJECTS if p.validated}
    try:
        crds = schemasource.CrdSource(args.crd) if args.crd else None
    except schemasource.CrdLoadError as err:
        raise cliargs.InputError(f"--crd: {err}") from None
    newest = kube.newest()
    checker = validate.ObjectChecker(
        minor or newest,
        args.strict_kinds or args.strict,
        skip_kinds=skip,
        follow_records=minor is None,
        crds=crds,
        projects=projects,
    )
    roots = [os.path.realpath(p) for p in args.paths if p != "-" and os.path.isdir(p)]
    kube_version = kube.version_name(minor or newest)
    # with nothing to build, build.py (and subprocess, shutil, tempfile) is never loaded
    built, refused, notes = (
        _builder().build_all(found.builds, tools, roots, kube_version, args.build_timeout, args.build_unconfined)
        if found.builds
        else ([], [], [])
    )
    for path, why in notes:
        print(visible(f"{path}: skipped: {why}"), file=sys.stderr)
    covered = frozenset().union(*(b.inputs for b in built))
    files = []
    for name in found.files:
        if covered and os.path.realpath(name) in covered:
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
        raise cliargs.InputError(f"--crd: {err}") from None
    files += [b.target.file for b in built]
    validate.note_empty(report, files, fail=args.fail_on_empty)
    report.strict = args.strict
    sys.stdout.write(outputs.FORMATS[args.output](report, colour=outputs.use_colour(sys.stdout)))
    if args.summary and args.output != "text":
        print(outputs.summary(report), file=sys.stderr)
    return 0 if report.valid else 1


def _builder():
    """validate/build.py, imported when --build asks for it: it loads the checker's stream."""
    from generator.validate import build

    return build
