"""`paddlejob-manifests render`: the install bundles (and generated files) into deploy/, or a job file."""

from __future__ import annotations

import argparse
import copy
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from generator.cli import flags
from generator.core import provenance, values
from generator.core.paths import DEPLOY

if TYPE_CHECKING:
    from generator.render import pipeline as render

# The renderer, the job library, the sandbox and the writer are imported by the functions that
# use them: `render --help` loads none of them, nor the validator they load (tests/test_registry.py).

STDOUT = Path("-")
# the flags for what a render writes besides the bundles (render.Generated's fields)
GENERATED = (
    "lib_out",
    "job_lib_out",
    "jsonschema_out",
    "api_doc",
    "runtimes_doc",
    "rules_doc",
    "chart_out",
    "examples",
    "trainer",
)
# jsonnet's flags for variables, by the sandbox's name for each kind
VARIABLE_FLAGS = {
    "ext_vars": "--ext-str",
    "ext_codes": "--ext-code",
    "tla_vars": "--tla-str",
    "tla_codes": "--tla-code",
}

RENDER_EXAMPLE = """\
examples:
  paddlejob-manifests render                          # deploy/v1 and deploy/v1beta1
  paddlejob-manifests render --check                  # fail and show the diff if deploy/ is stale
  paddlejob-manifests render --namespace training --scheduling volcano --network-policy
  paddlejob-manifests render --kube-version 1.15      # v1beta1 bundle for 1.15 (int-or-string markers)
  paddlejob-manifests render --keep-descriptions --out /tmp/explain   # for `kubectl explain`
  paddlejob-manifests render examples/resnet.jsonnet   # a job written with libsonnet/paddlejob
"""


def operator_params(args: argparse.Namespace) -> dict:
    """The jsonnet config (config.libsonnet) from --params FILE and the flags; flags win."""
    from generator.render import params as params_module

    params: dict = params_module.read_params_file(args.params) if args.params else {}
    if args.namespace is not None:
        params["namespace"] = values.namespace("--namespace", args.namespace)
    if args.no_namespace:
        params["createNamespace"] = False
    if args.no_keep_jobs:
        params["keepJobs"] = False
    for flag, key in (("pod_security", "podSecurity"), ("job_pod_security", "jobPodSecurity")):
        if getattr(args, flag) is not None:
            params[key] = "" if getattr(args, flag) == "none" else getattr(args, flag)
    if args.job_namespace is not None:
        params["jobNamespace"] = values.namespace("--job-namespace", args.job_namespace, allow_empty=True)
    if args.watch_namespace is not None:
        params["watchNamespace"] = values.namespace("--watch-namespace", args.watch_namespace, allow_empty=True)
    for flag, key in (("image", "image"), ("init_image", "initImage"), ("image_pull_policy", "imagePullPolicy")):
        if getattr(args, flag) is not None:
            params[key] = getattr(args, flag)
    if args.scheduling is not None:
        params["scheduling"] = "" if args.scheduling == "none" else args.scheduling
    if args.replicas is not None:
        params["replicas"] = args.replicas
    resources = {"requests": args.requests, "limits": args.limits}
    if any(resources.values()):  # only what is given; the other keeps its default
        params["resources"] = {k: values.resources(f"--{k}", v) for k, v in resources.items() if v}
    if args.image_pull_secret:
        params["imagePullSecrets"] = args.image_pull_secret
    if args.node_selector:
        params["nodeSelector"] = values.labels("--node-selector", args.node_selector)
    if args.toleration:
        params["tolerations"] = [values.toleration(value) for value in args.toleration]
    if args.label:
        params["labels"] = values.labels("--label", args.label)
    if args.network_policy:
        params["networkPolicy"] = True
    if args.trainer_runtimes:
        params["trainerRuntimes"] = True
    if args.apiserver_port:
        params["apiserverPorts"] = args.apiserver_port
    return params_module.check(params)


class _HelpAll(argparse.Action):
    """--help-all: the help with the maintainers' flags, which --help leaves out."""

    def __init__(self, *args, hidden: dict, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.hidden = hidden

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        for action, text in self.hidden.items():
            action.help = text
        parser.print_help()
        parser.exit()


def add_parser(sub) -> None:
    p = sub.add_parser(
        "render",
        help="render and validate deploy/v1 and deploy/v1beta1",
        description="Render the operator install bundles, validate every object, write them atomically.",
        epilog=RENDER_EXAMPLE,
        formatter_class=flags.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "file",
        nargs="?",
        metavar="FILE.jsonnet",
        help="render a job written with libsonnet/paddlejob to stdout instead of the bundles",
    )
    flags.add_output(
        p, help="with FILE or --out -: the manifests' format (json: a v1 List); else json prints what was written"
    )
    files = p.add_argument_group("a job file (FILE.jsonnet)")
    files.add_argument(
        "-J",
        "--jpath",
        action="append",
        type=Path,
        metavar="DIR",
        help="another folder imports may come from (libsonnet/ and FILE's folder always may)",
    )
    files.add_argument(
        "--allow-import-anywhere",
        action="store_true",
        help="let imports read any regular file (by default only FILE's folder, libsonnet/ and -J)",
    )
    for kind, flag in VARIABLE_FLAGS.items():
        what = "a string" if kind.endswith("vars") else "jsonnet code"
        scope = "external variable (std.extVar)" if kind.startswith("ext") else "top-level argument"
        files.add_argument(flag, dest=kind, action="append", metavar="NAME[=VALUE]", help=f"{scope}, {what}")
    bundles = p.add_argument_group("the bundles")
    bundles.add_argument(
        "--out",
        type=Path,
        default=DEPLOY,
        help="output directory (default: %(default)s); `-` prints one bundle to stdout (-o yaml or json)",
    )
    bundles.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 with a diff when the objects on disk differ from a fresh render",
    )
    bundles.add_argument(
        "--exact",
        action="store_true",
        help="with --check: compare bytes, so formatting differences are drift too (this repository's own check)",
    )
    flags.add_kube_version(
        bundles,
        "render only the bundle serving 1.N and newer, e.g. 1.13 (v1beta1) or 1.19 (v1); with FILE: check at 1.N",
    )
    bundles.add_argument(
        "--keep-descriptions",
        action="store_true",
        help="keep field descriptions in the CRDs (for kubectl explain; too large for client-side apply)",
    )
    # What this repository's `make manifests` writes besides the bundles: shown by --help-all
    maintainer = p.add_argument_group("this repository's generated files (make manifests; shown by --help-all)")
    outputs = [
        ("--lib-out", {"type": Path, "help": "also write the generated API data the jsonnet library imports here"}),
        (
            "--job-lib-out",
            {
                "type": Path,
                "metavar": "DIR",
                "help": "also write the PaddleJob enums the job library (libsonnet/paddlejob) and `job` check against",
            },
        ),
        (
            "--jsonschema-out",
            {"type": Path, "metavar": "DIR", "help": "also write JSON Schemas per kind (kubeconform, editors) here"},
        ),
        ("--api-doc", {"type": Path, "metavar": "FILE", "help": "also write the API reference (markdown) here"}),
        (
            "--runtimes-doc",
            {
                "type": Path,
                "metavar": "FILE",
                "help": "also write the runtime tables (features.libsonnet, the controllers' lifecycle) into FILE",
            },
        ),
        (
            "--rules-doc",
            {
                "type": Path,
                "metavar": "FILE",
                "help": "also write the rule index (generator/core/rulebook.py) into FILE, between its markers",
            },
        ),
        (
            "--chart-out",
            {
                "type": Path,
                "metavar": "DIR",
                "help": "also write the Helm chart into DIR, e.g. charts/paddle-operator; its values default to "
                "config.libsonnet's (the operator flags do not change them)",
            },
        ),
        (
            "--examples",
            {
                "type": Path,
                "metavar": "DIR",
                "help": "also render DIR/*.jsonnet (job examples) into OUT/examples/, validated",
            },
        ),
        (
            "--trainer",
            {
                "action": "store_true",
                "help": "also write OUT/trainer/: the Paddle ClusterTrainingRuntimes for Kubeflow Trainer v2",
            },
        ),
    ]
    hidden = {}
    for flag, options in outputs:
        action = maintainer.add_argument(flag, **{**options, "help": argparse.SUPPRESS})
        hidden[action] = options["help"]
    p.add_argument(
        "--help-all",
        action=_HelpAll,
        nargs=0,
        default=argparse.SUPPRESS,
        hidden=hidden,
        help="show this help with the flags that write this repository's generated files, and exit",
    )
    g = p.add_argument_group("operator parameters (see libsonnet/paddle-operator/config.libsonnet)")
    g.add_argument("--params", help="YAML or JSON file of config fields; the flags below override it")
    g.add_argument("--namespace", help="namespace to install into (default: paddle-system)")
    g.add_argument(
        "--no-namespace", action="store_true", help="leave the Namespace out (made elsewhere; helm --create-namespace)"
    )
    g.add_argument(
        "--no-keep-jobs",
        action="store_true",
        help="no Argo CD/Flux annotations keeping the CRD and the jobs' namespace when the operator is pruned",
    )
    g.add_argument(
        "--pod-security",
        choices=["restricted", "baseline", "privileged", "none"],
        help="Pod Security level the operator's namespace enforces (default: restricted; none: no labels)",
    )
    g.add_argument(
        "--job-namespace",
        metavar="NS",
        help="a namespace for training jobs, made by the bundle ('' = none; default: paddle-jobs, '' with "
        "--watch-namespace)",
    )
    g.add_argument(
        "--job-pod-security",
        choices=["restricted", "baseline", "privileged"],
        help="Pod Security level of --job-namespace (default: baseline; privileged for hostNetwork, hostPath)",
    )
    g.add_argument("--watch-namespace", help="namespace whose jobs the operator runs ('' = all, the default)")
    g.add_argument("--image", help="controller image")
    g.add_argument(
        "--image-pull-policy", choices=["Always", "IfNotPresent", "Never"], help="of the operator's container"
    )
    g.add_argument("--init-image", help="init container image the operator adds to job pods")
    g.add_argument("--scheduling", choices=["volcano", "none"], help="gang-schedule jobs with Volcano")
    g.add_argument("--replicas", type=int, help="controller replicas")
    g.add_argument("--requests", metavar="cpu=Q,memory=Q", help="controller resource requests")
    g.add_argument("--limits", metavar="cpu=Q,memory=Q", help="controller resource limits")
    g.add_argument("--image-pull-secret", action="append", metavar="NAME", help="repeatable")
    flags.add_placement(g, labels_help="extra label on every object (selectors unchanged); repeatable")
    g.add_argument(
        "--network-policy", action="store_true", help="add a NetworkPolicy: DNS and apiserver egress, metrics ingress"
    )
    g.add_argument(
        "--trainer-runtimes",
        action="store_true",
        help="add the Paddle ClusterTrainingRuntimes for Kubeflow Trainer v2 (deploy/trainer/) to the v1 bundle: "
        "for clusters that run Trainer",
    )
    g.add_argument(
        "--apiserver-port",
        action="append",
        type=int,
        metavar="PORT",
        help="apiserver port for the NetworkPolicy (default: 443 and 6443); repeatable",
    )
    shaping = [*g._group_actions, *(a for a in p._actions if a.dest in ("kube_version", "keep_descriptions"))]
    p.set_defaults(func=cmd_render, parser=p, shaping_actions=shaping)


def shaping_flags(args: argparse.Namespace) -> list[str]:
    """The flags given that shape the objects (the operator parameters, --kube-version,
    --keep-descriptions), spelt out again: what each rendered file records."""
    out = []
    for action in args.shaping_actions:
        value = getattr(args, action.dest)
        if value is None or value is False:
            continue
        flag = action.option_strings[0]
        if action.dest == "kube_version":
            value = str(value)  # a KubeVersion: recorded as written, 1.N
        if value is True:
            out.append(flag)
        else:
            for item in value if isinstance(value, list) else [value]:
                out += [flag, str(item)]
    return out


# What a `# paddlejob-manifests:` record may give `render --check` without flags: the pull
# request writes the record, so only the flags that shape the objects and name no path (the
# operator parameters, --kube-version, --keep-descriptions). --params reads a file; --help,
# --out, -J, --examples and the like change what is read, written or done: never from a record.
RECORD_REFUSED = frozenset({"params"})
RECORD_LINE = "`# paddlejob-manifests:` line"


class _RecordRefused(Exception):
    pass


class _RecordParser(argparse.ArgumentParser):
    """A parser of recorded flags that raises instead of printing usage and exiting."""

    def error(self, message: str):
        raise _RecordRefused(message)


def _given(args: argparse.Namespace, action: argparse.Action) -> bool:
    value = getattr(args, action.dest)
    return value is not None and value is not False


def with_recorded_flags(args: argparse.Namespace) -> argparse.Namespace:
    """`render --check --out DIR`: the flags DIR's files were rendered with (the operator's flags
    only, parse_record), each unless the command line gives it: flags given win, the others are
    the record's (a --params FILE of yours turns the record off)."""
    from generator.render import pipeline as render

    if args.out == STDOUT or args.params:
        return args
    if not args.out.is_dir():
        render.check_folders(args.out)  # a file where a folder of --out goes: said as a render says it
        raise values.InputError(
            f"--out {args.out}: no such folder to check; render it first "
            f"(`paddlejob-manifests render --out {args.out} ...`) or point --out at the rendered folder"
        )
    try:
        found = render.recorded(args.out)
    except provenance.ProvenanceError as err:
        raise values.InputError(str(err)) from None
    if not found:
        return args
    again = parse_record(args, *found)
    for action in args.shaping_actions:
        if action.dest not in RECORD_REFUSED and not _given(args, action):
            setattr(args, action.dest, getattr(again, action.dest))
    return args


def parse_record(args: argparse.Namespace, where: str, recorded: list[str]) -> argparse.Namespace:
    """The flags a rendered file records (``where``: FILE:LINE), parsed against the operator's
    flags alone; InputError (exit 2, nothing compared) naming the file and the flag for anything
    else, a flag that reads a file (--params) or prints help (--help) as much as a typo."""
    allowed = [a for a in args.shaping_actions if a.dest not in RECORD_REFUSED]
    options = {option: action for action in allowed for option in action.option_strings}
    todo = (
        "render --check takes only the operator's flags from a record; give the flags to check "
        "against on the command line (a --params FILE of yours turns the record off), or render "
        "again and commit the result"
    )
    i = 0
    while i < len(recorded):
        token = recorded[i]
        flag = token.split("=", 1)[0]
        if flag not in options:
            shown = token if len(token) <= 80 else token[:77] + "..."
            why = "a flag that names a file" if flag in ("--params",) else (
                "not an operator flag" if token.startswith("-") else "not a flag"
            )  # fmt: skip
            raise values.InputError(f"{where}: its {RECORD_LINE} records {shown!r}: {why}; {todo}")
        i += 1 if options[flag].nargs == 0 or "=" in token else 2
    parser = _RecordParser(prog=where, add_help=False, allow_abbrev=False)
    for action in allowed:
        parser._add_action(copy.copy(action))
    try:
        return parser.parse_args(recorded)
    except _RecordRefused as err:
        raise values.InputError(f"{where}: its {RECORD_LINE} records flags that do not parse: {err}; {todo}") from None


def _variables(args: argparse.Namespace) -> dict[str, dict[str, str]]:
    """--ext-str/--ext-code/--tla-str/--tla-code as jsonnet's own CLI takes them: NAME=VALUE,
    or NAME alone for the environment variable of that name."""
    out: dict[str, dict[str, str]] = {}
    for kind, flag in VARIABLE_FLAGS.items():
        for value in getattr(args, kind) or []:
            name, sep, text = value.partition("=")
            if not sep:
                if name not in os.environ:
                    raise values.InputError(f"{flag} {name}: no =VALUE and no environment variable {name}")
                text = os.environ[name]
            if not name.isidentifier():
                raise values.InputError(f"{flag}: {name!r} is not a jsonnet identifier (NAME=VALUE)")
            _check_utf8(flag, name, text, "its environment variable" if not sep else "the value")
            out.setdefault(kind, {})[name] = text
    return out


def _check_utf8(flag: str, name: str, text: str, what: str) -> None:
    """A byte that is not UTF-8 on the command line (or in the environment) arrives as a lone
    surrogate (surrogateescape); jsonnet's strings and code are Unicode, so it is refused here."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        byte = os.fsencode(text[err.start : err.end])[:1]
        raise values.InputError(
            f"{flag} {name}: {what} is not UTF-8 text (byte 0x{byte.hex()} at offset {err.start}); "
            "give UTF-8 (jsonnet strings are Unicode), e.g. the bytes in base64 and std.base64Decode"
        ) from None


def cmd_render_file(args: argparse.Namespace) -> int:
    """`render FILE.jsonnet`: manifests written with the library (a list, one object, or objects
    nested as Tanka finds them), validated, to stdout."""
    from generator.cli.output import write_manifests
    from generator.jobs import model as jobs
    from generator.jsonnet import sandbox

    path = Path(args.file)
    if not path.is_file():
        raise values.InputError(f"{args.file}: no such file")
    variables = _variables(args)
    minor = args.kube_version
    try:
        (data,) = sandbox.evaluate_files([path], args.jpath, args.allow_import_anywhere, variables)
    except sandbox.SandboxError as err:
        print(f"paddlejob-manifests render: error: {err}", file=sys.stderr)
        return 1
    manifests = jobs.manifests_of(data)
    try:
        jobs.check_not_empty(data, manifests, name=str(path))
        jobs.check_manifests(manifests, minor, name=str(path))
    except jobs.JobError as err:  # one line, or the findings ending in a newline
        print(f"paddlejob-manifests render: error: {str(err).rstrip()}", file=sys.stderr)
        return 1
    write_manifests(manifests, args.output)
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from generator.render import bundles
    from generator.render import pipeline as render

    if args.file:
        return cmd_render_file(args)
    started = time.perf_counter()
    if args.check:
        if args.out != STDOUT:
            render.refuse_linked_out(args.out)
        args = with_recorded_flags(args)
    params = operator_params(args)
    chosen = bundles.default_bundles(args.kube_version)
    if args.out == STDOUT:
        return _to_stdout(args, chosen, params)
    generated = render.Generated(**{name: getattr(args, name) for name in GENERATED})
    try:
        planned = render.plan(chosen, params, args.out, generated, args.keep_descriptions, tuple(shaping_flags(args)))
        if args.check:
            return _report_drift(args, planned)
        written = render.write(planned)
    except render.RenderError as err:
        print(f"paddlejob-manifests render: error: {err}", file=sys.stderr)
        return 1
    result, elapsed = planned.rendered, time.perf_counter() - started
    if args.output == "json":  # for machines: what was written, and the summary
        summary = {"written": written, "bundles": result.summary, "warnings": result.warnings, "seconds": elapsed}
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
        return 0
    for line in result.summary:
        print(line, file=sys.stderr)
    for line in result.warnings:
        print(f"warning: {line}", file=sys.stderr)
    print(f"wrote {len(written)} files ({len(result.files)} under {args.out}) in {elapsed:.2f}s", file=sys.stderr)
    return 0


def _report_drift(args: argparse.Namespace, planned: render.Plan) -> int:
    from generator.render import pipeline as render

    drift, notes = render.check(planned, args.exact)
    if drift.diff:
        sys.stdout.write(drift.diff)
        for note in notes:
            print(note, file=sys.stderr)
        again = shlex.join(["paddlejob-manifests", "render", "--out", str(args.out), *shaping_flags(args)])
        print(
            f"paddlejob-manifests render --check: {args.out} differs from a fresh render; render again "
            f"(`{again}`, or `make manifests` in this project) and commit the result",
            file=sys.stderr,
        )
        return 1
    if drift.formatting:
        print(
            f"{args.out}: same objects, formatting differs in {len(drift.formatting)} files "
            "(a YAML formatter?); `--exact` compares bytes",
            file=sys.stderr,
        )
        return 0
    print(f"{args.out}: up to date ({len(planned.rendered.files)} files)", file=sys.stderr)
    return 0


def _to_stdout(args: argparse.Namespace, chosen: list, params: dict) -> int:
    """`--out -`: one bundle as one stream, in the order `kubectl apply -f -` needs it."""
    from generator.kubeyaml.dump import dump_json
    from generator.render import pipeline as render

    extras = ["--check"] if args.check else []
    extras += [f"--{name.replace('_', '-')}" for name in GENERATED if getattr(args, name)]
    if extras:
        raise values.InputError(f"--out -: prints one bundle; {', '.join(extras)} write files (give --out DIR)")
    if len(chosen) != 1:  # no --kube-version: the v1 bundle, what deploy/v1 holds (as helm template's defaults)
        chosen = [bundle for bundle in chosen if bundle.name == "v1"]
    try:
        result = render.render(chosen, params, args.keep_descriptions, tuple(shaping_flags(args)))
    except render.RenderError as err:
        print(f"paddlejob-manifests render: error: {err}", file=sys.stderr)
        return 1
    (objects,) = result.objects.values()
    if args.output == "json":
        sys.stdout.write(dump_json(objects))
    else:
        sys.stdout.write(render.stream(chosen[0], objects, tuple(shaping_flags(args))))
    for line in result.warnings:
        print(f"warning: {line}", file=sys.stderr)
    return 0
