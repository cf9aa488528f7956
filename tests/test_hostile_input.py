"""Every reproducer of a crash, hang or memory blow-up we know of, as a regression test.

Each runs the real CLI in a child process and must end with a one-line error (no traceback)
and exit 1 or 2, within 2 s of wall time and 200 MB of memory (the child's peak RSS,
jsonnet's sandbox process included).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

TIME_LIMIT = 2.0
MEMORY_LIMIT_KB = 200 * 1024

# Runs the CLI and reports, on the last stderr line, the peak RSS of it and its children.
_MEASURE = (
    "import resource, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "done = subprocess.run([sys.executable, '-m', 'generator', *sys.argv[1:]])\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(f'@@ {peak} {time.perf_counter() - start:.3f}', file=sys.stderr)\n"
    "sys.exit(done.returncode)\n"
)

LAUGHS = b'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + b"".join(
    b"%c: &%c [%s]\n" % (n, n, b",".join([b"*%c" % p] * 9)) for p, n in zip(b"abcdefgh", b"bcdefghi", strict=True)
)
POD = (
    b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: busybox\n"
    b"    resources: {limits: {cpu: %s}}\n"
)

CONFIGMAP_HEAD = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
STDIN_CASES = {
    "tag-int": (["validate", "-"], b"a: !!int abc\n"),
    "tag-bool": (["validate", "-"], b"a: !!bool maybe\n"),
    "int-4301-digits": (["validate", "-"], b"a: " + b"1" * 4301 + b"\n"),
    "exponent-4301-digits": (["validate", "-"], POD % (b"'1e" + b"9" * 4301 + b"'")),
    "alias-in-own-anchor": (["validate", "-"], b"a: &x [1, *x]\nb: &y {c: *y}\n"),
    "nesting-400": (["validate", "-"], b"a: " + b"[" * 400 + b"]" * 400 + b"\n"),
    "nesting-50k-flow": (["validate", "-"], b"[" * 50_000 + b"]" * 50_000 + b"\n"),
    "nesting-50k-block": (["validate", "-"], b"- " * 50_000 + b"x\n"),
    "nesting-50k-maps": (["validate", "-"], b"{a: " * 50_000 + b"1" + b"}" * 50_000 + b"\n"),
    "not-utf8": (["validate", "-"], b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \xff\xfe}\n"),
    "quantity-huge-exponent": (["validate", "-"], POD % b"'1e99999999999'"),
    "quantity-nan": (["validate", "-"], POD % b".nan"),
    "billion-laughs": (["validate", "-"], LAUGHS),
    "json-nan": (["validate", "-"], b'{"apiVersion": "v1", "kind": "ConfigMap", "x": NaN}'),
    "json-deep": (["validate", "-"], b"{" + b'"a": {' * 5000 + b"}" * 5001),
    "separator-with-content": (["validate", "-"], b"a: 1\n--- {b: 2}\n"),
    "null-key": (["validate", "-"], b"~: 1\n"),
    "convert-billion-laughs": (["convert", "-"], LAUGHS),
    "convert-date": (["convert", "-"], b"apiVersion: paddlepaddle.org/v1\nkind: PaddleJob\nmetadata: 2001-12-14\n"),
    "convert-set": (["convert", "-"], b"!!set {a, b}\n"),
    "convert-binary": (["convert", "-"], b"a: !!binary aGVsbG8=\nb: !!binary '%%%'\n"),
    "convert-mixed-keys": (["convert", "-"], b"{1: a, '1': b, 1.0: c}\n"),
    "convert-circular": (["convert", "-"], b"a: &x {b: *x}\n"),
    "convert-not-a-mapping": (["convert", "-"], b"- 1\n- 2\n"),
    "convert-deep": (["convert", "-"], b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n"),
    "convert-not-utf8": (["convert", "-"], b"\xc3\x28: 1\n"),
    # issue 24: one document under 3 MiB, each once over the 2 s / 200 MB budget
    "dash-lines-1.5M": (["validate", "-"], b"a:\n" + b"-\n" * 1_500_000),
    "flow-list-1M-maps": (["validate", "-"], b"a: [" + b"{}," * 1_000_000 + b"]\n"),
    "json-list-1M-maps": (["validate", "-"], b'{"a": [' + b",".join([b"{}"] * 1_000_000) + b"]}"),
    "nul-bytes-3M": (["validate", "-"], b"\0" * 3_000_000),
    "nul-bytes-after-a-document": (["validate", "-"], POD % b"1" + b"\0" * 3_000_000),
    # a libyaml parse per `a::` scalar that go-yaml reads (kubeyaml/compose.py): 999 of them after
    # 2.9 MB took 21 s before the reader bounded them
    "flow-colons-after-2.9MB": (
        ["validate", "-"],
        CONFIGMAP_HEAD
        + b'p: "'
        + b"a" * 2_900_000
        + b'"\nx: ['
        + b", ".join(b"h%d::" % i for i in range(999))
        + b"]\n",
    ),
}

CONFIGMAP = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n"
# A comment of nothing but what the fast reader's scans look for: once a Python object per
# character (257 MB), or a scan back to the line's start per character (`|x`: minutes).
BIG_COMMENTS = {
    "ampersands": b"#" + b"&" * 3_000_000 + b"\n",
    "question-marks": b"#" + b"?" * 3_000_000 + b"\n",
    "pipes": b"#" + b"|x" * 1_500_000 + b"\n",
    "folds": b"# " + b"> " * 1_000_000 + b"\n",
    "flow-ends": b"#" + b" }" * 1_500_000 + b"\n",
}


@pytest.mark.parametrize("case", sorted(BIG_COMMENTS))
def test_a_valid_configmap_with_a_3mb_comment_is_read_within_budget(case):
    code, out, peak, seconds = run(["validate", "-"], CONFIGMAP + BIG_COMMENTS[case])
    assert code == 0 and "0 errors" in out, out[-2000:]
    assert seconds < TIME_LIMIT, f"took {seconds:.2f} s"
    assert peak < MEMORY_LIMIT_KB, f"peak {peak / 1024:.0f} MB"


def test_a_lone_surrogate_escape_in_json_is_read_as_kubectl_reads_it():
    """kubectl reads "\\ud800" as U+FFFD; it once ended in exit 3 (the text could not be printed)."""
    doc = b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "\\ud800"}}'
    for output in ("text", "json"):
        code, out, peak, seconds = run(["validate", "-", "-o", output], doc)
        assert code == 0 and "Traceback" not in out and "internal error" not in out, out
        assert seconds < TIME_LIMIT and peak < MEMORY_LIMIT_KB


JSONNET_CASES = {
    "pow-overflow": "std.pow(2, 1100)",
    "brackets-10k": "[" * 10_000 + "]" * 10_000,
    "tailstrict-recursion": "local f(n) = if n == 0 then 0 else f(n - 1) tailstrict; f(10000000)",
    "output-400-deep": "local f(n) = if n == 0 then [] else [f(n - 1)]; f(400)",
    "importstr-dev-zero": "importstr '/dev/zero'",
    "importstr-etc-passwd": "{ a: importstr '/etc/passwd' }",
    "importstr-proc-environ": "{ a: importstr '/proc/self/environ' }",
    "import-parent-folder": "import '../outside.libsonnet'",
    "importstr-dev-stdin": "importstr '/dev/stdin'",
}


def run(argv: list[str], stdin: bytes = b"", cwd: Path = REPO) -> tuple[int, str, int, float]:
    """(exit code, stdout and stderr, peak RSS in KB, seconds) of the CLI run in a child."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=30,
        env={**os.environ, "NO_COLOR": "1"},
    )
    err = done.stderr.decode("utf-8", "replace")
    body, _, measured = err.rpartition("@@ ")
    peak, seconds = measured.split()
    return done.returncode, done.stdout.decode("utf-8", "replace") + body, int(peak), float(seconds)


def assert_clean_failure(code: int, err: str, peak: int, seconds: float) -> None:
    assert code in (1, 2), (code, err[-2000:])
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    assert err.strip(), "a failure says why"
    assert seconds < TIME_LIMIT, f"took {seconds:.2f} s"
    assert peak < MEMORY_LIMIT_KB, f"peak {peak / 1024:.0f} MB"


@pytest.mark.parametrize("case", sorted(STDIN_CASES))
def test_hostile_stdin_ends_in_a_clear_error(case):
    argv, data = STDIN_CASES[case]
    code, err, peak, seconds = run(argv, data)
    assert_clean_failure(code, err, peak, seconds)
    assert code == 1, err


@pytest.mark.parametrize("quantity", [b"1Ei", b"1E", b"8Ei", b"'1e3'", b"0.5", b"10"])
def test_valid_quantities_that_once_crashed_are_valid(quantity):
    code, out, peak, seconds = run(["validate", "-"], POD % quantity)
    assert code == 0 and "0 errors" in out and seconds < TIME_LIMIT and peak < MEMORY_LIMIT_KB, out


@pytest.mark.parametrize("case", sorted(JSONNET_CASES))
def test_hostile_jsonnet_ends_in_a_clear_error(tmp_path, case):
    (tmp_path / "outside.libsonnet").write_text("{ secret: 1 }")
    job = tmp_path / "job"
    job.mkdir()
    (job / "job.jsonnet").write_text(JSONNET_CASES[case])
    code, err, peak, seconds = run(["render", str(job / "job.jsonnet")])
    assert_clean_failure(code, err, peak, seconds)
    assert len(err.strip().splitlines()) <= 12, err
    assert "root:" not in err and "PATH=" not in err, "no file content leaks into the message"


def test_imports_inside_the_files_folder_and_the_library_still_work(tmp_path):
    (tmp_path / "lib.libsonnet").write_text("{ name: 'ok' }")
    (tmp_path / "job.jsonnet").write_text(
        "local lib = import 'lib.libsonnet';\n"
        "local pj = import 'paddlejob/main.libsonnet';\n"
        "pj.job({ name: 'demo', image: 'registry.example.com/demo:1', roles: { worker: { replicas: 2 } } })"
    )
    code, err, _, _ = run(["render", str(tmp_path / "job.jsonnet")])
    assert code in (0, 1) and "outside the file's folder" not in err, err


def test_allow_import_anywhere_opts_out_of_the_folder_rule(tmp_path):
    (tmp_path / "outside.libsonnet").write_text("'x'")
    job = tmp_path / "job"
    job.mkdir()
    (job / "job.jsonnet").write_text(
        "local x = import '../outside.libsonnet'; assert x == 'x'; "
        "{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'c'}}"
    )
    assert run(["render", str(job / "job.jsonnet")])[0] == 1
    code, err, _, _ = run(["render", "--allow-import-anywhere", str(job / "job.jsonnet")])
    assert code == 0, err
    (job / "zero.jsonnet").write_text("importstr '/dev/zero'")
    code, err, _, _ = run(["render", "--allow-import-anywhere", str(job / "zero.jsonnet")])
    assert code == 1 and "not a regular file" in err


def test_params_that_are_not_utf8_or_not_fields_are_usage_errors(tmp_path):
    bad = tmp_path / "params.yaml"
    bad.write_bytes(b"namespace: \xff\n")
    code, err, peak, seconds = run(["render", "--out", str(tmp_path / "o"), "--params", str(bad)])
    assert_clean_failure(code, err, peak, seconds)
    assert code == 2 and "params.yaml:1:" in err and "UTF-8" in err
    bad.write_text("namespce: training\n")
    code, err, *_ = run(["render", "--out", str(tmp_path / "o"), "--params", str(bad)])
    assert code == 2 and "did you mean 'namespace'" in err
    bad.write_bytes(LAUGHS)
    code, err, peak, seconds = run(["render", "--out", str(tmp_path / "o"), "--params", str(bad)])
    assert_clean_failure(code, err, peak, seconds)


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        (["--init-image", ""], "--init-image (initImage): image is required"),
        (["--image", "Bad Image!"], "is not an image reference"),
        (["--image", " "], "image is required"),
        (["--image-pull-secret", "Bad_Name"], "is not a valid Secret name"),
        (["--replicas", str(10**12)], "int32"),
        (["--node-selector", "bad key!=v"], "label key name 'bad key!'"),
        (["--apiserver-port", "0"], "0 is not a port number"),
        (["--network-policy", "--apiserver-port", "70000"], "70000 is not a port number"),
    ],
)
def test_render_refuses_bad_parameters_and_writes_nothing(tmp_path, flag, message):
    code, err, *_ = run(["render", "--out", str(tmp_path / "o"), *flag])
    assert code == 2 and message in err, err
    assert not (tmp_path / "o").exists()


def test_render_refuses_what_validate_refuses(tmp_path):
    code, err, *_ = run(["render", "--out", str(tmp_path / "o"), "--requests", "cpu=2", "--limits", "cpu=1"])
    assert code == 1 and "above the limit" in err and "[resources]" in err
    assert not (tmp_path / "o").exists()


def test_render_onto_a_file_or_an_unwritable_place_fails_cleanly(tmp_path):
    target = tmp_path / "deploy"
    target.write_text("a file, not a folder\n")
    code, err, peak, seconds = run(["render", "--out", str(target)])
    assert_clean_failure(code, err, peak, seconds)
    assert "nothing was written" in err and target.read_text() == "a file, not a folder\n"
    code, err, peak, seconds = run(["render", "--out", "/proc/paddlejob-deploy"])
    assert_clean_failure(code, err, peak, seconds)


def test_a_full_disk_leaves_the_old_output_and_no_leftovers(tmp_path, monkeypatch):
    import errno

    from generator.render import atomic

    out = tmp_path / "deploy"
    atomic.replace(out, {out / "v1": {"a.yaml": "old\n"}})
    written = []

    def full(path, text):
        if written:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        written.append(path)
        Path(path).write_text(text)

    monkeypatch.setattr(atomic, "_write_file", full)
    with pytest.raises(atomic.WriteError, match="No space left on device"):
        atomic.replace(out, {out / "v1": {"a.yaml": "new\n", "b.yaml": "new\n"}})
    assert (out / "v1" / "a.yaml").read_text() == "old\n"
    assert sorted(p.name for p in out.iterdir()) == ["v1"]


def test_an_internal_error_is_exit_3_with_a_report_line(monkeypatch, capsys):
    from generator import cli, validate

    def broken(*_args, **_kwargs):
        raise KeyError("surprise")

    monkeypatch.setattr(validate, "validate_files", broken)
    assert cli.main(["validate", str(REPO / "deploy" / "v1")]) == 3
    err = capsys.readouterr().err
    assert "internal error: KeyError" in err and "please report it" in err and "Traceback" not in err
