"""Where `validate`'s time per document goes, stage by stage, and what a design would reach.

Issue 28 asks what design would bring `validate --jobs 1` to 2x the per-document floor (the
least any reader does: rapidyaml's parse, its JSON, orjson; see validate_bench.py). This
experiment times, in one process and in CPU time, the stages of the product on the same file
against that floor, each stage alone:

  floor             rapidyaml + JSON + orjson per document (validate_bench.FLOOR's work)
  floor + schema    the same, then the compiled schema check alone (jsonschema-rs is_valid,
                    native code): what a checker written natively would add at least
  reader            the product's reader (kubeyaml.load.iter_documents): the floor's work, plus
                    the Python walk that makes the data kubectl's and the checks of its text
  reader + check    the product's reader and ObjectChecker.check (schema, its Python walks, the
                    rules): the work of `validate --jobs 1` without start-up and output

The ratios say what is left to each design: a Python reader alone costs the reader's ratio,
whatever the rules do; a native reader and checker would cost about the floor + schema ratio
plus the rules compiled. Each stage runs ROUNDS times, alternating; the medians are printed.

    .venv/bin/python bench/stages.py [--documents N] [--rounds N]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import orjson  # noqa: E402
import ryml  # noqa: E402
import validate_bench as bench  # noqa: E402

from generator.kubeyaml.load import iter_documents  # noqa: E402
from generator.schema import kubernetes as kube  # noqa: E402
from generator.validate.checker import ObjectChecker  # noqa: E402


def texts(path: Path) -> list[bytes]:
    """The documents of the file, as the floor cuts them (at `---` lines)."""
    return [part.encode() for part in path.read_text().split("\n---\n") if part.strip()]


def floor(documents: list[bytes], validators=None) -> float:
    """The floor's work on every document (and ``validators``' is_valid on each object)."""
    tree, buffer = ryml.Tree(), bytearray(256 * 1024)
    start = time.process_time()
    for raw in documents:
        tree.clear()
        tree.clear_arena()
        ryml.parse_in_arena(raw, tree)
        failed, size = ryml.emit_json_to_substr(tree, tree.root_id(), buffer)
        data = orjson.loads(memoryview(buffer)[:size])
        if validators is not None:
            validators(data).is_valid(data)
    return time.process_time() - start


def reader(path: Path, checker: ObjectChecker | None = None) -> float:
    start = time.process_time()
    with open(path, "rb") as stream:
        for doc in iter_documents(stream):
            if checker is not None and doc.data is not None:
                checker.check(doc.data, doc.nulls)
    return time.process_time() - start


def schema_of(checker: ObjectChecker):
    """The compiled jsonschema-rs validator the product uses for an object's kind."""
    cache: dict = {}

    def validator(obj: dict):
        key = (obj["apiVersion"], obj["kind"])
        if key not in cache:
            custom = checker.schemas.lookup(*key)
            if custom is not None and not custom.builtin:
                cache[key] = checker.custom_validator(*key)._validator
            else:
                cache[key] = checker.kube._validator(checker.minor, kube.kinds(checker.minor)[key])
        return cache[key]

    return validator


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="validate-stages-"))
    cases = {
        f"{args.documents:,} PaddleJobs": bench.stream(bench.PADDLEJOB, args.documents),
        f"{args.documents:,} mixed documents": bench.mixed(args.documents),
    }
    checker = ObjectChecker(33)
    validators = schema_of(checker)
    gc.freeze()
    print(f"validate stages (CPU seconds per round, median of {args.rounds}; ratio to the floor)")
    for title, docs in cases.items():
        path = Path(bench.write(tmp, "input.yaml", docs))
        documents = texts(path)
        reader(path, checker)  # warm: every schema compiled, every cache filled
        stages = {
            "floor (rapidyaml, orjson)": (floor, documents),
            "floor + schema (jsonschema-rs)": (floor, documents, validators),
            "reader (kubeyaml)": (reader, path),
            "reader + check (validate's work)": (reader, path, checker),
        }
        times: dict[str, list[float]] = {name: [] for name in stages}
        for _ in range(args.rounds):
            for name, (stage, *arguments) in stages.items():
                times[name].append(stage(*arguments))
        base = statistics.median(times["floor (rapidyaml, orjson)"])
        print(f"{title}  ({len(documents):,} documents)")
        for name, values in times.items():
            median = statistics.median(values)
            per_doc = median / len(documents) * 1e6
            print(f"  {name:36s} {median:6.2f} s  {per_doc:7.1f} us/doc  {median / base:5.2f}x")
        path.unlink()
    tmp.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main())
