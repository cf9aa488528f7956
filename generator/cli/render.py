"""`paddlejob-manifests render`: the install bundles (and generated files) into deploy/, or a job file."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .. import atomic, bundles, cliargs, kube, render
from .. import params as params_module
from ..paths import DEPLOY
from . import job

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
    params: dict = params_module.read_params_file(args.params) if args.params else {}
    if args.namespace is not None:
        params["namespace"] = cliargs.namespace("--namespace", args.namespace)
    if args.watch_namespace is not None:
        params["watchNamespace"] = cliargs.namespace("--watch-namespace", args.watch_namespace, allow_empty=True)
    for flag, key in (("image", "image"), ("init_image", "initImage"), ("image_pull_policy", "imagePullPolicy")):
        if getattr(args, flag) is not None:
            params[key] = getattr(args, flag)
    if args.scheduling is not None:
        params["scheduling"] = "" if args.scheduling == "none" else args.scheduling
    if args.replicas is not None:
        params["replicas"] = args.replicas
    resources = {"requests": args.requests, "limits": args.limits}
    if any(resources.values()):  # only what is given; the other keeps its default
        params["resources"] = {k: cliargs.resources(f"--{k}", v) for k, v in resources.items() if v}
    if args.image_pull_secret:
        params["imagePullSecrets"] = args.image_pull_secret
    if args.node_selector:
        params["nodeSelector"] = cliargs.labels("--node-selector", args.node_selector)
    if args.toleration:
        params["tolerations"] = [cliargs.toleration(value) for value in args.toleration]
    if args.label:
        params["labels"] = cliargs.labels("--label", args.label)
    if args.network_policy:
        params["networkPolicy"] = True
    if args.apiserver_port:
        params["apiserverPorts"] = args.apiserver_port
    return params_module.check(params)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "render",
        help="render and validate deploy/v1 and deploy/v1beta1",
        description="Render the operator install bundles, validate every object, write them atomically.",
        epilog=RENDER_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "file",
        nargs="?",
        metavar="FILE.jsonnet",
        help="render a job written with libsonnet/paddlejob to stdout instead of the bundles",
    )
    p.add_argument(
        "--output",
        "-o",
        choices=["yaml", "json"],
        default="yaml",
        help="with FILE: the manifests' format; without: json prints a summary of what was written",
    )
    p.add_argument(
        "-J",
        "--jpath",
        action="append",
        type=Path,
        metavar="DIR",
        help="with FILE: another folder imports may come from (libsonnet/ and FILE's folder always may)",
    )
    p.add_argument(
        "--allow-import-anywhere",
        action="store_true",
        help="with FILE: let imports read any regular file (by default only FILE's folder, libsonnet/ and -J)",
    )
    p.add_argument("--out", type=Path, default=DEPLOY, help="output directory (default: %(default)s)")
    p.add_argument("--lib-out", type=Path, help="also write the generated API data the jsonnet library imports here")
    p.add_argument(
        "--jsonschema-out",
        type=Path,
        metavar="DIR",
        help="also write JSON Schemas per kind (kubeconform, YAML language server) here",
    )
    p.add_argument("--api-doc", type=Path, metavar="FILE", help="also write the API reference (markdown) here")
    p.add_argument(
        "--runtimes-doc",
        type=Path,
        metavar="FILE",
        help="also write the runtime table (features.libsonnet) into FILE, between its markers",
    )
    p.add_argument(
        "--rules-doc",
        type=Path,
        metavar="FILE",
        help="also write the rule index (generator/rulebook.py) into FILE, between its markers",
    )
    p.add_argument(
        "--chart-out",
        type=Path,
        metavar="DIR",
        help="also write the Helm chart into DIR, e.g. charts/paddle-operator; its values default to "
        "config.libsonnet's (the operator flags do not change them)",
    )
    p.add_argument(
        "--examples",
        type=Path,
        metavar="DIR",
        help="also render DIR/*.jsonnet (job examples) into OUT/examples/, validated",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 with a diff when the objects on disk differ from a fresh render",
    )
    p.add_argument(
        "--exact",
        action="store_true",
        help="with --check: compare bytes, so formatting differences are drift too (this repository's own check)",
    )
    p.add_argument("--kube-version", help="oldest Kubernetes release to serve, e.g. 1.13 (v1beta1) or 1.19 (v1)")
    p.add_argument(
        "--keep-descriptions",
        action="store_true",
        help="keep field descriptions in the CRDs (for kubectl explain; too large for client-side apply)",
    )
    g = p.add_argument_group("operator parameters (see libsonnet/paddle-operator/config.libsonnet)")
    g.add_argument("--params", help="YAML or JSON file of config fields; the flags below override it")
    g.add_argument("--namespace", help="namespace to install into (default: paddle-system)")
    g.add_argument("--watch-namespace", help="namespace whose jobs the operator runs ('' = all; default: --namespace)")
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
    g.add_argument("--node-selector", action="append", metavar="KEY=VALUE", help="repeatable")
    g.add_argument("--toleration", action="append", metavar="KEY[=VALUE]:EFFECT", help="repeatable")
    g.add_argument("--label", action="append", metavar="KEY=VALUE", help="extra label on every object; repeatable")
    g.add_argument(
        "--network-policy", action="store_true", help="add a NetworkPolicy: DNS and apiserver egress, metrics ingress"
    )
    g.add_argument(
        "--apiserver-port",
        action="append",
        type=int,
        metavar="PORT",
        help="apiserver port for the NetworkPolicy (default: 443 and 6443); repeatable",
    )
    p.set_defaults(func=cmd_render)


def cmd_render(args: argparse.Namespace) -> int:
    if args.file:
        return job.cmd_render_file(args)
    started = time.perf_counter()
    params = operator_params(args)
    try:
        chosen = bundles.default_bundles(args.kube_version)
    except kube.UnknownVersionError as err:
        raise cliargs.UsageError(f"--kube-version: {err}") from None
    examples = None
    try:
        examples = render.start_examples(args.examples) if args.examples else None
        result = render.render(chosen, params, keep_descriptions=args.keep_descriptions)
    except render.RenderError as err:
        if examples and examples[1] is not None:
            examples[1].child.kill()  # the sandbox started for the examples is not needed
        print(f"paddlejob-manifests render: error: {err}", file=sys.stderr)
        return 1
    if args.examples:
        try:
            result.files.update(render.render_examples(examples))
        except render.RenderError as err:
            print(f"paddlejob-manifests render: error: {err}", file=sys.stderr)
            return 1
    try:
        outputs = render.outputs(
            args.out,
            result.files,
            args.lib_out,
            args.jsonschema_out,
            args.api_doc,
            args.runtimes_doc,
            args.rules_doc,
            chart_out=args.chart_out,
        )
    except render.RenderError as err:
        print(f"paddlejob-manifests render: error: {err}", file=sys.stderr)
        return 1
    try:
        atomic.recover(args.out, render.all_targets(outputs))
    except OSError as err:
        print(
            f"paddlejob-manifests render: error: cannot finish an interrupted render in {args.out}: {err}",
            file=sys.stderr,
        )
        return 1
    if args.check:
        drift = sum((render.diff_against_disk(base, files, args.exact) for base, files in outputs), render.Drift())
        if drift.diff:
            sys.stdout.write(drift.diff)
            print(
                f"paddlejob-manifests render --check: {args.out} differs from a fresh render; "
                "run `make manifests` and commit the result",
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
        print(f"{args.out}: up to date ({len(result.files)} files)", file=sys.stderr)
        return 0
    try:
        atomic.replace(args.out, render.all_targets(outputs))
    except atomic.WriteError as err:
        print(f"paddlejob-manifests render: error: nothing was written: {err}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    written = [str(base / name) for base, files in outputs for name in sorted(files)]
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
