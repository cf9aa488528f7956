"""`validate --build` confined by the operating system, with the scan as a second wall.

Each attack of a hostile pull request is tried twice where it can be: through the command, where
the scan refuses it before anything runs, and against the sandbox alone (the scan bypassed), where
kubectl or helm runs it and finds nothing: no file outside the folders named, no network (a
loopback server counts the requests it gets). Kustomize reads a kustomization's fields without
regard to case or Unicode folding (`Resources`, `RESOURCES`, `reſources`), so both walls are tried
with every spelling."""

from __future__ import annotations

import gzip
import http.server
import io
import json
import os
import tarfile
import threading
import time
from pathlib import Path

import pytest

from generator.validate import build

from .conftest import KUBECTL, REPO, needs_kubectl
from .test_build_sources import run, write

HELMS = [REPO / ".venv" / "helm" / f"v{major}" / "helm" for major in (3, 4)]
A_HELM = next((str(path) for path in HELMS if path.is_file()), None)
needs_helm = pytest.mark.skipif(A_HELM is None, reason="`make helm-tools` installs helm")
# CI installs bubblewrap (make test): there a missing sandbox fails these tests instead of skipping them
needs_sandbox = pytest.mark.skipif(
    isinstance(build.confinement(), str) and not os.environ.get("CI"),
    reason=f"no sandbox here: {build.confinement()}",
)
pytestmark = needs_sandbox

SECRET = "outside-the-repository-s3cret"


class Listener:
    """A loopback HTTP server that serves a ConfigMap and counts the requests it gets."""

    def __init__(self):
        self.requests: list[str] = []
        listener = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                listener.requests.append(self.path)
                body = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched}\n"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener():
    with Listener() as server:
        yield server


def outside_repo(tmp_path: Path) -> Path:
    """A repository in tmp_path/repo, and beside it a ConfigMap holding SECRET."""
    write(
        tmp_path,
        {
            "outside/kustomization.yaml": "resources: [cm.yaml]\n",
            "outside/cm.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: leak}}\n"
            f"data: {{token: {SECRET}}}\n",
        },
    )
    return tmp_path / "repo"


# a kustomization that copies a string of an object outside the repository into a label, which a
# finding (an invalid label value) would print
def _reader(field: str) -> str:
    return f"""\
        {field}: [../../outside]
        replacements:
          - source: {{kind: ConfigMap, name: leak, fieldPath: data.token}}
            targets:
              - select: {{kind: ConfigMap, name: leak}}
                fieldPaths: [metadata.labels.x]
                options: {{create: true}}
        """


SPELLINGS = ["resources", "Resources", "RESOURCES", "re\u017fources", "BASES", "Components"]


@needs_kubectl
@pytest.mark.parametrize("field", SPELLINGS)
def test_a_kustomization_that_reads_outside_is_refused_however_its_field_is_spelt(tmp_path, field):
    repo = outside_repo(tmp_path)
    write(repo, {"app/kustomization.yaml": _reader(field)})
    code, out, err = run(["--build", "--kubectl", KUBECTL, "."], repo)
    assert code == 1 and "Traceback" not in err, out + err
    assert "app/kustomization.yaml:1:" in out and "is outside the folders named" in out
    assert SECRET not in out + err


@needs_kubectl
@pytest.mark.parametrize("field", [f for f in SPELLINGS if f != "Components"])  # a Component would be needed
def test_the_sandbox_alone_shows_kustomize_nothing_outside_the_folders_named(tmp_path, field):
    """The scan bypassed: kustomize itself runs the kustomization, in the sandbox, and cannot read
    the folder beside the repository (it is not in the sandbox's file system)."""
    repo = outside_repo(tmp_path)
    write(repo, {"app/kustomization.yaml": _reader(field)})
    sandbox = build.confinement()
    assert isinstance(sandbox, build.Confinement)
    with build._Sandbox() as home:
        argv = sandbox.argv(KUBECTL, [str(repo)], home.home) + ["kustomize", str(repo / "app")]
        with pytest.raises(build.Failed) as failed:
            build.run(argv, home.env, home.home, timeout=60)
        # the same kustomize, unconfined, reads it: the sandbox is what stops it
        leaked = build.run([KUBECTL, "kustomize", str(repo / "app")], home.env, home.home, timeout=60)
    assert SECRET not in str(failed.value) and "no such file or directory" in str(failed.value)
    assert SECRET in leaked


def _remote_cases(url: str) -> dict[str, str]:
    return {
        "RESOURCES": f"RESOURCES: [{url}/x.yaml]\n",
        "Path": f"resources: []\npatches: [{{Path: {url}/p.yaml}}]\n",
        "FILES": f"configMapGenerator: [{{name: c, FILES: [{url}/f]}}]\n",
        "key=url": f"configMapGenerator: [{{name: c, files: [k={url}/f]}}]\n",
        "inline PatchTransformer": (
            "transformers:\n  - |-\n    apiVersion: builtin\n    kind: PatchTransformer\n"
            f"    metadata: {{name: p}}\n    path: {url}/p.yaml\n"
        ),
        "inline ConfigMapGenerator": (
            "generators:\n  - |-\n    apiVersion: builtin\n    kind: ConfigMapGenerator\n"
            f"    metadata: {{name: c}}\n    FILES: [{url}/f]\n"
        ),
        "inline HelmChartInflationGenerator": (
            "generators:\n  - |-\n    apiVersion: builtin\n    kind: HelmChartInflationGenerator\n"
            "    metadata: {name: h}\n    chartName: x\n"
        ),
        "scp remote": "resources: [user@host:org/repo]\n",
        "gh:": "resources: ['gh:org/repo']\n",
        "git suffix": "resources: [example.org/org/repo.git]\n",
        "double slash": "resources: [example.org/org/repo//deploy]\n",
    }


@needs_kubectl
@pytest.mark.parametrize("case", sorted(_remote_cases("U")))
def test_a_kustomization_that_would_reach_the_network_is_refused_before_it_runs(tmp_path, listener, case):
    repo = tmp_path / "repo"
    write(repo, {"app/kustomization.yaml": _remote_cases(listener.url)[case], "app/user@host:org/repo/k": ""})
    code, out, err = run(["--build", "--kubectl", KUBECTL, "."], repo)
    assert code == 1 and "Traceback" not in err, out + err
    assert out.startswith("app/kustomization.yaml:"), out
    assert "would fetch it over the network" in out or "would run helm" in out, out
    assert listener.requests == []


@needs_kubectl
@pytest.mark.parametrize("case", ["RESOURCES", "Path", "FILES", "inline PatchTransformer", "inline ConfigMapGenerator"])
def test_the_sandbox_alone_has_no_network(tmp_path, listener, case):
    """The scan bypassed: kustomize tries the URL in the sandbox, whose loopback is its own."""
    repo = tmp_path / "repo"
    write(repo, {"app/kustomization.yaml": _remote_cases(listener.url)[case]})
    sandbox = build.confinement()
    with build._Sandbox() as home:
        argv = sandbox.argv(KUBECTL, [str(repo)], home.home) + ["kustomize", str(repo / "app")]
        env = {k: v for k, v in home.env.items() if "proxy" not in k.lower()}  # no proxy: the sandbox alone
        with pytest.raises(build.Failed):
            build.run(argv, env, home.home, timeout=60)
        assert listener.requests == []
        if case == "RESOURCES":  # unconfined and without the proxies, the same kustomize fetches it
            fetched = build.run([KUBECTL, "kustomize", str(repo / "app")], env, home.home, timeout=60)
            assert listener.requests and "name: fetched" in fetched


def test_a_scp_remote_is_refused_even_where_a_folder_of_that_name_exists(tmp_path):
    repo = tmp_path / "repo"
    write(
        repo,
        {
            "app/kustomization.yaml": "resources: [deploy@example.org:org/repo]\n",
            "app/deploy@example.org:org/repo/kustomization.yaml": "resources: []\n",
        },
    )
    with pytest.raises(build.Refused, match="is a remote target"):
        build.check_kustomization(str(repo / "app"), [str(repo)])


def test_field_names_fold_as_kustomize_folds_them():
    assert build.fold("Resources") == build.fold("RESOURCES") == build.fold("re\u017fources") == "resources"
    assert build.fold("\u212aind") == build.fold("kind")  # the Kelvin sign
    assert build.fold("commonLabels") != build.fold("commonLabel")
    assert build.fold("stra\u00dfe") != build.fold("strasse")  # Go folds one rune to one rune


def test_without_a_sandbox_build_refuses_with_exit_2_unless_told_the_files_are_trusted(tmp_path, monkeypatch):
    """No bubblewrap on PATH: --build is a usage error naming the way out; --build-unconfined runs
    the tool (here a stand-in) with the checks before it still in force."""
    tool = tmp_path / "kubectl"
    tool.write_text("#!/bin/sh\necho 'apiVersion: v1'; echo 'kind: ConfigMap'; echo 'metadata: {name: c}'\n")
    tool.chmod(0o755)
    write(tmp_path, {"repo/app/kustomization.yaml": "resources: []\n"})
    env = {"PATH": str(tmp_path / "nothing")}
    code, out, err = run(["--build", "--kubectl", str(tool), "app"], tmp_path / "repo", env)
    assert code == 2 and out == "", out + err
    assert "bubblewrap (bwrap) is not installed" in err and "--build-unconfined" in err
    assert "apt install bubblewrap" in err
    code, out, err = run(["--build", "--build-unconfined", "--kubectl", str(tool), "app"], tmp_path / "repo", env)
    assert code == 0 and "1 document: 0 errors" in out, out + err
    # the checks still hold unconfined
    write(tmp_path, {"repo/app/kustomization.yaml": "RESOURCES: [../../elsewhere]\n", "elsewhere/k.yaml": ""})
    code, out, err = run(["--build", "--build-unconfined", "--kubectl", str(tool), "app"], tmp_path / "repo", env)
    assert code == 1 and "is outside the folders named" in out, out + err
    code, _, err = run(["--build-unconfined", "app"], tmp_path / "repo", env)
    assert code == 2 and "--build-unconfined: only --build runs it" in err


def test_without_anything_to_build_no_sandbox_is_needed(tmp_path):
    write(tmp_path, {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
    code, out, err = run(["--build", "."], tmp_path, {"PATH": str(tmp_path / "nothing")})
    assert code == 0, out + err


# -- charts ---------------------------------------------------------------------------------

REMOTE_REF = {"$ref": "http://127.0.0.1:9/x.json"}


def _tgz(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for info, data in members:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def _member(name: str, kind: bytes = tarfile.REGTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    return info


def _packaged_sub(schema_name: str, kind: bytes = tarfile.REGTYPE) -> bytes:
    return _tgz(
        [
            (_member("sub/Chart.yaml"), b"apiVersion: v2\nname: sub\nversion: 0.1.0\n"),
            (_member(schema_name, kind), json.dumps(REMOTE_REF).encode()),
        ]
    )


SCHEMAS = {
    "a byte that is not UTF-8": b'{"description": "\xff", "properties": {"a": {"$ref": "http://127.0.0.1:9/x"}}}',
    "1,200 nested brackets": b"[" * 1200 + json.dumps(REMOTE_REF).encode() + b"]" * 1200,
    "a duplicate $ref": b'{"$ref": "http://127.0.0.1:9/x", "$ref": "#/definitions/a", "definitions": {"a": {}}}',
    "UTF-16": json.dumps(REMOTE_REF).encode("utf-16"),
}


@pytest.mark.parametrize("case", sorted(SCHEMAS))
def test_a_values_schema_that_hides_a_remote_ref_is_refused(tmp_path, case):
    write(tmp_path, {"chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n"})
    (tmp_path / "chart" / "values.schema.json").write_bytes(SCHEMAS[case])
    with pytest.raises(build.Refused, match="values schema"):
        build.check_chart(tmp_path / "chart", [str(tmp_path)])


@pytest.mark.parametrize(
    "name,kind",
    [
        ("sub/values.schema.json", tarfile.REGTYPE),
        ("sub/values.schema.json/.", tarfile.REGTYPE),
        ("sub/./values.schema.json", tarfile.REGTYPE),
        ("sub/values.schema.json", b"Z"),
        ("sub/values.schema.json", tarfile.CONTTYPE),
    ],
)
def test_a_packaged_subcharts_schema_is_found_however_helm_names_it(tmp_path, name, kind):
    write(
        tmp_path,
        {
            "chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n"
            "dependencies: [{name: sub, version: 0.1.0}]\n",
            "chart/charts/sub-0.1.0.tgz": _packaged_sub(name, kind),
        },
    )
    with pytest.raises(build.Refused, match=r"values schema /\$ref: 'http://127.0.0.1:9/x.json'"):
        build.check_chart(tmp_path / "chart", [str(tmp_path)])


def test_a_packaged_chart_inside_a_packaged_chart_is_checked(tmp_path):
    inner = _packaged_sub("sub/values.schema.json")
    outer = _tgz(
        [
            (_member("mid/Chart.yaml"), b"apiVersion: v2\nname: mid\nversion: 0.1.0\n"),
            (_member("mid/charts/sub-0.1.0.tgz"), inner),
        ]
    )
    write(tmp_path, {"chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "chart/charts/mid.tgz": outer})
    with pytest.raises(build.Refused, match="values schema"):
        build.check_chart(tmp_path / "chart", [str(tmp_path)])


@needs_helm
def test_a_source_line_cannot_place_a_finding_outside_the_chart(tmp_path):
    hostile = (
        "# Source: chart/../../../../../../etc/passwd\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: BAD_NAME}\n"
    )
    write(
        tmp_path,
        {"chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n", "chart/templates/x.yaml": hostile},
    )
    for output in ("text", "sarif"):
        code, out, err = run(["--build", "--helm", A_HELM, "--output", output, "chart"], tmp_path)
        assert code == 1 and "Traceback" not in err, out + err
        assert "etc/passwd" not in out.replace("Source: chart/../", "")
        if output == "text":
            assert out.startswith("chart/Chart.yaml:1:1: error: ConfigMap/BAD_NAME: metadata.name:"), out


@needs_helm
def test_the_build_timeout_bounds_the_whole_run(tmp_path):
    loop = "{{- range $i := until 100000 }}{{- range $j := until 100000 }}{{- end }}{{- end }}\n"
    for n in range(6):
        write(
            tmp_path,
            {f"c{n}/Chart.yaml": f"apiVersion: v2\nname: c{n}\nversion: 0.1.0\n", f"c{n}/templates/x.yaml": loop},
        )
    start = time.monotonic()
    code, out, err = run(["--build", "--build-timeout", "3", "--helm", A_HELM, "."], tmp_path)
    took = time.monotonic() - start
    assert code == 1 and "Traceback" not in err, out + err
    assert took < 3 + 10, took  # not 6 x 3 s: one budget for the run (10 s for starting Python and helm)
    assert out.count("--build-timeout gives the whole run: stopped") >= 1
    assert out.count(": error: ") == 6  # each chart an error: stopped, or not run
    assert "not run: the 3 s of --build-timeout had passed" in out
