"""How fast is `render`? Ratios against a floor measured in the same run.

What is rendered is deploy/: the two install bundles and the examples. The floor is what any
tool that writes these objects as YAML must pay: json.loads of the rendered objects plus
yaml.dump with libyaml's CSafeDumper.
The render does that too, and on top: derives the CRD schemas, evaluates the
jsonnet, validates every object against every targeted Kubernetes release and
checks the CRD's structural rules.

    make bench          (or: .venv/bin/python bench/render_bench.py [--runs N])
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from generator.jsonnet import engine  # noqa: E402
from generator.render import bundles  # noqa: E402
from generator.render import pipeline as render  # noqa: E402
from generator.schema import crd as crdschema  # noqa: E402

EXAMPLES = REPO / "examples"


def best_of(runs: int, fn) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def cold_cli(out: str, *extra: str) -> None:
    argv = [sys.executable, "-m", "generator", "render", "--out", out, "--examples", str(EXAMPLES), *extra]
    subprocess.run(argv, cwd=REPO, check=True, capture_output=True)


def render_deploy(chosen) -> dict[str, str]:
    """What `make manifests` writes under deploy/: both bundles and the examples."""
    files = render.render(chosen, {}).files
    files.update(render.render_examples(EXAMPLES))
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    chosen = bundles.default_bundles()
    files = render_deploy(chosen)
    objects = [doc for text in files.values() for doc in yaml.load_all(text, Loader=yaml.CSafeLoader) if doc]
    as_json = json.dumps(objects)

    def floor() -> None:
        yaml.dump_all(json.loads(as_json), Dumper=yaml.CSafeDumper, default_flow_style=False)

    t_floor = best_of(args.runs, floor)
    t_warm = best_of(args.runs, lambda: render_deploy(chosen))
    with tempfile.TemporaryDirectory() as tmp:
        t_cold = best_of(args.runs, lambda: cold_cli(os.path.join(tmp, "deploy")))
        everything = [
            "--lib-out",
            os.path.join(tmp, "lib"),
            "--jsonschema-out",
            os.path.join(tmp, "js"),
            "--api-doc",
            os.path.join(tmp, "api.md"),
        ]
        t_all = best_of(args.runs, lambda: cold_cli(os.path.join(tmp, "deploy"), *everything))

    api = {"apiJson": json.dumps(crdschema.api_data(chosen[0].target))}

    def evaluate(name: str):
        return lambda: engine.evaluate(bundles.BUNDLE_ENTRY, {"params": {}}, engine=name, tla_strings=api)

    t_rjsonnet = best_of(args.runs, evaluate("rjsonnet"))
    t_cpp = best_of(args.runs, evaluate("cpp"))

    size = sum(len(text) for text in files.values())
    releases = sum(len(b.minors) for b in chosen)
    print(f"deploy/: {len(objects)} objects, {size:,} bytes of YAML; bundles checked against {releases} releases")
    print(f"floor (json.loads + CSafeDumper)          {t_floor * 1000:8.1f} ms   1.00x")
    print(f"render deploy/ in-process (warm caches)   {t_warm * 1000:8.1f} ms   {t_warm / t_floor:5.2f}x floor")
    print(
        f"`render` of deploy/, cold process, wall    {t_cold * 1000:8.1f} ms   {t_cold / t_floor:5.2f}x floor"
        "   (target: under 1000 ms)"
    )
    print(f"`make manifests` render (+ schemas, docs)  {t_all * 1000:8.1f} ms   {t_all / t_floor:5.2f}x floor")
    print(f"jsonnet, v1 bundle: rjsonnet              {t_rjsonnet * 1000:8.1f} ms")
    print(f"jsonnet, v1 bundle: C++ jsonnet           {t_cpp * 1000:8.1f} ms   {t_cpp / t_rjsonnet:5.2f}x rjsonnet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
