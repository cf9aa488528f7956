"""What people type from habit (kubeconform's and kubectl's flags, jsonnet's variables, process
substitution, pre-commit naming every changed file) gets an answer, never a traceback."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from tap.parser import Parser

from .conftest import FIXTURES, REPO, load_all

GOOD = FIXTURES / "validate" / "good"
BAD = FIXTURES / "validate" / "bad"


def cli(*argv: str, stdin: str | None = None, cwd=REPO) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", *argv], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    "argv, hint",
    [
        (["validate", "-summary", "x.yaml"], "-summary: use --summary"),
        (["validate", "-skip", "Secret", "x.yaml"], "-skip: use --skip-kinds"),
        (["validate", "-schema-location", "default", "x.yaml"], "use --crd FILE for your CRDs"),
        (["validate", "-f", "x.yaml"], "give the files and folders as arguments"),
        (["validate", "--dry-run=server", "x.yaml"], "never contacts a cluster"),
        (["render", "--nmespace", "x"], "did you mean --namespace?"),
        (["validate", "-output", "json", "x.yaml"], "-output: use --output"),
        (["validate", "-n", "4", "x.yaml"], "-n: use --jobs N"),
        (["validate", "--format", "json", "x.yaml"], "--format: use --output"),
        (["validate", "--include", "a/", "x.yaml"], "--include: give the files and folders"),
        (["validate", "--exclude", "a/", "x.yaml"], "--exclude: use --ignore REGEX"),
        (["render", "--config", "x.yaml"], "--config: validate takes --config FILE"),
    ],
)
def test_flags_from_other_tools_are_answered_under_the_subcommands_usage(argv, hint):
    done = cli(*argv)
    assert done.returncode == 2
    assert f"usage: paddlejob-manifests {argv[0]}" in done.stderr
    assert "unrecognized arguments" in done.stderr and hint in done.stderr


def test_strict_fails_on_warnings_and_summary_goes_to_stderr():
    warned = str(BAD / "paddlejob-sampleset.yaml")  # a warning only
    assert cli("validate", warned).returncode == 0
    strict = cli("validate", "--strict", "--summary", "-o", "json", warned)
    assert strict.returncode == 1
    assert strict.stderr.strip().endswith("(invalid)") and '"valid": false' in strict.stdout


def test_stdin_and_process_substitution_read_like_files():
    good, validate = GOOD / "kubeflow.yaml", f"{sys.executable} -m generator validate"
    for command in (
        f"{validate} /dev/stdin < {good}",
        f"{validate} <(cat {good})",
        f"cat {good} | {validate} /dev/stdin",
    ):
        done = subprocess.run(["bash", "-c", command], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (command, done.stderr)
        assert "(valid)" in done.stdout


def test_tap_output_is_read_by_a_tap_parser():
    done = cli("validate", "-o", "tap", str(BAD / "label-value.yaml"), str(GOOD / "kubeflow.yaml"))
    assert done.returncode == 1
    lines = list(Parser().parse_text(done.stdout))
    plan = [line for line in lines if line.category == "plan"]
    tests = [line for line in lines if line.category == "test"]
    assert plan[0].expected_tests == len(tests) == 2
    assert [t.ok for t in tests] == [False, True]
    alone = cli("validate", "-o", "tap", str(BAD / "label-value.yaml"))  # every document has findings
    tests = [line for line in Parser().parse_text(alone.stdout) if line.category == "test"]
    assert [t.ok for t in tests] == [False], "no test point for the documents without findings when there are none"
    assert "0 documents without findings" not in alone.stdout
    assert any(line.category == "version" and line.version == 13 for line in lines)
    assert "label-value" in done.stdout


def test_files_named_that_are_no_manifests_are_skipped_by_name(tmp_path):
    (tmp_path / "chart" / "templates").mkdir(parents=True)
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (tmp_path / "chart" / "templates" / "cm.yaml").write_text("metadata:\n  name: {{ .Release.Name }}\n")
    (tmp_path / "values.yaml").write_text("replicas: 3\nimage: {tag: v1}\n")
    (tmp_path / "kustomization.yaml").write_text("resources: [cm.yaml]\npatches: [{path: patch.yaml}]\n")
    (tmp_path / "patch.yaml").write_text("metadata: {name: cm}\ndata: {a: b}\n")
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n")
    (tmp_path / "jsonnetfile.json").write_text('{"version": 1, "dependencies": []}\n')
    (tmp_path / "docker-compose.yml").write_text("services: {web: {image: nginx}}\n")
    named = [
        "jsonnetfile.json",
        "docker-compose.yml",
        "values.yaml",
        "kustomization.yaml",
        "patch.yaml",
        "chart/Chart.yaml",
        "chart/templates/cm.yaml",
        "cm.yaml",
    ]
    done = cli("validate", *named, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "1 document: 0 errors, 0 warnings (valid)"
    assert len(re.findall(r": skipped: ", done.stderr)) == 7
    walked = cli("validate", ".", cwd=tmp_path)  # the folder walk skips the same files
    assert (
        walked.returncode == 0 and walked.stdout.strip().splitlines()[-1] == "1 document: 0 errors, 0 warnings (valid)"
    )
    assert "jsonnetfile.json: skipped: jsonnet-bundler's configuration" in walked.stderr


def test_an_unbalanced_quote_is_a_usage_error():
    done = cli("job", "x", "--image", "registry.example.com/a:1", "--workers", "1", "--command", "python 'train.py")
    assert done.returncode == 2 and "--command: No closing quotation" in done.stderr


def test_the_readme_jsonnet_example_renders_with_jsonnet_variables(tmp_path):
    readme = (REPO / "README.md").read_text()
    (block,) = re.findall(r"```jsonnet\n(.*?)```", readme, re.S)
    (tmp_path / "operator.jsonnet").write_text(block)
    done = cli("render", str(tmp_path / "operator.jsonnet"), "--ext-str", "namespace=training")
    assert done.returncode == 0, done.stderr
    docs = load_all(done.stdout)
    assert docs[0]["kind"] == "Namespace" and {d["kind"] for d in docs} >= {"CustomResourceDefinition", "Deployment"}
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    assert deployment["metadata"]["namespace"] == "training"
    missing = cli("render", str(tmp_path / "operator.jsonnet"))
    assert missing.returncode == 1 and "namespace" in missing.stderr


def test_top_level_arguments_and_code(tmp_path):
    source = tmp_path / "cm.jsonnet"
    source.write_text(
        "function(name, replicas=1) { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name },"
        " data: { n: std.toString(replicas), e: std.extVar('e') } }"
    )
    done = cli("render", str(source), "--tla-str", "name=cm", "--tla-code", "replicas=1+2", "--ext-code", "e='x'")
    assert done.returncode == 0, done.stderr
    assert load_all(done.stdout) == [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"n": "3", "e": "x"}}
    ]
    assert cli("render", str(source), "--tla-str", "bad-name=x").returncode == 2


# A file a pull request commits, named as a flag of validate (issue 33, case 5): pre-commit runs
# the hook's entry, then `args:`, then the file names, so without an end of options these would
# turn the checks off or run the pull request's script as kubectl.
INVALID_CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n"
EVIL = "#!/bin/sh\ntouch ran-evil\nexit 0\n"


def _pre_commit(tmp_path, args: list[str] | None) -> subprocess.CompletedProcess:
    """Real pre-commit, offline, on a repository of hostile names: a `repo: local` hook made of
    .pre-commit-hooks.yaml's paddlejob-validate (its entry run by the console script), with the
    user's ``args`` (None: the hook's own)."""
    import json
    import os
    import shutil

    import yaml

    console = shutil.which("paddlejob-manifests", path=os.path.dirname(sys.executable))
    if console is None or shutil.which("git") is None:
        pytest.skip("needs the paddlejob-manifests console script and git")
    (hook,) = [
        h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text()) if h["id"] == "paddlejob-validate"
    ]
    program, *entry = hook["entry"].split()
    assert program == "paddlejob-manifests"
    local = {key: hook[key] for key in ("id", "name", "files", "exclude", "require_serial")}
    local |= {"entry": " ".join([console, *entry]), "language": "system", "args": hook.get("args", [])}
    if args is not None:
        local["args"] = args  # a user's args replace the hook's, as pre-commit does
    user = tmp_path / "user"
    user.mkdir(parents=True)
    (user / ".pre-commit-config.yaml").write_text(json.dumps({"repos": [{"repo": "local", "hooks": [local]}]}))
    (user / "bad.yaml").write_text(INVALID_CONFIGMAP)
    (user / "--skip-kinds=ConfigMap,x.yaml").write_text(INVALID_CONFIGMAP)
    (user / "kustomization.yaml").write_text("resources: [bad.yaml]\n")
    (user / "--kubectl=evil.yaml").write_text(INVALID_CONFIGMAP)
    (user / "evil.yaml").write_text(EVIL)
    (user / "evil.yaml").chmod(0o755)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "init", "-q"], cwd=user, check=True, env=env)
    subprocess.run(["git", "add", "--", "."], cwd=user, check=True, env=env)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--verbose"],
        cwd=user, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_hook_reads_committed_files_named_as_flags_as_files(tmp_path):
    """The hook's own args (`--`): `--skip-kinds=ConfigMap,x.yaml` is a file and is checked,
    and the ConfigMaps are checked too."""
    done = _pre_commit(tmp_path, None)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "bad.yaml:3:12: error: ConfigMap/Bad_Name" in done.stdout, done.stdout
    assert "--skip-kinds=ConfigMap,x.yaml:3:12: error: ConfigMap/Bad_Name" in done.stdout, done.stdout


def test_the_hook_with_build_never_runs_a_committed_script_as_kubectl(tmp_path):
    """A user's `args: [--build]`: the entry's --require-end-of-options stops the run (exit 2)
    before any file name can be read as a flag, and says what to write; with `args: [--build,
    --]`, as the README writes them, `--kubectl=evil.yaml` is a file. evil.yaml never runs."""
    done = _pre_commit(tmp_path / "forgot", ["--build"])
    assert done.returncode == 1, done.stdout + done.stderr  # pre-commit's "Failed"
    assert "--require-end-of-options: no `--` before the paths" in done.stdout, done.stdout
    assert not (tmp_path / "forgot" / "user" / "ran-evil").exists(), done.stdout
    done = _pre_commit(tmp_path / "ended", ["--build", "--"])
    assert done.returncode != 0, done.stdout + done.stderr
    assert not (tmp_path / "ended" / "user" / "ran-evil").exists(), done.stdout
    assert "--kubectl=evil.yaml" in done.stdout and "--skip-kinds=ConfigMap,x.yaml" in done.stdout, done.stdout


def test_every_subcommand_reads_what_follows_double_dash_as_a_file(tmp_path):
    """`--` ends the options of every subcommand that takes files: a file named as a flag is
    read as the file; `validate --require-end-of-options` without `--` is a usage error."""
    (tmp_path / "evil.yaml").write_text(EVIL)
    (tmp_path / "evil.yaml").chmod(0o755)
    for argv in (
        ["validate", "--require-end-of-options", "--", "--skip-kinds=ConfigMap,x.yaml"],
        ["validate", "--build", "--require-end-of-options", "--", "--kubectl=evil.yaml"],
        ["convert", "--", "--to=x.yaml"],
        ["local", "--explain", "--", "--allow-cpu=x.yaml"],
        ["render", "--", "--check=x.jsonnet"],
    ):
        (tmp_path / argv[-1]).write_text(INVALID_CONFIGMAP)
        done = cli(*argv, cwd=tmp_path)
        # read, and refused for what it holds (a ConfigMap with a bad name, no job, not jsonnet): never a flag
        assert done.returncode == 1 and "usage:" not in done.stderr, (argv, done.stdout + done.stderr)
        assert not (tmp_path / "ran-evil").exists()
        if "--require-end-of-options" in argv:
            without = cli(*[a for a in argv if a != "--"], cwd=tmp_path)
            assert without.returncode == 2 and "no `--` before the paths" in without.stderr, without.stderr


def test_skip_kinds_refuses_a_kind_it_does_not_know_with_the_nearest(tmp_path):
    done = cli("validate", "--skip-kinds", "Deploymnt", str(GOOD / "kubeflow.yaml"))
    assert done.returncode == 2 and "no kind 'Deploymnt'" in done.stderr and "did you mean 'Deployment'?" in done.stderr
    known = cli(
        "validate", "--skip-kinds", "ConfigMap,PodSecurityPolicy,example.com/v1/Widget", str(GOOD / "kubeflow.yaml")
    )
    assert known.returncode == 0, known.stderr  # a release's kind, an older release's, a group of one's own


def test_ignore_applies_to_files_named_too(tmp_path):
    (tmp_path / "bad.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n")
    (tmp_path / "good.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\n")
    done = cli("validate", "--ignore", "bad", "bad.yaml", "good.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "bad.yaml: skipped: --ignore" in done.stderr


def test_color_always_and_never(tmp_path):
    bad = str(BAD / "label-value.yaml")
    assert "\x1b[31m" in cli("validate", "--color", "always", bad).stdout
    assert "\x1b[" not in cli("validate", "--color", "never", bad).stdout
    assert "\x1b[" not in cli("validate", bad).stdout  # auto: not a terminal


def test_quiet_keeps_errors_and_verbose_lists_what_annotations_ignored(tmp_path):
    env = "env: [{name: A, value: '1'}, {name: A, value: '2'}]"
    (tmp_path / "a.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
        "    ignore-check.paddlejob-manifests.io/env-duplicate: the launcher reads the last\n"
        f"spec:\n  containers: [{{name: c, image: 'nginx:1', {env}}}]\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: q}\n"
        f"spec:\n  containers: [{{name: c, image: 'nginx:1', {env}}}]\n"
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n"
    )
    normal = cli("validate", "a.yaml", cwd=tmp_path)
    assert normal.returncode == 1 and "1 finding ignored" in normal.stdout and "Pod/q" in normal.stdout
    assert "Pod/p" not in normal.stdout
    verbose = cli("validate", "--verbose", "a.yaml", cwd=tmp_path)
    assert "ignored: Pod/p" in verbose.stdout and "[env-duplicate] (the launcher reads the last)" in verbose.stdout
    quiet = cli("validate", "--quiet", "a.yaml", cwd=tmp_path)
    lines = quiet.stdout.strip().splitlines()
    assert quiet.returncode == 1 and all(": error: " in line for line in lines[:-1]) and len(lines) >= 2
    assert "Pod/q" not in quiet.stdout and lines[-1].endswith("1 warning (invalid)")  # hidden, still counted
    assert cli("validate", "--quiet", "--verbose", "a.yaml", cwd=tmp_path).returncode == 2


def test_convert_places_its_errors_on_the_input_file():
    seed = FIXTURES / "seeds" / "004-line0017.yaml"
    done = cli("convert", str(seed))
    assert done.returncode == 1 and "rendered:" not in done.stderr
    assert f"{seed}:8:11: error: PaddleJob/paddlejob: spec.ps.template.spec.containers[0].image" in done.stderr
    assert "documents valid" not in done.stderr  # the run's breakdown is validate's, not a job's


def test_a_folder_of_charts_without_build_says_what_was_skipped_on_the_folder(tmp_path):
    (tmp_path / "charts" / "c" / "templates").mkdir(parents=True)
    (tmp_path / "charts" / "c" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    done = cli("validate", "--no-config", "charts/", cwd=tmp_path)
    assert done.returncode == 0
    first = done.stdout.splitlines()[0]
    assert first.startswith("charts/: warning: nothing was checked in charts/: every file found was skipped")
    assert "--build" in first and "-:1:1" not in done.stdout and "(no files)" not in done.stdout


def test_render_check_keeps_recorded_flags_that_were_not_given(tmp_path):
    out = tmp_path / "op"
    assert cli("render", "--out", str(out), "--namespace", "ml-platform").returncode == 0
    done = cli("render", "--check", "--out", str(out), "--replicas", "2")
    assert done.returncode == 1
    assert "+  replicas: 2" in done.stdout and "paddle-system" not in done.stdout  # the namespace recorded stays


def test_render_help_imports_no_renderer_nor_validator():
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "generator", "render", "--help"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0 and "--namespace" in done.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "generator.core.provenance" in imported  # the measure sees what cli/render.py imports
    heavy = sorted(m for m in imported if m.startswith(("generator.validate", "generator.render", "generator.jobs")))
    assert heavy == [], f"`render --help` imports {heavy}"


def test_render_help_shows_the_operators_flags_and_help_all_the_maintainers():
    """`render --help` is for the operator's parameters and a job file; the flags that write this
    repository's generated files (make manifests) are listed by --help-all alone, and still work."""
    shown = cli("render", "--help")
    every = cli("render", "--help-all")
    assert shown.returncode == every.returncode == 0
    maintainer = ["--lib-out", "--job-lib-out", "--jsonschema-out", "--api-doc", "--runtimes-doc", "--rules-doc"]
    maintainer += ["--chart-out", "--examples", "--trainer"]

    def listed(flag: str, text: str) -> bool:
        return re.search(rf"{flag}(?![\w-])", text) is not None  # --trainer, not --trainer-runtimes

    assert not [flag for flag in maintainer if listed(flag, shown.stdout)], shown.stdout
    assert all(listed(flag, every.stdout) for flag in maintainer)
    assert "--namespace" in shown.stdout and "--help-all" in shown.stdout
    assert len(shown.stdout.splitlines()) < len(every.stdout.splitlines())
    parsed = cli("render", "--check", "--api-doc", "docs/api.md", "--out", "deploy")
    assert parsed.returncode == 0, parsed.stderr  # hidden, not gone
