"""Fitting the tools people use: JSON Schemas (kubeconform, YAML language server), pre-commit,
jsonnet-bundler/Tanka, GitOps overlays, the installed package, help and exit codes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
import yaml

from generator import cli, validate
from generator.core import kinds as registry
from generator.core.paths import JSONSCHEMA_DIR
from generator.render import publish
from generator.validate import output as outputs
from generator.validate.crd.walks import prune_nulls

from .conftest import FIXTURES, REPO, load_all

SCHEMA_RULES = {"unknown-field", "enum", "schema", "type", "type-string", "yaml-implicit-type", "required", "quantity"}
# the custom kinds this project publishes JSON schemas of (a kind it only has rules for, such as a
# training-operator PyTorchJob, is checked by its project's CRD and has none here)
PUBLISHED = {(entry.api, entry.kind) for entry in registry.custom_kinds() if entry.published}
CUSTOM = {key: path for key, (path, _) in validate.CUSTOM_KINDS.items() if key in PUBLISHED}


def schema_file(api_version: str, kind: str):
    group, version = api_version.split("/")
    # kubeconform: -schema-location '.../{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'
    return JSONSCHEMA_DIR / group / f"{kind.lower()}_{version}.json"


def test_one_schema_per_kind_in_kubeconforms_layout():
    files = sorted(p.relative_to(JSONSCHEMA_DIR).as_posix() for p in JSONSCHEMA_DIR.rglob("*.json"))
    assert files == [
        "batch.paddlepaddle.org/paddlejob_v1.json",
        "batch.volcano.sh/job_v1alpha1.json",
        "jobset.x-k8s.io/jobset_v1alpha2.json",
        "kubeflow.org/paddlejob_v1.json",
        "scheduling.volcano.sh/podgroup_v1beta1.json",
        "scheduling.volcano.sh/queue_v1beta1.json",
        "trainer.kubeflow.org/clustertrainingruntime_v1alpha1.json",
        "trainer.kubeflow.org/trainingruntime_v1alpha1.json",
        "trainer.kubeflow.org/trainjob_v1alpha1.json",
    ]
    assert {f: t for f, t in publish.jsonschema_files().items()} == {
        f: (JSONSCHEMA_DIR / f).read_text() for f in files
    }, "schemas/jsonschema is stale: make manifests"
    for path in JSONSCHEMA_DIR.rglob("*.json"):
        schema = json.loads(path.read_text())
        jsonschema.Draft4Validator.check_schema(schema)
        assert schema["additionalProperties"] is False and schema["properties"]["spec"]["additionalProperties"] is False


def custom_documents():
    """(fixture, document) for every custom-kind document of the corpus that parses."""
    folders = ("validate", "corpus", "seeds")
    for path in [p for folder in folders for p in sorted((FIXTURES / folder).rglob("*.yaml"))]:
        try:
            docs = load_all(path.read_text())
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        if "-version:" in path.read_text(errors="replace"):
            continue  # a fixture for another release than the newest
        for index, doc in enumerate(docs, 1):
            if isinstance(doc, dict) and (doc.get("apiVersion"), doc.get("kind")) in CUSTOM:
                yield path, index, doc


def test_plain_json_schema_validator_agrees_with_validate_on_schema_errors():
    checker = validate.ObjectChecker(37)
    seen = 0
    for path, index, doc in custom_documents():
        schema = json.loads(schema_file(doc["apiVersion"], doc["kind"]).read_text())
        # the apiserver prunes the nulls of declared fields (a null of an undeclared one is unknown)
        declared = checker.custom_validator(doc["apiVersion"], doc["kind"]).schema
        plain_ok = jsonschema.Draft4Validator(schema).is_valid(prune_nulls(doc, declared))
        report = validate.Report()
        # as JSON: PyYAML would write the string "1e-1" unquoted, which kubectl (and we) read as 0.1
        validate.validate_text(str(path), json.dumps(doc), checker, report)
        ours_ok = not any(
            f.finding.rule in SCHEMA_RULES and not f.finding.path.startswith("metadata") for f in report.findings
        )
        assert plain_ok == ours_ok, (path.name, index, [f.finding for f in report.findings])
        seen += 1
    assert seen >= 90


def test_yaml_language_server_modeline_resolves():
    line = "# yaml-language-server: $schema=../schemas/jsonschema/batch.paddlepaddle.org/paddlejob_v1.json"
    assert line in (REPO / "README.md").read_text()
    assert (REPO / "examples" / line.split("=", 1)[1]).resolve() == schema_file(
        "batch.paddlepaddle.org/v1", "PaddleJob"
    )


def hooks() -> dict[str, dict]:
    return {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}


def run_entry(entry: str, files: list[str]) -> subprocess.CompletedProcess:
    program, *args = entry.split()
    assert program == "paddlejob-manifests"  # the console script pre-commit installs
    return subprocess.run(
        [sys.executable, "-m", "generator", *args, *files], cwd=REPO, capture_output=True, text=True, check=False
    )


def test_pre_commit_validate_hook_on_fixtures():
    hook = hooks()["paddlejob-validate"]
    assert hook["language"] == "python"
    good = sorted(  # the hook checks at the default (newest) releases
        str(p)
        for p in (FIXTURES / "validate" / "good").iterdir()
        if "-version:" not in p.read_text() and "# crd:" not in p.read_text()
    )
    args = hook.get("args", [])  # pre-commit's order: entry, args, file names
    assert run_entry(hook["entry"], [*args, *good]).returncode == 0
    bad = run_entry(hook["entry"], [*args, *good, str(FIXTURES / "validate" / "bad" / "paddlejob-on-failed.yaml")])
    assert bad.returncode == 1 and "spec.cleanPodPolicy" in bad.stdout
    import re

    assert (
        re.search(hook["files"], "job.yaml")
        and re.search(hook["files"], "x.json")
        and not re.search(hook["files"], "a.py")
    )


def test_pre_commit_drift_hook():
    hook = hooks()["paddlejob-drift"]
    assert hook["pass_filenames"] is False
    done = run_entry(hook["entry"], hook.get("args", []))
    assert done.returncode == 0, done.stdout + done.stderr


def test_hook_runs_under_pre_commit_itself(tmp_path):
    """`pre-commit try-repo` installs this repository as a hook and runs it on a user's files."""
    user = tmp_path / "user"
    user.mkdir()
    shutil.copy(FIXTURES / "validate" / "good" / "kubeflow.yaml", user / "ok.yaml")
    shutil.copy(FIXTURES / "validate" / "bad" / "paddlejob-on-failed.yaml", user / "job.yaml")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(["git", "init", "-q"], cwd=user, check=True)
    subprocess.run(["git", "add", "."], cwd=user, check=True)
    argv = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "paddlejob-validate"]
    done = subprocess.run([*argv, "--all-files"], cwd=user, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "job.yaml:7:3: error: PaddleJob/wide-and-deep: spec.cleanPodPolicy" in done.stdout
    good = subprocess.run([*argv, "--files", "ok.yaml"], cwd=user, env=env, capture_output=True, text=True, check=False)
    assert good.returncode == 0, good.stdout


def tanka_manifests(node) -> list[dict]:
    """What Tanka extracts from an environment: every object with apiVersion and kind."""
    if isinstance(node, dict) and "apiVersion" in node and "kind" in node:
        return [node]
    if isinstance(node, dict):
        return [m for value in node.values() for m in tanka_manifests(value)]
    if isinstance(node, list):
        return [m for value in node for m in tanka_manifests(value)]
    return []


JB_INSTALL = re.compile(r"jb install (github\.com/\S+?)(?:@\S+)?[`\s]")


def jb_vendor(tmp_path: Path) -> Path:
    """vendor/ as jsonnet-bundler lays it out for the README's `jb install` lines: the package
    under its full path, and a legacy symlink named after the path's last element."""
    vendor = tmp_path / "vendor"
    packages = JB_INSTALL.findall((REPO / "README.md").read_text())
    assert len(packages) == 2, packages
    for package in packages:
        subdir = package.split("/", 3)[3]  # github.com/ORG/REPO/SUBDIR
        full = vendor / package
        shutil.copytree(REPO / subdir, full)
        (vendor / package.rsplit("/", 1)[1]).symlink_to(full.relative_to(vendor))
    return vendor


def test_jb_packages_match_the_tanka_jsonnetfile():
    wanted = json.loads((REPO / "examples" / "tanka" / "jsonnetfile.json").read_text())
    subdirs = sorted(d["source"]["git"]["subdir"] for d in wanted["dependencies"])
    assert subdirs == ["libsonnet/paddle-operator", "libsonnet/paddlejob"]
    for subdir in subdirs:  # each folder is a jb package of its own
        assert json.loads((REPO / subdir / "jsonnetfile.json").read_text())["version"] == 1


def test_tanka_environment_evaluates_with_the_vendored_library(tmp_path):
    # the C++ engine (what `jsonnet` and Tanka's jsonnet run) over jb's vendor layout
    vendor = jb_vendor(tmp_path)
    env = REPO / "examples" / "tanka" / "environments" / "default" / "main.jsonnet"
    import _jsonnet

    data = json.loads(_jsonnet.evaluate_file(str(env), jpathdir=[str(vendor)]))
    full = "import 'github.com/paddleflow/paddlejob-manifests/libsonnet/paddlejob/main.libsonnet'"
    assert "new" in json.loads(
        _jsonnet.evaluate_snippet("full-path", f"std.objectFieldsAll({full})", jpathdir=[str(vendor)])
    )
    manifests = tanka_manifests(data)
    kinds = sorted({m["kind"] for m in manifests})
    assert kinds == [
        "ClusterRole",
        "ClusterRoleBinding",
        "ConfigMap",
        "CustomResourceDefinition",
        "Deployment",
        "Namespace",
        "PaddleJob",
        "Role",
        "RoleBinding",
        "ServiceAccount",
    ]
    report = validate.Report()
    validate.validate_text(
        "tanka", "---\n".join(yaml.safe_dump(m) for m in manifests), validate.ObjectChecker(37), report
    )
    assert report.valid, outputs.FORMATS["text"](report)


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_gitops_overlay_builds_with_kustomize():
    done = subprocess.run(
        ["kubectl", "kustomize", str(REPO / "examples" / "gitops" / "overlays" / "production")],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "KUBECONFIG": os.devnull},
    )
    assert done.returncode == 0, done.stderr
    objs = load_all(done.stdout)
    namespaced = [
        o
        for o in objs
        if o["kind"] not in ("Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding")
    ]
    assert {o["metadata"]["namespace"] for o in namespaced} == {"ml-platform"}
    (deployment,) = [o for o in objs if o["kind"] == "Deployment"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "registry.baidubce.com/paddlecloud/controller:v0.3.6"
    # the controller still watches every namespace (jobs go to a namespace their pods' level admits),
    # and its flags are the bundle's: nothing replaced by position
    assert not any(a.startswith("--namespace=") for a in container["args"])
    assert any(a.startswith("--initImage=") for a in container["args"])
    assert [o["metadata"]["name"] for o in objs if o["kind"] == "Namespace"] == ["ml-platform"]
    (binding,) = [o for o in objs if o["kind"] == "ClusterRoleBinding"]
    assert binding["subjects"][0]["namespace"] == "ml-platform"
    report = validate.Report()
    validate.validate_text("overlay", done.stdout, validate.ObjectChecker(37), report)
    assert report.valid


def test_api_reference_is_generated_and_complete():
    text = (REPO / "docs" / "api.md").read_text()
    assert text == publish.api_markdown()
    for field in (
        "spec.cleanPodPolicy",
        "spec.intranet",
        "spec.withGloo",
        "spec.elastic",
        "spec.schedulingPolicy.minAvailable",
        "spec.worker.replicas",
        "spec.heter.template",
        "status.phase",
    ):
        assert f"| `{field}` |" in text
    assert "| `spec.heter` | ResourceSpec |  | requires `replicas` | paddle-operator |" in text
    assert "kubectl apply --server-side" in text


@pytest.mark.parametrize("command", ["render", "validate", "job", "convert", "local"])
def test_every_subcommand_has_help_with_an_example(command, capsys):
    with pytest.raises(SystemExit) as done:
        cli.main([command, "--help"])
    assert done.value.code == 0
    assert "example" in capsys.readouterr().out


def test_every_option_of_every_subcommand_says_what_it_does():
    import argparse

    (subcommands,) = [a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    undocumented = [
        f"{name} {'/'.join(action.option_strings) or action.dest}"
        for name, parser in subcommands.choices.items()
        for action in parser._actions
        if not action.help
    ]
    assert undocumented == []


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    class Terminal:
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert outputs.use_colour(Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not outputs.use_colour(Terminal())
    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", str(FIXTURES / "validate" / "bad" / "bad-name.yaml")],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "\033[" not in done.stdout  # a pipe is not a terminal


def test_exit_codes_are_documented_in_one_table():
    readme = (REPO / "README.md").read_text()
    table = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    for code in ("| 0 |", "| 1 |", "| 2 |"):
        assert code in table


def test_installed_package_works_outside_a_checkout(tmp_path):
    """What pre-commit and pip users get: the wheel carries the schemas and the jsonnet. Its
    files are the same in both builds (the compiled one adds extension modules beside them):
    built pure here, the compiled wheel is tests/test_installed.py's."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PADDLEJOB_COMPILE": "0"},
    )
    if done.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {done.stderr[-300:]}")
    (wheel,) = tmp_path.glob("*.whl")
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    for init in (REPO / "generator").rglob("__init__.py"):  # every Python package of the source
        assert (site / init.relative_to(REPO)).exists(), f"pyproject.toml's packages miss {init.parent.name}"
    assert (site / "generator" / "_data" / "schemas" / "kubernetes" / "v1.11.json.gz").exists()
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import generator, generator.core.paths as p;"
        "assert generator.__file__.startswith(sys.argv[1]), generator.__file__;"
        "from generator.cli import main; sys.exit(main(['validate', sys.argv[2]]))"
    )
    bad = FIXTURES / "validate" / "bad" / "paddlejob-on-failed.yaml"
    run = subprocess.run(
        [sys.executable, "-c", probe, str(site), str(bad)], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert run.returncode == 1 and "spec.cleanPodPolicy" in run.stdout, run.stderr


def complete(tmp_path, line: str) -> list[str]:
    """What the shell gets back when it asks the installed command to complete ``line``."""
    out = tmp_path / "completions"
    env = {
        **os.environ,
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_IFS": "\n",
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
        "_ARGCOMPLETE_STDOUT_FILENAME": str(out),
    }
    command = Path(sys.executable).with_name("paddlejob-manifests")
    subprocess.run([str(command)], env=env, check=True, timeout=60)
    return [w.strip() for w in out.read_text().split("\n") if w.strip()]


def test_shell_completion_answers_from_the_installed_command(tmp_path):
    assert complete(tmp_path, "paddlejob-manifests ren") == ["render"]
    assert complete(tmp_path, "paddlejob-manifests validate --max") == ["--max-errors"]
    assert "volcano" in complete(tmp_path, "paddlejob-manifests job x --runtime vol")
    for shell in ("bash", "zsh", "fish"):
        done = subprocess.run(
            [sys.executable, "-m", "generator", "completion", shell], capture_output=True, text=True, check=True
        )
        assert "paddlejob-manifests" in done.stdout and "_ARGCOMPLETE" in done.stdout, shell


def test_version_is_the_package_version():
    from importlib.metadata import version

    import generator

    done = subprocess.run([sys.executable, "-m", "generator", "--version"], capture_output=True, text=True, check=True)
    assert (
        done.stdout.strip().rsplit(" (", 1)[0]  # less the build it names: (interpreted) or (compiled)
        == f"paddlejob-manifests {generator.__version__}"
        == f"paddlejob-manifests {version('paddlejob-manifests')}"
    )
    assert f"## {generator.__version__}" in (REPO / "CHANGELOG.md").read_text()
    assert (REPO / "LICENSE").read_text().lstrip().startswith("Apache License")


FROZEN_PIN = re.compile(r"rev: ([0-9a-f]{40})\s+# frozen: v(\d+\.\d+\.\d+)")


def test_the_documented_pins_name_a_release_commit_of_this_repository():
    readme = (REPO / "README.md").read_text()
    sha, version = FROZEN_PIN.search(readme).groups()
    released = subprocess.run(
        ["git", "show", f"{sha}:generator/__init__.py"], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert released.returncode == 0, f"{sha} is not a commit of this repository: {released.stderr}"
    assert f'__version__ = "{version}"' in released.stdout
    assert f"## {version}" in (REPO / "CHANGELOG.md").read_text()
    jb = re.findall(r"jb install \S+@(\S+)", readme)
    assert jb and set(jb) == {sha}, "jsonnet-bundler pins the same release"
    tag = subprocess.run(["git", "rev-parse", f"v{version}^{{commit}}"], cwd=REPO, capture_output=True, text=True)
    assert tag.returncode != 0 or tag.stdout.strip() == sha, f"tag v{version} names another commit"


def test_pre_commit_runs_the_hook_at_the_documented_pin(tmp_path):
    """What a user's .pre-commit-config.yaml gets: `try-repo` at the README's frozen revision."""
    sha, _ = FROZEN_PIN.search((REPO / "README.md").read_text()).groups()
    user = tmp_path / "user"
    user.mkdir()
    shutil.copy(FIXTURES / "validate" / "good" / "kubeflow.yaml", user / "ok.yaml")
    shutil.copy(FIXTURES / "validate" / "bad" / "paddlejob-on-failed.yaml", user / "job.yaml")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "init", "-q"], cwd=user, check=True)
    subprocess.run(["git", "add", "."], cwd=user, check=True)
    argv = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "paddlejob-validate", "--ref", sha]
    done = subprocess.run([*argv, "--all-files"], cwd=user, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stdout + done.stderr  # 3 would be pre-commit failing to find the revision
    assert "job.yaml:7:3: error: PaddleJob/wide-and-deep: spec.cleanPodPolicy" in done.stdout
