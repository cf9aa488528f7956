"""Every human-readable output shows what a hostile input holds and runs none of it (issue 33,
case 7): each subcommand is run on hostile file names and contents, and each of its output
channels (stdout and stderr) is checked as a terminal and GitHub Actions' runner read it: no raw
control character (ESC sequences set a terminal's title, clear its screen; a CR starts a new line
in the runner's log), no bidirectional control (U+202E shows other text than the file holds), no
U+2028 or U+2029, and no line that the runner takes for a workflow command (`::` first once white
space is trimmed, or `##[` anywhere) but the `github` format's own annotations, whose file name
is encoded. One function writes all of it: generator/core/text.py `visible`."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.core.text import visible

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}

# What a hostile name or value holds: a terminal title and a cleared screen (ESC sequences), a
# CR, bidirectional overrides and isolates, the line separator, NEL and DEL, then workflow
# commands on lines of their own, as the runner reads lines (at a newline or a bare CR).
HOSTILE = (
    "\x1b]0;owned\x07\x1b[2J\u202eevil\u2066\u2028\x85\x7f"
    "\r::stop-commands::tok\n  ::error title=Forged::x ##[add-mask]y"
)
# In a value the YAML manifests hold: kubeyaml/dump.py escapes the controls and separators (a
# double-quoted scalar), not yet `##[` nor the lines of a block scalar (test_yaml_... below).
IN_YAML = HOSTILE.replace(" ##[add-mask]y", "")
COMMAND_NAME = "::error file=README.md,line=1,title=Forged::x"
POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n"  # no image: an error

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_HIDDEN = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
# the github format's own annotation: its file property percent-encoded (no raw `:` or `,`)
_ANNOTATION = re.compile(r"::(error|warning) file=[^,:]*,line=\d+,col=\d+,title=[a-z0-9-]+::")


def shown_not_run(text: str, channel: str, annotations: bool = False) -> None:
    """``text`` as a terminal and the GitHub runner read it: nothing hidden, nothing run."""
    assert not _CONTROL.search(text), f"{channel}: a raw control character: {text!r}"
    assert not _HIDDEN.search(text), f"{channel}: a bidirectional control or line separator: {text!r}"
    for line in re.split(r"\r\n|\r|\n", text):  # the runner's lines (TextReader.ReadLine)
        assert "##[" not in line, f"{channel}: a workflow command (##[): {line!r}"
        start = line.lstrip(" \t\u3000\u00a0\u200b\ufeff")
        if start.startswith("::"):
            assert annotations and _ANNOTATION.match(start), f"{channel}: a workflow command: {line!r}"


def run(*argv: str, cwd: Path, stdin: bytes | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "generator", *argv], cwd=cwd, env=ENV, input=stdin, capture_output=True, timeout=300
    )
    decode = lambda data: data.decode("utf-8", "surrogateescape")  # noqa: E731 - what a log viewer gets
    return done.returncode, decode(done.stdout), decode(done.stderr)


def test_visible_escapes_what_hides_forges_or_runs_and_keeps_the_rest():
    assert visible("deploy/v1/crd.yaml: café → ok") == "deploy/v1/crd.yaml: café → ok"
    assert visible("a\x1b[2Jb\rc\u202ed\u2028e\udcff") == "a\\x1b[2Jb\\rc\\u202ed\\u2028e\\xff"
    assert visible("::error::x") == "\\x3a:error::x" and visible(" \u3000::x") == " \u3000\\x3a:x"
    assert visible("a ##[add-mask]b") == "a \\x23#[add-mask]b" and visible("key: a::b") == "key: a::b"
    assert visible("one\ntwo\tthree") == "one\\ntwo\\tthree"
    assert visible("one\n  ::two\tthree\r", lines=True) == "one\n  \\x3a:two\tthree\\r"
    for text in (HOSTILE, COMMAND_NAME):
        for lines in (False, True):
            once = visible(text, lines)
            shown_not_run(once, "visible")
            assert visible(once, lines) == once  # escaping twice changes nothing


def test_the_command_screen_passes_over_no_command():
    """visible() runs the command pattern only on text with `::` or `##[`: every text it defuses
    has one of the two, on random text of the characters that matter."""
    from generator.core import text as module

    rng = random.Random(7)
    alphabet = [":", ":", "#", "[", "]", " ", "\t", "\n", "\u200b", "\u3000", "\ufeff", "a", "e"]
    defused = 0
    for _ in range(20_000):
        sample = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        if module._COMMAND.sub(module._defuse, sample) != sample:
            defused += 1
            assert "::" in sample or "##[" in sample, repr(sample)
    assert defused > 500


@pytest.mark.parametrize("fmt", ["text", "github", "json", "sarif", "junit", "tap"])
def test_validate_shows_hostile_file_names_and_runs_none(tmp_path, fmt):
    """A file named as a workflow command (`::error file=README.md,...::x.yaml`) and one named
    with controls, in a folder walk that also skips a link out of it (a note on stderr)."""
    jobs = tmp_path / "jobs"
    jobs.mkdir()
    (jobs / f"{COMMAND_NAME}.yaml").write_text(POD)
    (jobs / f"{HOSTILE}.yaml").write_text(POD)
    (tmp_path / "outside.yaml").write_text(POD)
    (jobs / f"{HOSTILE}-link.yaml").symlink_to(tmp_path / "outside.yaml")
    for argv in (["jobs"], [f"jobs/{COMMAND_NAME}.yaml"]):
        code, out, err = run("validate", "--output", fmt, *argv, cwd=tmp_path)
        assert code == 1, err
        shown_not_run(out, f"validate -o {fmt}: stdout", annotations=fmt == "github")
        shown_not_run(err, f"validate -o {fmt}: stderr")
    if fmt == "github":
        assert out.startswith("::error file=jobs/%3A%3Aerror file=README.md%2Cline=1%2Ctitle=Forged%3A%3Ax.yaml,"), out


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("render") / "deploy"
    code, _, err = run("render", "--out", str(out), cwd=REPO)
    assert code == 0, err
    return out


def test_render_check_shows_committed_names_and_contents_and_runs_none(rendered, tmp_path):
    """Committed files the render does not write, named and filled with what a terminal and
    the runner would act on, a committed link so named, and a rendered file changed by such
    a line: the diff on stdout and the notes on stderr show each."""
    import shutil

    out = tmp_path / "deploy"
    shutil.copytree(rendered, out, symlinks=True)
    (out / "v1" / f"{HOSTILE}.yaml").write_text(f"{HOSTILE}\n{COMMAND_NAME}\n")
    (out / "v1" / f"{COMMAND_NAME}.txt").write_text("a: 1\r::error::forged\n")
    (out / "v1" / f"{HOSTILE}-link").symlink_to("/etc/hostname")
    crd = next((out / "v1").glob("*.yaml"))
    crd.write_text(crd.read_text() + f"# {HOSTILE}\n")
    for argv in ([], ["--exact"]):
        code, diff, err = run("render", "--check", *argv, "--out", str(out), cwd=tmp_path)
        assert code == 1, err
        assert "(committed)" in diff and "a symbolic link, not followed" in diff
        shown_not_run(diff, "render --check: stdout")
        shown_not_run(err, "render --check: stderr")


def test_render_jsonnet_shows_the_files_error_and_runs_none(tmp_path):
    """A jsonnet `error` whose message is made to act on a terminal and on the runner."""
    job = tmp_path / f"{COMMAND_NAME}.jsonnet"
    job.write_text(f"error {json.dumps(HOSTILE)}\n")  # a JSON string is a jsonnet string
    code, out, err = run("render", job.name, cwd=tmp_path)
    assert code == 1 and "stop-commands" in err, err
    shown_not_run(out, "render FILE.jsonnet: stdout")
    shown_not_run(err, "render FILE.jsonnet: stderr")
    data = tmp_path / "configmap.jsonnet"  # values that act, in what it writes: YAML escapes them
    data.write_text(
        f'{{apiVersion: "v1", kind: "ConfigMap", metadata: {{name: "c"}}, data: {{x: {json.dumps(IN_YAML)}}}}}\n'
    )
    code, out, err = run("render", data.name, cwd=tmp_path)
    assert code == 0, err
    shown_not_run(out, "render FILE.jsonnet: stdout")
    shown_not_run(err, "render FILE.jsonnet: stderr")


def test_convert_shows_a_hostile_kind_and_runs_none(tmp_path):
    """`convert` names the kind it cannot convert: the kind is the input's."""
    kind = json.dumps(HOSTILE)  # a JSON string is a YAML double-quoted scalar
    (tmp_path / f"{COMMAND_NAME}.yaml").write_text(f"apiVersion: v1\nkind: {kind}\nmetadata: {{name: p}}\n")
    for argv in ([f"{COMMAND_NAME}.yaml"], ["-"]):
        stdin = (tmp_path / f"{COMMAND_NAME}.yaml").read_bytes() if argv == ["-"] else None
        code, out, err = run("convert", *argv, cwd=tmp_path, stdin=stdin)
        assert code == 1 and "stop-commands" in err, err
        shown_not_run(out, "convert: stdout")
        shown_not_run(err, "convert: stderr")


def test_job_and_local_explain_show_hostile_env_values_and_run_none(tmp_path):
    """`job` writes a job whose env value acts on a terminal and the runner (YAML escapes it);
    `local --explain` prints each pod's environment: the value shown, not acted on."""
    code, job, err = run(
        "job", "demo", "--image", "paddle:3", "--workers", "1", "--command", "python train.py",
        "--env", f"X={IN_YAML}", cwd=tmp_path,
    )  # fmt: skip
    assert code == 0, err
    shown_not_run(job, "job: stdout")
    shown_not_run(err, "job: stderr")
    (tmp_path / "job.yaml").write_text(job)
    code, out, err = run("local", "--explain", "job.yaml", cwd=tmp_path)
    assert code == 0 and "X=" in out and "stop-commands" in out, err
    shown_not_run(out, "local --explain: stdout")
    shown_not_run(err, "local --explain: stderr")
    code, _, err = run("job", "demo", "--image", "paddle:3", "--workers", "1", f"--namespace={HOSTILE}", cwd=tmp_path)
    assert code in (1, 2) and "namespace" in err, err
    shown_not_run(err, "job: stderr")


def test_errors_said_at_the_top_level_are_shown_not_run(tmp_path):
    """The one place that turns errors into messages (cli/__init__.py), and argparse's usage
    errors: a missing file's name and a bad flag value are the input's."""
    for argv in (
        ["convert", f"{HOSTILE}.yaml"],
        ["local", "--explain", f"{HOSTILE}.yaml"],
        ["render", f"{HOSTILE}.jsonnet"],
        ["validate", "--skip-rules", HOSTILE, "x.yaml"],
        ["validate", f"--max-errors={HOSTILE}", "x.yaml"],
    ):
        code, out, err = run(*argv, cwd=tmp_path)
        assert code == 2 and "error" in err, (argv, err)
        shown_not_run(out, f"{argv[0]}: stdout")
        shown_not_run(err, f"{argv[0]}: stderr")


@pytest.mark.parametrize("value", ["one\n::stop-commands::tok\n", "a ##[add-mask]secret"])
def test_yaml_manifests_on_stdout_run_no_workflow_command(tmp_path, value):
    """What `job`, `convert` and `render FILE.jsonnet` write is YAML for kubectl, and also a log
    line in CI: a string whose line starts with `::` once indented, or holds `##[`, is a workflow
    command there unless written double-quoted with the escape (`\\n::`, `#\\x23[`)."""
    argv = ["job", "demo", "--image", "paddle:3", "--workers", "1", "--command", "train", "--env", f"X={value}"]
    code, out, err = run(*argv, cwd=tmp_path)
    assert code == 0, err
    shown_not_run(out, "job: stdout")
    # and it is still the same string to a YAML reader: this tool's (kubectl's rules) and kubectl
    from generator.kubeyaml.load import read_documents

    docs, _ = read_documents(out)

    def env_values(node: object) -> list:
        if isinstance(node, dict):
            own = [node["value"]] if node.get("name") == "X" and "value" in node else []
            return own + [v for child in node.values() for v in env_values(child)]
        return [v for child in node for v in env_values(child)] if isinstance(node, list) else []

    assert set(env_values(docs)) == {value}
    if shutil.which("kubectl"):  # kubectl decodes it offline, as tests/test_kubectl_yaml.py has it do
        done = subprocess.run(
            ["kubectl", "label", "--local", "-f", "-", "probe=yes", "-o", "json"],
            input=out.encode(), capture_output=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        decoded = [json.loads(chunk) for chunk in re.split(rb"(?m)^(?=\{)", done.stdout) if chunk.strip()]
        assert set(env_values(decoded)) == {value}
