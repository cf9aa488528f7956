"""Exit codes and output the README's "Safety" promises, for inputs a hostile pull request (or a
broken CI step) makes: standard output that cannot be written, symbolic link loops, dangling
links, named pipes and devices, file names with bytes no output format holds as they are, and a
file with a finding on every document (issue 24, items 7, 8 and 9, and its minor items)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest

from generator import validate
from generator.core.findings import Finding
from generator.schema import kubernetes
from generator.validate import discover
from generator.validate import output as outputs

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n"  # no image: an error
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"


def run(*args: str, cwd: Path | None = None, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(
        [sys.executable, "-m", "generator", *args],
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        env=ENV,
        cwd=cwd,
        timeout=timeout,
        **kwargs,
    )


def no_traceback(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr


# -- standard output that cannot be written (item 7) ---------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "ok.yaml"],
        ["validate", "--list-rules"],
        ["job", "demo", "--image", "a:1", "--workers", "1"],
        ["completion", "bash"],
        ["render", "--out", "-", "--kube-version", "1.30"],
        ["--version"],  # a few bytes: the failure surfaces only when stdout is flushed at the end
        ["validate", "--help"],
    ],
)
def test_stdout_on_a_full_disk_is_a_clean_usage_error(tmp_path, args):
    (tmp_path / "ok.yaml").write_text(CONFIGMAP)
    with open("/dev/full", "w") as full:
        done = run(*args, cwd=tmp_path, stdout=full)
    no_traceback(done)
    assert done.returncode == 2, done.stderr
    assert "cannot write to standard output: No space left on device" in done.stderr
    assert done.stderr.count("cannot write") == 1  # said once, not again at the interpreter's exit


@pytest.mark.parametrize("args", [["validate", "--list-rules"], ["validate", "ok.yaml"], ["--version"]])
def test_a_closed_stdout_is_a_clean_usage_error(tmp_path, args):
    (tmp_path / "ok.yaml").write_text(CONFIGMAP)
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "generator", *args],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=tmp_path,
        timeout=60,
    )
    no_traceback(done)
    assert done.returncode == 2, done.stderr
    assert "cannot write to standard output: it is closed" in done.stderr


@pytest.mark.parametrize("args", [["--version"], ["validate", "--list-rules"]])
def test_a_reader_that_left_before_the_output_ends_the_run_quietly(args):
    """`... | head -1` where the reader is gone before the output, small and buffered, is flushed
    at the end: exit 1 and nothing said (Python's exit said "Exception ignored", exit 120)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "generator", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV
    )
    child.stdout.close()  # before the child has started: its output meets a pipe with no reader
    stderr = child.stderr.read().decode()
    assert child.wait(timeout=60) == 1
    assert stderr == ""


# -- the file system: links, loops, pipes, devices, folders that cannot be listed ----------------


def test_symbolic_link_loops_in_a_folder_are_skipped_with_a_note(tmp_path):
    (tmp_path / "ok.yaml").write_text(CONFIGMAP)
    (tmp_path / "a.yaml").symlink_to("b.yaml")
    (tmp_path / "b.yaml").symlink_to("a.yaml")
    (tmp_path / "self.yaml").symlink_to("self.yaml")
    (tmp_path / "here").symlink_to(".")  # a folder loop: linked folders are not walked into
    (tmp_path / "kustomization.yaml").write_text("resources: [ok.yaml]\npatches:\n- path: self.yaml\n- path: 5\n")
    done = run("validate", ".", cwd=tmp_path)
    no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert "1 document: 0 errors" in done.stdout
    for name in ("a.yaml", "b.yaml", "self.yaml"):
        assert f"{name}: skipped: a symbolic link loop" in done.stderr


def test_a_symbolic_link_loop_named_is_a_usage_error(tmp_path):
    (tmp_path / "self.yaml").symlink_to("self.yaml")
    done = run("validate", "self.yaml", cwd=tmp_path)
    no_traceback(done)
    assert done.returncode == 2
    assert "self.yaml: a symbolic link loop" in done.stderr


def test_a_kustomization_cannot_crash_the_walk(tmp_path):
    """Its patch paths are the repository's to write: a NUL byte, a loop, a number, a mapping."""
    (tmp_path / "ok.yaml").write_text(CONFIGMAP)
    (tmp_path / "loop.yaml").symlink_to("loop.yaml")
    (tmp_path / "kustomization.yaml").write_text(
        'patches: ["a\\0b", {path: loop.yaml}, 7, {path: [x]}]\npatchesStrategicMerge: {a: b}\n'
    )
    done = run("validate", ".", cwd=tmp_path)
    no_traceback(done)
    assert done.returncode == 0, done.stderr


def test_dangling_links_are_noted_in_a_folder_and_an_error_when_named(tmp_path):
    (tmp_path / "ok.yaml").write_text(CONFIGMAP)
    (tmp_path / "gone.yaml").symlink_to("generated/gone.yaml")
    done = run("validate", ".", cwd=tmp_path)
    no_traceback(done)
    assert done.returncode == 0
    assert "gone.yaml: skipped: a dangling symbolic link: its target 'generated/gone.yaml' does not exist" in (
        done.stderr
    )
    done = run("validate", "gone.yaml", cwd=tmp_path)
    no_traceback(done)
    assert done.returncode == 2
    assert "gone.yaml: a dangling symbolic link" in done.stderr


def test_a_folder_that_cannot_be_listed_is_noted(tmp_path, monkeypatch):
    """As the folder walk of rglob, it holds nothing, but the run says so (root can list every
    folder, so the refusal is the system's answer, made here)."""
    (tmp_path / "ok.yaml").write_text(CONFIGMAP)
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "job.yaml").write_text(CONFIGMAP)
    scandir = os.scandir

    def refusing(path):
        if os.path.basename(path) == "secret":
            raise PermissionError(13, "Permission denied", path)
        return scandir(path)

    monkeypatch.setattr(discover.os, "scandir", refusing)
    found = discover.find([str(tmp_path)])
    assert found.files == [str(tmp_path / "ok.yaml")]
    assert found.skipped == [(str(tmp_path / "secret"), "cannot list the folder: Permission denied")]


def test_a_named_pipe_in_a_folder_is_skipped_not_waited_for(tmp_path):
    (tmp_path / "ok.yaml").write_text(CONFIGMAP)
    os.mkfifo(tmp_path / "pipe.yaml")
    done = run("validate", ".", cwd=tmp_path, timeout=30)
    no_traceback(done)
    assert done.returncode == 0
    assert "pipe.yaml: skipped: a named pipe, not a regular file" in done.stderr


def test_a_named_pipe_no_process_writes_to_is_an_error_not_a_hang(tmp_path):
    done = subprocess.run(  # a pipe a process writes to is read as a file
        ["bash", "-c", f'{sys.executable} -m generator validate <(printf "%s" "$0")', CONFIGMAP],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    no_traceback(done)
    assert done.returncode == 0 and "1 document: 0 errors" in done.stdout
    os.mkfifo(tmp_path / "pipe.yaml")
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom generator import cli\n"
            "from generator.validate import inputs\ninputs.PIPE_IDLE_SECONDS = 0.3\n"
            "sys.exit(cli.main(['validate', 'pipe.yaml']))",
        ],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=tmp_path,
        timeout=30,
    )
    no_traceback(done)
    assert done.returncode == 1
    assert "pipe.yaml:1:1: error" in done.stdout and "nothing came through the pipe in 0.3 s" in done.stdout
    assert time.monotonic() - started < 20


def test_a_named_pipe_that_never_ends_is_read_only_so_far(tmp_path):
    """A writer that never stops (`yes`): reading stops at the limit, with an error."""
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)

    def write_for_ever():
        try:
            with open(pipe, "wb") as stream:
                while True:
                    stream.write(b"a: b\n" * 10000)
        except (BrokenPipeError, OSError):
            return

    writer = threading.Thread(target=write_for_ever, daemon=True)
    writer.start()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom generator import cli\n"
            "from generator.validate import inputs\ninputs.MAX_PIPE_BYTES = 1 << 20\n"
            "sys.exit(cli.main(['validate', 'pipe.yaml']))",
        ],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=tmp_path,
        timeout=60,
    )
    writer.join(timeout=10)
    no_traceback(done)
    assert done.returncode == 1
    assert "more than 1,048,576 bytes came through the pipe" in done.stdout


@pytest.mark.parametrize("device", ["/dev/zero", "link.yaml"])
def test_a_device_named_is_refused_at_once(tmp_path, device):
    (tmp_path / "link.yaml").symlink_to("/dev/zero")  # what a committed link makes pre-commit name
    done = run("validate", device, cwd=tmp_path, timeout=30)
    no_traceback(done)
    assert done.returncode == 2
    assert f"{device}: a character device, not a file" in done.stderr


# -- machine output of hostile file names (item 9) -----------------------------------------------

NAMES = [b"bad\xff.yaml", b"esc\x1b[2J.yaml", b"new\nline.yaml", b"x # SKIP.yaml", b"amp&<lt>\t.yaml"]


@pytest.fixture(scope="module")
def hostile_names(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("names")
    for name in NAMES:
        with open(os.path.join(os.fsencode(folder), name), "wb") as stream:
            stream.write(POD.encode())
    return folder


def run_output(folder: Path, fmt: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", "--output", fmt, "--jobs", "1", "."],
        capture_output=True,
        env={**ENV, "LC_ALL": "C", "PYTHONIOENCODING": "utf-8"},  # strict UTF-8: no surrogate written
        cwd=folder,
        timeout=60,
    )
    stderr = done.stderr.decode(errors="replace")
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert done.returncode == 1, stderr
    text = done.stdout.decode("utf-8")  # strict: the output is UTF-8 throughout
    assert "\x1b" not in text
    return text


def test_junit_parses_with_any_file_name(hostile_names):
    text = run_output(hostile_names, "junit")
    root = ElementTree.fromstring(text.encode())
    cases = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert len(cases) == len(NAMES)
    files = sorted(c.get("file") for c in cases)
    assert "bad\\xff.yaml" in files and "new\\nline.yaml" in files and "esc\\x1b[2J.yaml" in files
    import junitparser

    suites = junitparser.JUnitXml.fromstring(text.encode())
    assert sum(suite.failures for suite in suites) == len(NAMES)


def test_tap_has_one_test_line_per_document_with_any_file_name(hostile_names):
    text = run_output(hostile_names, "tap")
    from tap.parser import Parser

    tests = [line for line in Parser().parse_text(text) if line.category == "test"]
    assert len(tests) == len(NAMES)  # the plan's count: no name made a line of its own, no phantom test
    assert [t.ok for t in tests] == [False] * len(NAMES)
    assert not any(t.skip or t.todo for t in tests)  # `# SKIP` in a name is no directive


def test_text_and_github_have_one_line_per_finding(hostile_names):
    for fmt, summary in (("text", 2), ("github", 1)):
        lines = run_output(hostile_names, fmt).splitlines()
        assert len(lines) == len(NAMES) + summary, lines  # the findings and the summary (text: two lines)
        assert any("bad\\xff.yaml" in line for line in lines)


def test_json_and_sarif_parse_and_keep_the_names(hostile_names):
    report = json.loads(run_output(hostile_names, "json"))
    files = {os.fsencode(f["file"]) for f in report["findings"]}  # surrogate escapes: the bytes again
    assert files == set(NAMES)
    sarif = json.loads(run_output(hostile_names, "sarif"))
    uris = sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"])
    assert uris == sorted(
        ["amp%26%3Clt%3E%09.yaml", "bad%FF.yaml", "esc%1B%5B2J.yaml", "new%0Aline.yaml", "x%20%23%20SKIP.yaml"]
    )


def test_sarif_uri_keeps_a_hidden_folder_s_dot():
    item = validate.Located(Finding("error", "", "image", "m"), "./.github/x.yaml", 1, 1, 1)
    report = validate.Report(findings=[item])
    result = json.loads(outputs.FORMATS["sarif"](report))["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == ".github/x.yaml"


def test_the_empty_warning_of_many_files_is_one_short_line():
    names = [f"deploy/empty-{i:06}.yaml" for i in range(100_000)]
    report = validate.Report()
    validate.note_empty(report, names)
    message = report.findings[0].finding.message
    assert len(message) < 400
    assert "100,000 files" in message and "deploy/empty-000000.yaml" in message and "99,995 more" in message


# -- convert (minor) -----------------------------------------------------------------------------


@pytest.mark.parametrize("content", ["", "# only a comment\n---\n"])
def test_convert_of_an_empty_file_is_an_error_naming_it(tmp_path, content):
    (tmp_path / "old-job.yaml").write_text(content)
    done = run("convert", "old-job.yaml", cwd=tmp_path)
    no_traceback(done)
    assert done.returncode == 1
    assert done.stdout == ""
    assert "old-job.yaml: no document to convert" in done.stderr


# -- a finding on every document (issue 28) ------------------------------------------------------


def test_a_finding_on_every_document_costs_linear_time():
    """Report counted every finding again after each document: 20,000 documents with a warning
    each took 14 times as long as 5,000 (quadratic), now about 4 times."""
    checker = validate.ObjectChecker(kubernetes.known_versions()[-1])

    def cpu(documents: int) -> float:
        text = "".join(
            f"---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: w{i}}}\n" for i in range(documents)
        )
        report = validate.Report(max_errors=1000)
        started = time.thread_time()  # this thread's: not another test's leftover thread
        validate.validate_stream("many.yaml", text, checker, report)
        took = time.thread_time() - started
        assert report.warnings == documents and not report.truncated
        return took

    cpu(200)  # the schemas and readers loaded
    assert cpu(20_000) / cpu(5_000) < 8
    # the running count stays right when findings are added by the merge (`findings +=`), or
    # the list is replaced or cut
    error = validate.Located(Finding("error", "", "image", "m"), "f", 1, 1, 1)
    warning = validate.Located(Finding("warning", "", "unknown-kind", "m"), "f", 1, 1, 1)
    report = validate.Report(max_errors=3)
    report.add(error)
    report.add(warning)
    assert (report.errors, report.warnings, report.full) == (1, 1, False)
    report.findings += [error, error]
    assert (report.errors, report.full) == (3, True)
    report.findings = [warning]
    assert (report.errors, report.warnings) == (0, 1)
    report.findings.append(error)
    del report.findings[1:]
    assert report.errors == 0
