"""The known limits docs/security.md listed as not fixed yet, each attacked as a pull request
would: flags recorded in deploy/ (`--help`, `--params PATH`), a huge release range in a record,
symbolic links (in a folder `validate` walks, a linked FILE.jsonnet or example, a linked --out),
a CRD's CEL rule that backtracks, and standard input that never ends."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator import cli
from generator.render import atomic
from generator.render import pipeline as render
from generator.validate.crd import kubecel

from .conftest import REPO

ENV = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
SECRET = "s3cr3t-VALUE-of-the-machine"
# a ConfigMap whose bad name quotes itself in a finding: what a leaked file would show
LEAKY = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {SECRET}}}\n"
GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fine}\n"


def run(*args: str, stdin=None, timeout: float = 60, cwd: Path | None = None, limit_memory: bool = False):
    def limit():  # a run that reads without bound fails here instead of exhausting the machine
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    return subprocess.run(
        [sys.executable, "-m", "generator", *args],
        stdin=stdin,
        capture_output=True,
        text=True,
        errors="replace",
        env=ENV,
        cwd=cwd,
        timeout=timeout,
        preexec_fn=limit if limit_memory else None,
    )


def clean(done) -> None:
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    assert done.returncode != 3, done.stderr


# -- 1. flags recorded in deploy/ ---------------------------------------------------------------


@pytest.fixture
def deploy(tmp_path, rendered) -> Path:
    out = tmp_path / "deploy"
    atomic.replace(out, render.targets(out, rendered.files))
    return out


def record(out: Path, flags: list[str]) -> None:
    """Every rendered file records ``flags`` (as a pull request can write them)."""
    for path in out.rglob("*.yaml"):
        text = path.read_text()
        path.write_text(text.replace('"render": []', f'"render": {json.dumps(flags)}', 1))


def check(out: Path, capsys, *flags: str) -> tuple[int, str, str]:
    code = cli.main(["render", "--check", "--out", str(out), *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "flags",
    [
        ["--help"],
        ["--version"],
        ["--params", "SECRET_FILE"],
        ["--params=SECRET_FILE"],
        ["--params", "/dev/zero"],
        ["--out", "/tmp"],
        ["-J", "/"],
        ["--examples", "/etc"],
        ["--api-doc", "/tmp/x.md"],
        ["--check"],
        ["FILE.jsonnet"],
        ["--namespace", "--help"],
        ["--namesp", "x"],  # an abbreviation argparse would take
        ["--kube-version", "1.999"],
    ],
)
def test_a_recorded_flag_that_is_no_operator_flag_is_refused(deploy, tmp_path, flags):
    secret = tmp_path / "secret.yaml"
    secret.write_text(f"namespace: {SECRET.upper()}\n")
    record(deploy, [f.replace("SECRET_FILE", str(secret)) for f in flags])
    started = time.monotonic()
    # what the paddlejob-drift hook runs, in the checkout (a separate process: --params /dev/zero
    # read whole must not take this one's memory)
    done = run("render", "--check", "--out", "deploy", cwd=deploy.parent, limit_memory=True)
    clean(done)
    out, err = done.stdout, done.stderr
    assert done.returncode == 2, err
    assert time.monotonic() - started < 20
    assert "up to date" not in err and "usage:" not in out + err and out == ""
    assert SECRET.upper() not in err
    assert "deploy/v" in err and ".yaml:3:" in err, "names the file and the line"
    assert "paddlejob-manifests:" in err
    if flags[0] != "--namespace" and flags[0] != "--kube-version":
        assert f"records '{flags[0].split('=')[0]}" in err, "names the flag"


def test_recorded_operator_flags_are_still_followed(deploy, capsys):
    record(deploy, ["--namespace", "training"])
    code, _, err = check(deploy, capsys)
    assert code == 1, err  # rendered without the namespace: the recorded one differs
    assert "--namespace training" in err


@pytest.mark.parametrize("kind", ["device", "fifo", "folder", "sparse"])
def test_params_is_read_bounded_and_only_from_a_regular_file(tmp_path, kind):
    path = tmp_path / "params"
    if kind == "device":
        path = Path("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)  # no writer: opening it must not wait
    elif kind == "folder":
        path.mkdir()
    else:
        with open(path, "wb") as f:
            f.truncate(8 << 30)  # 8 GiB of holes: read whole, it would take the memory
    started = time.monotonic()
    done = run("render", "--out", str(tmp_path / "o"), "--params", str(path), timeout=60, limit_memory=True)
    clean(done)
    assert done.returncode == 2, done.stderr
    assert time.monotonic() - started < 20
    assert f"--params: {path}" in done.stderr
    assert not (tmp_path / "o").exists()


# -- 2. a record's release range ---------------------------------------------------------------


@pytest.mark.parametrize("releases", [[1, 1000000000], [True, 30], [0, 30], [30, 19], ["19", "30"]])
def test_a_huge_or_bad_release_range_in_a_record_is_not_followed(tmp_path, releases):
    path = tmp_path / "bundle.yaml"
    marker = json.dumps({"kubernetes": releases, "render": []})
    path.write_text(f"# paddlejob-manifests: {marker}\n---\n{GOOD}")
    started = time.monotonic()
    done = run("validate", str(path), timeout=60, limit_memory=True)
    clean(done)
    assert done.returncode == 0, done.stdout + done.stderr
    assert time.monotonic() - started < 20


# -- 3. symbolic links ---------------------------------------------------------------------------


@pytest.fixture
def linked(tmp_path) -> Path:
    """repo/ (the folder named) holding a link to a file outside it and one inside it."""
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "config.yaml").write_text(LEAKY)
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / "ok.yaml").write_text(GOOD)
    (repo / "sub" / "real.yaml").write_text(GOOD)
    (repo / "leak.yaml").symlink_to(tmp_path / "home" / "config.yaml")
    (repo / "sub" / "up.yaml").symlink_to("../../home/config.yaml")
    (repo / "inside.yaml").symlink_to("sub/real.yaml")
    return repo


def test_a_folder_walk_does_not_read_a_link_out_of_the_folders_named(linked):
    done = run("validate", "--output", "json", str(linked))
    clean(done)
    assert SECRET not in done.stdout + done.stderr
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    assert report["documents"] == 3  # ok.yaml, sub/real.yaml and the link to it
    assert "leak.yaml" in done.stderr and "outside the folders named" in done.stderr
    assert "up.yaml" in done.stderr


def test_a_link_into_another_folder_named_is_read(linked):
    done = run("validate", str(linked / "sub"), str(linked.parent / "home"))
    clean(done)
    assert done.returncode == 1 and SECRET in done.stdout  # home/ is named: its file and the link are read


def test_a_link_named_on_the_command_line_is_read(linked):
    done = run("validate", str(linked / "leak.yaml"))
    clean(done)
    assert done.returncode == 1 and SECRET in done.stdout


OBJECT_JSONNET = '{apiVersion: "v1", kind: "ConfigMap", metadata: {name: "fine"}, data: {k: "' + SECRET + '"}}\n'


@pytest.fixture
def jobs(tmp_path) -> Path:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "target.jsonnet").write_text(OBJECT_JSONNET)
    job = tmp_path / "job"
    job.mkdir()
    (job / "job.jsonnet").symlink_to(tmp_path / "elsewhere" / "target.jsonnet")
    return job


def test_a_linked_file_jsonnet_out_of_its_folder_is_refused(jobs):
    done = run("render", str(jobs / "job.jsonnet"))
    clean(done)
    assert done.returncode == 2, done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert "job.jsonnet: a symbolic link" in done.stderr and "--allow-import-anywhere" in done.stderr
    trusted = run("render", "--allow-import-anywhere", str(jobs / "job.jsonnet"))
    assert trusted.returncode == 0 and SECRET in trusted.stdout, trusted.stderr


def test_a_linked_file_jsonnet_imports_from_its_own_folder_not_the_targets(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "data.json").write_text(json.dumps({"name": SECRET.lower()}))
    (tmp_path / "lib" / "job.jsonnet").write_text(
        'local d = import "data.json"; {apiVersion: "v1", kind: "ConfigMap", metadata: {name: d.name}}\n'
    )
    job = tmp_path / "job"
    job.mkdir()
    (job / "job.jsonnet").symlink_to(tmp_path / "lib" / "job.jsonnet")
    done = run("render", "--allow-import-anywhere", str(job / "job.jsonnet"))
    clean(done)
    # trusted with --allow-import-anywhere: an import resolves beside the path as given (job/)
    assert done.returncode == 1 and "file not found" in done.stderr, done.stderr
    (job / "data.json").write_text(json.dumps({"name": "beside-the-link"}))
    done = run("render", "--allow-import-anywhere", str(job / "job.jsonnet"))
    assert done.returncode == 0 and "beside-the-link" in done.stdout, done.stderr


def test_a_linked_example_out_of_its_folder_is_refused(jobs, tmp_path):
    done = run("render", "--out", str(tmp_path / "o"), "--examples", str(jobs))
    clean(done)
    assert done.returncode == 2, done.stderr
    assert "job.jsonnet: a symbolic link" in done.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("flags", [[], ["--namespace", "x"]])
def test_check_refuses_an_out_that_is_a_link(deploy, tmp_path, capsys, flags):
    link = tmp_path / "linked"
    link.symlink_to(deploy)
    code, out, err = check(link, capsys, *flags)
    assert code == 2, err
    assert out == "" and "up to date" not in err
    assert f"--out {link}: a symbolic link" in err


# -- 4. CEL regexes that backtrack -----------------------------------------------------------------

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {"value": {"type": "string", "maxLength": 100}},
                                "x-kubernetes-validations": [
                                    {"rule": "self.value.find('(a+)+$') == ''", "message": "no"},
                                    {"rule": "self.value.findAll('(a|a)+$').size() == 0", "message": "no"},
                                ],
                            }
                        },
                    }
                },
            }
        ],
    },
}


# the CLI in a child, timed there: on a backtracking engine without a limit it would not end
TIMED = """\
import contextlib, io, json, sys, time
from generator import cli
out = io.StringIO()
started = time.monotonic()
with contextlib.redirect_stdout(out):
    code = cli.main(sys.argv[1:])
print(json.dumps({"code": code, "seconds": time.monotonic() - started, "out": out.getvalue()}))
"""


def validate_widget(tmp_path, crd: dict, value: str) -> tuple[dict, list]:
    """`validate --crd` of a Widget whose spec.value is ``value``, timed in a child (on a
    backtracking engine without a limit it would not end): (the run, its findings), within 2 s."""
    (tmp_path / "crd.json").write_text(json.dumps(crd))
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"value": value}}
    (tmp_path / "w.json").write_text(json.dumps(widget))
    args = ["validate", "--output", "json", "--crd", str(tmp_path / "crd.json"), str(tmp_path / "w.json")]
    done = subprocess.run(
        [sys.executable, "-c", TIMED, *args], capture_output=True, text=True, env=ENV, timeout=30, cwd=tmp_path
    )
    clean(done)
    result = json.loads(done.stdout)
    assert result["seconds"] < 2, result["seconds"]
    return result, json.loads(result["out"])["findings"]


@pytest.mark.parametrize("length", [26, 40])
def test_a_backtracking_find_in_a_crd_rule_ends_with_a_warning(tmp_path, length):
    result, findings = validate_widget(tmp_path, CRD, "a" * length + "!")
    assert result["code"] == 0, findings
    warnings = [f for f in findings if f["rule"] == "cel-unsupported"]
    assert len(warnings) == 2 and all("not evaluated" in f["message"] for f in warnings)
    assert "find('(a+)+$')" in warnings[0]["message"] and "self.value.find" in warnings[0]["message"]


def test_the_regex_budget_leaves_ordinary_rules_and_other_timers_alone():
    env = kubecel.Environment(30)
    assert env.compile("'abc'.find('b+') == 'b'").run({})[0] is True
    assert env.compile("'a1b22'.findAll('[0-9]+') == ['1', '22']").run({})[0] is True
    import signal

    signal.setitimer(signal.ITIMER_REAL, 100)
    try:
        env.compile("'x'.find('x') == 'x'").run({})
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 90 < left <= 100, "another timer is rearmed"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


# -- 5. standard input without end ---------------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "convert"])
def test_standard_input_is_bounded(command):
    with open("/dev/zero", "rb") as zero:
        started = time.monotonic()
        done = run(command, "-", stdin=zero, timeout=60, limit_memory=True)
    clean(done)
    assert done.returncode == 1, done.stderr
    assert time.monotonic() - started < 20
    assert "<stdin>" in done.stdout + done.stderr
    assert "more than 67,108,864 bytes came from this input" in done.stdout + done.stderr


def _pattern_crd(pattern: str) -> dict:
    crd = json.loads(json.dumps(CRD))
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    del schema["x-kubernetes-validations"]
    schema["properties"]["value"]["pattern"] = pattern
    return crd


@pytest.mark.parametrize(
    ("value", "rules"),
    [("a" * 40 + "!", ["pattern-unchecked"]), ("AAA", []), ("b!", ["schema"])],
)
def test_a_backtracking_re2_pattern_ends_with_a_warning(tmp_path, value, rules):
    """An RE2 `pattern` jsonschema-rs cannot take (an inline flag) runs on Python's re, which
    backtracks: past its time it is "not checked", a warning; a match and a quick mismatch are
    judged as before."""
    _, findings = validate_widget(tmp_path, _pattern_crd("(?i)(a+)+$"), value)
    assert [f["rule"] for f in findings] == rules, findings
    if rules == ["pattern-unchecked"]:
        assert findings[0]["severity"] == "warning" and "not checked" in findings[0]["message"]
