"""Start-up: `--version` and `--help` load no schema and no jsonnet, `validate` imports no
jsonnet engine, and the derived PaddleJob schema cached on disk is the one derived afresh."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema_rs
import pytest

from generator import cli
from generator.kubeyaml import fast, load
from generator.render import bundles
from generator.schema import cache as schemacache
from generator.schema import crd as crdschema
from generator.schema import kubernetes
from generator.validate.crd import validator as crvalidate
from generator.validate.schemaerrors import describe

from .conftest import FIXTURES, REPO

# Prints the modules the CLI imported and the files it opened (none of Python's own).
PROBE = """
import json, sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
from generator.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
data = [path for path in opened if path.endswith((".json", ".json.gz", ".yaml", ".libsonnet", ".jsonnet"))]
ours = [module for name, module in list(sys.modules.items()) if name.startswith("generator")]
made = sorted(
    f"{module.__name__}.{name}"
    for module in ours
    for name, value in vars(module).items()
    if isinstance(value, type) and value.__module__ == module.__name__ and "__dataclass_fields__" in vars(value)
)
print(json.dumps({"modules": sorted(sys.modules), "opened": data, "dataclasses": made}))
"""


def probe(*argv: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=REPO, capture_output=True, text=True, env=env, timeout=120
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["validate", "--help"], ["job", "--version"]])
def test_version_and_help_load_no_schema_and_no_jsonnet(argv):
    seen = probe(*argv)
    # runtimes.json (the runtimes' names and kinds, 3 kB of JSON) gives `job` its --NAME-version
    # flags, which the top-level parser builds with the subcommands; nothing else is read
    assert [path for path in seen["opened"] if not path.endswith("/libsonnet/paddlejob/runtimes.json")] == []
    assert not [m for m in seen["modules"] if "jsonnet" in m.split(".")[0]]


def test_job_help_reads_the_runtimes_and_enums_as_data_and_evaluates_no_jsonnet():
    """`job --help` lists the runtimes and the PaddleJob enums from the data files the jsonnet
    library reads too (libsonnet/paddlejob/runtimes.json, generated/spec-enums.json): a broken
    library cannot break the CLI's help."""
    seen = probe("job", "--help")
    assert sorted(os.path.basename(path) for path in seen["opened"]) == ["runtimes.json", "spec-enums.json"]
    assert not [m for m in seen["modules"] if "jsonnet" in m.split(".")[0]]


def test_version_imports_no_subcommand_and_no_reader_or_validator():
    seen = probe("--version")
    heavy = [
        m
        for m in seen["modules"]
        if m.startswith(("generator.cli.", "generator.validate.checker", "yaml", "jsonschema"))
    ]
    assert heavy == []


def test_validate_imports_no_jsonnet_engine():
    seen = probe("validate", str(FIXTURES / "validate" / "good"))
    assert not [m for m in seen["modules"] if "jsonnet" in m.split(".")[0]]
    assert seen["opened"]  # it did read the fixtures


def test_validate_makes_no_dataclass():
    """Making a dataclass runs generated code at import, about 1 ms each: the records of the
    modules every run imports are NamedTuples and plain classes (findings.py). (CEL, which
    only kinds whose CRD has rules load, has one: a training-operator job needs it.)"""
    names = ["paddlejob-modes.yaml", "apps-near-misses.yaml", "volcano.yaml", "builtins.json"]
    seen = probe("validate", *(str(FIXTURES / "validate" / "good" / name) for name in names))
    assert "generator.validate.checker" in seen["modules"]
    assert seen["dataclasses"] == []
    # the probe sees them where there are some: converting imports the job model's
    assert probe("convert", str(FIXTURES / "seeds" / "004-line0017.yaml"))["dataclasses"]


@pytest.mark.skipif(not fast.AVAILABLE, reason="rapidyaml is not installed")
def test_a_big_file_is_read_without_pyyaml_unless_a_finding_needs_a_position(tmp_path):
    """A run of more than FAST_AFTER bytes is rapidyaml's from the first byte: PyYAML, the
    libyaml reader's, is not even imported. A finding's line comes from libyaml's tree."""
    service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web-{i}\nspec:\n  ports: [{{port: 80}}]\n"
    count = load.FAST_AFTER // len(service) + 10
    good = tmp_path / "good.yaml"
    good.write_text("---\n".join(service.format(i=i) for i in range(count)))
    assert good.stat().st_size > load.FAST_AFTER
    seen = probe("validate", "--jobs", "1", str(good))
    assert not [m for m in seen["modules"] if m == "yaml" or m.startswith(("yaml.", "generator.kubeyaml.compose"))]

    bad = tmp_path / "bad.yaml"
    bad.write_text(good.read_text().replace("port: 80", "port: eighty", 1))
    seen = probe("validate", "--jobs", "1", str(bad))
    assert "yaml" in seen["modules"]


def test_the_cached_schema_is_the_derived_one(tmp_path, monkeypatch):
    monkeypatch.setenv("PADDLEJOB_MANIFESTS_CACHE", str(tmp_path))
    minor = kubernetes.known_versions()[-1]
    target = crdschema.Target("v1" if minor >= bundles.FIRST_V1 else "v1beta1", minor, minor)
    first = crdschema.openapi_schema(target)  # derived and written
    assert len(list(tmp_path.iterdir())) == 1
    second = crdschema.openapi_schema(target)  # read back
    monkeypatch.setenv("PADDLEJOB_MANIFESTS_CACHE", "off")
    assert first == second == crdschema.openapi_schema(target)
    assert schemacache.directory() is None


def test_a_changed_input_is_a_new_cache_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("PADDLEJOB_MANIFESTS_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "input.json"
    source.write_text("1")
    assert schemacache.cached("probe", [source], lambda: json.loads(source.read_text())) == 1
    assert schemacache.cached("probe", [source], lambda: 99) == 1  # from the cache
    source.write_text("22")
    assert schemacache.cached("probe", [source], lambda: json.loads(source.read_text())) == 22


def test_an_unwritable_cache_folder_only_costs_time(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("PADDLEJOB_MANIFESTS_CACHE", str(blocked / "cache"))
    assert schemacache.cached("probe", [blocked], lambda: {"a": 1}) == {"a": 1}


def test_the_compiled_form_is_kept_by_content(tmp_path, monkeypatch):
    """What a validator derives from a schema is cached by the schema's content: the same
    schema from another source is a hit, a changed one a new entry."""
    monkeypatch.setenv("PADDLEJOB_MANIFESTS_CACHE", str(tmp_path))
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}}}}}
    first = crvalidate.compiled_form(schema, True)
    assert crvalidate.compiled_form(json.loads(json.dumps(schema)), True) == first
    assert len(list(tmp_path.iterdir())) == 1
    schema["properties"]["spec"]["properties"]["a"]["type"] = "integer"
    changed = crvalidate.compiled_form(schema, True)
    assert changed != first and len(list(tmp_path.iterdir())) == 2
    assert crvalidate.compiled_form(schema, False) != changed  # strictness is part of the key


def test_a_subschema_held_twice_is_compiled_once_with_the_same_verdicts():
    """The PaddleJob schema holds the pod template under ps and under worker: the compiled form
    refers to one definition, and every finding, in either role, is the one the inline schema gives."""
    minor = kubernetes.known_versions()[-1]
    target = crdschema.Target("v1", minor, minor)
    openapi = crdschema.openapi_schema(target)
    form = crvalidate._derive_form(openapi, True)
    inline = crvalidate.to_json_schema(openapi, True)
    shared = form["jsonSchema"]
    assert shared["definitions"] and len(json.dumps(shared)) < len(json.dumps(inline)) / 2
    template = {"spec": {"containers": [{"name": "p", "image": "x", "ports": [{"containerPort": "80"}], "bad": 1}]}}
    job = {
        "apiVersion": "batch.paddlepaddle.org/v1",
        "kind": "PaddleJob",
        "metadata": {"name": "j"},
        "spec": {"ps": {"replicas": 1, "template": template}, "worker": {"replicas": "2", "template": template}},
    }
    validator = crvalidate.CustomResourceValidator(openapi)
    found = validator.findings(job)
    inline_validator = jsonschema_rs.Draft4Validator(
        {**inline, "properties": {**inline["properties"], "metadata": {"type": "object"}}}
    )
    expected = sorted(
        (problem[0], problem[2]) for error in inline_validator.iter_errors(job) for problem in describe(error)
    )
    assert sorted((f.path, f.message) for f in found) == expected
    assert {f.path.split(".")[1] for f in found} == {"ps", "worker"}


def test_the_console_script_and_python_m_run_the_same_entry(tmp_path):
    """Both ways a user starts the tool go through entry_point (the collector set for a short
    process) and give main's exit code."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", str(bad)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 1 and "image" in done.stdout
    script = (
        "import gc, sys\nfrom generator import cli\n"
        "cli.main = lambda: print(gc.get_threshold()[0], end=' ') or 3\n"
        "cli.entry_point()\nprint('after')"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    # the process ends in entry_point, with main's code and its output written
    assert (done.returncode, done.stdout) == (3, f"{cli.GC_THRESHOLDS[0]} ")


def test_the_process_ends_as_python_ends_it_when_more_is_left_to_do(tmp_path):
    """entry_point ends the process without the interpreter's teardown, unless something
    registered with atexit (a library's) or another thread would run then."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    script = (
        "import atexit, sys\nfrom generator import cli\ncli.main = lambda: 4\n"
        "atexit.register(lambda: print('at exit'))\nsys.exit(cli.entry_point())"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert (done.returncode, done.stdout) == (4, "at exit\n")


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("batch.paddlepaddle.org/v1", "PaddleJob"),
        ("kubeflow.org/v1", "PaddleJob"),
        ("trainer.kubeflow.org/v1alpha1", "TrainJob"),
        ("batch.volcano.sh/v1alpha1", "Job"),
    ],
)
def test_stored_schema_marks_are_the_walked_ones(api_version, kind):
    """The marks a validator loads from its compiled form say of every node of the schema what
    a walk of it says (a node the form does not name has no mark)."""
    from generator.validate.checker import ObjectChecker

    schema = ObjectChecker(kubernetes.known_versions()[-1]).schemas.lookup(api_version, kind).openapi()
    walked, loaded = crvalidate.SchemaMarks(crvalidate._MARKED), crvalidate.SchemaMarks(crvalidate._MARKED)
    loaded.load(schema, json.loads(json.dumps(crvalidate.SchemaMarks(crvalidate._MARKED).dump(schema))))
    nodes = [schema]
    for node in nodes:
        assert loaded.mask(node) == walked.mask(node), node
        children = node.items() if isinstance(node, dict) else enumerate(node)
        nodes += [v for k, v in children if isinstance(v, dict | list) and k not in ("default", "enum")]
    assert len(nodes) > 1000 and walked.mask(schema)
