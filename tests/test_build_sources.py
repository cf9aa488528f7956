"""`validate --build`: kustomizations built with the real `kubectl kustomize` and charts rendered
with the real Helm 3 and 4 (`make helm-tools` puts them in .venv/helm; without them, or without
kubectl, those tests skip), each finding placed on the file it came from; and what a hostile
repository cannot make a build do: reach the network (remote resources, helmCharts, unvendored
dependencies, remote schema $refs), run its code (KRM functions, exec plugins), read outside its
folder, outlast its time limit or leave a process behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from generator.validate import build

from .conftest import KUBECTL, REPO, needs_kubectl

HELMS = {major: REPO / ".venv" / "helm" / f"v{major}" / "helm" for major in (3, 4)}
HELM = [
    pytest.param(
        HELMS[major],
        id=f"helm{major}",
        marks=[
            pytest.mark.slow,
            pytest.mark.skipif(not HELMS[major].is_file(), reason="`make helm-tools` installs helm"),
        ],
    )
    for major in (3, 4)
]
A_HELM = next((path for path in HELMS.values() if path.is_file()), None)
needs_helm = pytest.mark.skipif(A_HELM is None, reason="`make helm-tools` installs helm")


def run(argv: list[str], cwd: Path, env: dict | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
    )
    return done.returncode, done.stdout, done.stderr


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text))
    return root


DEPLOYMENT = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
    spec:
      selector:
        matchLabels: {app: web}
      template:
        metadata:
          labels: {app: web}
        spec:
          containers:
            - name: web
              image: nginx:1.27
    """

CHART = {
    "chart/Chart.yaml": "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
    "chart/values.yaml": "app: web\n",
    "chart/templates/service.yaml": """\
        apiVersion: v1
        kind: Service
        metadata: {name: {{ .Release.Name }}}
        spec:
          selector: {app: {{ .Values.app }}}
          ports: [{port: 80}]
        """,
    # the selector is not the template's labels: only the rendered object shows it
    "chart/templates/deploy.yaml": """\
        {{- if .Values.app }}
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ .Release.Name }}-web
        spec:
          selector:
            matchLabels: {app: other}
          template:
            metadata:
              labels: {app: {{ .Values.app }}}
            spec:
              containers:
                - name: web
                  image: nginx:1.27
        {{- end }}
        """,
}


@pytest.mark.parametrize("helm", HELM)
def test_a_charts_finding_is_on_its_template_file_with_the_line_of_helms_output(tmp_path, helm):
    write(tmp_path, CHART)
    code, out, err = run(["--build", "--helm", str(helm), "chart"], tmp_path)
    assert code == 1, out + err
    line = next(line for line in out.splitlines() if "[selector]" in line)
    assert line.startswith(
        "chart/templates/deploy.yaml:11:7: error: Deployment/release-name-web: spec.template.metadata.labels: "
    )
    # the line helm's own output has the field on, and the command that shows it
    command = "helm template release-name chart --include-crds --kube-version "
    assert "(rendered by helm template: line " in line and command in line
    shown = int(line.split("(rendered by helm template: line ")[1].split()[0])
    rendered = subprocess.run(
        [str(helm), "template", "release-name", "chart", "--include-crds"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"HOME": str(tmp_path), "KUBECONFIG": os.devnull},
        check=True,
    ).stdout.splitlines()
    assert rendered[shown - 1].strip().startswith(("labels:", "app: web")), rendered[shown - 1]
    assert "templates/service.yaml" not in out  # the valid template has no finding
    assert out.strip().endswith("2 documents: 1 error, 0 warnings (invalid)")


def test_without_build_a_chart_and_a_kustomization_are_skipped_as_before(tmp_path):
    write(tmp_path, {**CHART, "app/kustomization.yaml": "resources: [deploy.yaml]\n", "app/deploy.yaml": DEPLOYMENT})
    code, out, err = run(["."], tmp_path)
    assert code == 0, out + err
    assert "chart: skipped: a Helm chart: render it first (helm template CHART | validate -)" in err
    assert (
        "app/kustomization.yaml: skipped: a kustomization: build it first (kubectl kustomize DIR | validate -)" in err
    )
    assert out.strip().endswith("1 document: 0 errors, 0 warnings (valid)")  # app/deploy.yaml, read as a file


@needs_kubectl
def test_a_kustomizations_finding_is_on_the_resource_file_it_came_from(tmp_path):
    """The overlay's patch changes the selector; the pod template's labels, unchanged, where the
    apiserver names the mismatch (spec.template.metadata.labels), are the base's line 10."""
    write(
        tmp_path,
        {
            "base/deploy.yaml": DEPLOYMENT,
            "base/kustomization.yaml": "resources: [deploy.yaml]\n",
            "overlay/kustomization.yaml": """\
                resources: [../base]
                namePrefix: prod-
                patches:
                  - target: {kind: Deployment, name: web}
                    patch: |-
                      - op: replace
                        path: /spec/selector/matchLabels/app
                        value: other
                """,
        },
    )
    code, out, err = run(["--build", "--kubectl", KUBECTL, "."], tmp_path)
    assert code == 1, out + err
    findings = [line for line in out.splitlines() if ": error: " in line]
    assert len(findings) == 1, out
    assert findings[0].startswith("base/deploy.yaml:10:7: error: Deployment/prod-web: spec.template.metadata.labels:")
    assert "(as `kubectl kustomize overlay` builds it: line " in findings[0]
    # the base's own build is valid; its resource is checked there, not read a second time
    assert "base/deploy.yaml: checked as a kustomization that names it builds it" in err
    assert out.strip().endswith("2 documents: 1 error, 0 warnings (invalid)")
    # the same folder without --build: the file alone is valid, the overlay skipped as before
    code, out, err = run(["."], tmp_path)
    assert code == 0 and "overlay/kustomization.yaml: skipped: a kustomization: build it first" in err


@needs_kubectl
def test_an_object_no_resource_file_holds_is_placed_on_the_kustomization(tmp_path):
    write(
        tmp_path,
        {
            "app/kustomization.yaml": """\
                configMapGenerator:
                  - name: Bad_Name
                    literals: [a=b]
                """,
        },
    )
    code, out, _ = run(["--build", "--kubectl", KUBECTL, "app"], tmp_path)
    assert code == 1
    line = next(line for line in out.splitlines() if ": error: " in line)
    assert line.startswith("app/kustomization.yaml:1:1: error: ConfigMap/Bad_Name-")
    assert "no resource file holds it: made by a generator or a patch of the kustomization" in line


REFUSED = {
    "url": (
        "resources: [https://example.com/app.yaml]\n",
        "resources: 'https://example.com/app.yaml' is a remote target",
    ),
    "github": (
        "resources: ['github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v3.3.1']\n",
        "is a remote target (a URL, a git repository)",
    ),
    "git-ssh": ("resources: ['git@github.com:owner/repo.git//base']\n", "kustomize would fetch it over the network"),
    "no-such-file": ("resources: [somewhere/base]\n", "or no file or folder here: kustomize would fetch it"),
    "bases": ("bases: ['github.com/owner/repo/base?ref=main']\n", "bases: 'github.com/owner/repo/base?ref=main'"),
    "helm-charts": (
        "helmCharts:\n  - name: redis\n    repo: https://charts.bitnami.com/bitnami\n",
        "helmCharts: kustomize would run helm",
    ),
    "outside": ("resources: [../../elsewhere]\n", "is outside the folders named"),
    # kustomize's file loader fetches an http(s) path (api/internal/loader/fileloader.go)
    "patch-url": ("patches:\n  - path: https://example.com/p.yaml\n", "patches[0].path: 'https://example.com/p.yaml'"),
    "generator-url": (
        "configMapGenerator:\n  - name: c\n    files: [k=https://example.com/f]\n",
        "configMapGenerator[0].files[0]: 'k=https://example.com/f' is a remote target",
    ),
    "openapi-url": ("openapi:\n  path: http://example.com/s.json\n", "openapi.path: 'http://example.com/s.json'"),
}


@needs_kubectl
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_kustomization_that_would_reach_the_network_is_refused_at_its_line(tmp_path, case):
    text, message = REFUSED[case]
    write(tmp_path, {"repo/app/kustomization.yaml": text, "elsewhere/kustomization.yaml": "resources: []\n"})
    code, out, err = run(["--build", "--kubectl", KUBECTL, "app"], tmp_path / "repo")
    assert code == 1 and "Traceback" not in err, out + err
    line = next(line for line in out.splitlines() if ": error: " in line)
    assert line.startswith("app/kustomization.yaml:") and line.endswith("[build]"), line
    assert message in line, line
    assert "1 error" in out.splitlines()[-1]


PLUGINS = {
    "exec-function": (
        """\
        apiVersion: example.com/v1
        kind: Gen
        metadata:
          name: g
          annotations:
            config.kubernetes.io/function: |
              exec:
                path: ./run.sh
        """,
        "generators: a KRM function (config.kubernetes.io/function",
    ),
    "container-function": (
        """\
        apiVersion: example.com/v1
        kind: Gen
        metadata:
          name: g
          annotations:
            config.kubernetes.io/function: |
              container:
                image: example.com/gen:1
        """,
        "runs no code from the repository",
    ),
    "exec-plugin": (
        "apiVersion: someteam.example.com/v1\nkind: SecretsFromDatabase\nmetadata: {name: s}\n",
        "generators: SecretsFromDatabase (someteam.example.com/v1) is not one of kustomize's builtin plugins",
    ),
}


@needs_kubectl
@pytest.mark.parametrize("case", sorted(PLUGINS))
def test_a_kustomization_that_would_run_code_is_refused(tmp_path, case):
    text, message = PLUGINS[case]
    write(tmp_path, {"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": text, "app/run.sh": ""})
    code, out, err = run(["--build", "--kubectl", KUBECTL, "."], tmp_path)
    assert code == 1 and "Traceback" not in err, out + err
    assert f"app/kustomization.yaml:1:14: error: document 1: (document): {message}" in out or (
        "app/kustomization.yaml:1:14: error:" in out and message in out
    ), out


@needs_kubectl
def test_an_inline_function_and_a_builtin_plugin(tmp_path):
    """An inline configuration is read as a file's; a builtin plugin is built."""
    inline = "transformers:\n  - |-\n    apiVersion: x/v1\n    kind: T\n    metadata:\n      name: t\n"
    inline += "      annotations:\n        config.kubernetes.io/function: '{exec: {path: /bin/sh}}'\n"
    builtin = """\
        resources: [deploy.yaml]
        transformers: [labels.yaml]
        """
    labels = """\
        apiVersion: builtin
        kind: LabelTransformer
        metadata: {name: l}
        labels: {team: a}
        fieldSpecs: [{path: metadata/labels, create: true}]
        """
    write(tmp_path, {"a/kustomization.yaml": inline, "b/kustomization.yaml": builtin, "b/labels.yaml": labels})
    write(tmp_path, {"b/deploy.yaml": DEPLOYMENT})
    code, out, err = run(["--build", "--kubectl", KUBECTL, "."], tmp_path)
    assert code == 1, out + err
    assert "a/kustomization.yaml:2:5: error:" in out and "transformers: a KRM function" in out
    assert "b/" not in out  # built, and valid
    assert "2 documents" not in out and out.strip().endswith("1 document: 1 error, 0 warnings (invalid)")


@needs_kubectl
def test_a_failed_build_is_an_error_with_kustomizes_message(tmp_path):
    """A file outside the folders named is not in the sandbox's file system: kustomize's error
    (and the load restrictor stays for files outside the kustomization's folder, below)."""
    (tmp_path / "secret.txt").write_text("s3cret\n")
    write(tmp_path, {"app/kustomization.yaml": "configMapGenerator:\n  - name: c\n    files: [../secret.txt]\n"})
    code, out, err = run(["--build", "--kubectl", KUBECTL, "app"], tmp_path)
    assert code == 1 and "Traceback" not in err
    assert "app/kustomization.yaml:1:1: error:" in out and "`kubectl kustomize app` failed (exit 1):" in out
    assert "no such file or directory" in out and "s3cret" not in out
    # inside the folder named but outside the kustomization's own folder: kustomize's load restrictor
    code, out, err = run(["--build", "--kubectl", KUBECTL, "."], tmp_path)
    assert code == 1 and "is not in or below" in out and "s3cret" not in out, out + err


@needs_helm
def test_a_chart_with_dependencies_not_vendored_is_refused_at_the_dependency(tmp_path):
    chart = "apiVersion: v2\nname: demo\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: 17.0.0\n"
    chart += "    repository: https://charts.bitnami.com/bitnami\n"
    write(tmp_path, {"chart/Chart.yaml": chart, "chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\n"})
    code, out, err = run(["--build", "--helm", str(A_HELM), "."], tmp_path)
    assert code == 1 and "Traceback" not in err, out + err
    assert out.startswith("chart/Chart.yaml:5:5: error:")
    assert "the dependency 'redis' is not vendored in chart/charts: helm would need the network" in out


@needs_helm
def test_a_vendored_dependency_is_rendered_with_its_parent(tmp_path):
    chart = "apiVersion: v2\nname: demo\nversion: 0.1.0\ndependencies:\n  - name: sub\n    version: 0.1.0\n"
    sub = {
        "chart/charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
        "chart/charts/sub/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n",
    }
    write(tmp_path, {"chart/Chart.yaml": chart, **sub})
    code, out, _ = run(["--build", "--helm", str(A_HELM), "."], tmp_path)
    assert code == 1
    assert out.startswith("chart/charts/sub/templates/cm.yaml:1:1: error: ConfigMap/Bad_Name: metadata.name:")


@needs_helm
@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "https://example.com/values.json"},
        {"properties": {"a": {"$ref": "file:///etc/passwd"}}},
        {"$schema": "https://example.com/meta.json"},
    ],
)
def test_a_values_schema_that_helm_would_fetch_is_refused(tmp_path, schema):
    write(tmp_path, CHART)
    (tmp_path / "chart" / "values.schema.json").write_text(json.dumps(schema))
    code, out, err = run(["--build", "--helm", str(A_HELM), "chart"], tmp_path)
    assert code == 1 and "Traceback" not in err
    assert out.startswith("chart/values.schema.json:1:1: error:")
    assert "helm's JSON Schema loader would fetch it over the network" in out


@needs_helm
def test_a_values_schema_with_local_refs_renders(tmp_path):
    write(tmp_path, CHART)
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"app": {"type": "string"}},
        "properties": {"app": {"$ref": "#/definitions/app"}},
    }
    (tmp_path / "chart" / "values.schema.json").write_text(json.dumps(schema))
    code, out, _ = run(["--build", "--helm", str(A_HELM), "chart"], tmp_path)
    assert code == 1 and "[selector]" in out  # rendered and checked


@needs_helm
def test_a_chart_with_a_link_out_of_its_folder_is_refused(tmp_path):
    (tmp_path / "secret.txt").write_text("s3cret\n")
    write(tmp_path, CHART)
    (tmp_path / "chart" / "files").mkdir()
    os.symlink(tmp_path / "secret.txt", tmp_path / "chart" / "files" / "token")
    code, out, err = run(["--build", "--helm", str(A_HELM), "."], tmp_path)
    assert code == 1 and "Traceback" not in err
    assert "chart/files/token:1:1: error:" in out and "outside the chart: helm follows it" in out
    assert "s3cret" not in out


def _processes_named(word: str) -> list[str]:
    done = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=True)
    return [line for line in done.stdout.splitlines() if word in line]


@pytest.mark.parametrize("helm", HELM)
def test_a_template_that_loops_is_stopped_at_the_time_limit(tmp_path, helm):
    loop = "{{- range $i := until 100000 }}{{- range $j := until 100000 }}{{- end }}{{- end }}\n"
    write(
        tmp_path, {"chart/Chart.yaml": "apiVersion: v2\nname: loop\nversion: 0.1.0\n", "chart/templates/x.yaml": loop}
    )
    start = time.monotonic()
    code, out, err = run(["--build", "--build-timeout", "2", "--helm", str(helm), "chart"], tmp_path)
    assert time.monotonic() - start < 30
    assert code == 1 and "Traceback" not in err, out + err
    assert out.startswith("chart/Chart.yaml:1:1: error: ")
    assert "`helm template release-name chart --include-crds --kube-version 1." in out
    assert "did not end within the 2 s --build-timeout gives the whole run: stopped" in out
    assert not _processes_named(str(tmp_path / "chart"))  # killed with its process group


@pytest.mark.parametrize("helm", HELM)
def test_a_template_that_asks_for_gigabytes_is_stopped_at_the_memory_limit(tmp_path, helm):
    bomb = "{{- $numbers := until 1000000000 }}{{ len $numbers }}\n"  # 8 GB of integers
    write(
        tmp_path, {"chart/Chart.yaml": "apiVersion: v2\nname: bomb\nversion: 0.1.0\n", "chart/templates/x.yaml": bomb}
    )
    code, out, err = run(["--build", "--helm", str(helm), "chart"], tmp_path)
    assert code == 1 and "Traceback" not in err, out + err
    assert out.startswith("chart/Chart.yaml:1:1: error: ")
    assert "ran out of memory (the limit is 2 GiB of address space): stopped" in out


PROBE = """\
#!/bin/sh
# a stand-in tool that shows what it was given: its environment, as a ConfigMap
ENVIRONMENT=$(/usr/bin/env)
PATH=/usr/bin:/bin
sleep 300 >/dev/null 2>&1 &
echo "apiVersion: v1"
echo "kind: ConfigMap"
echo "metadata: {name: probe}"
echo "data:"
echo "$ENVIRONMENT" | sort | sed -e 's/"/_/g' -e 's/^\\([^=]*\\)=\\(.*\\)$/  \\1: "\\2"/'
"""


def test_a_tool_runs_with_a_minimal_environment_and_leaves_nothing_behind(tmp_path):
    """What the tool sees (a probe in its place): no credentials, no kubeconfig, a HOME that is
    removed afterwards; the child it left running is killed with its process group."""
    probe = tmp_path / "probe"
    probe.write_text(PROBE)
    probe.chmod(0o755)
    write(tmp_path, {"repo/app/kustomization.yaml": "resources: []\n"})
    secret = {"AWS_SECRET_ACCESS_KEY": "s3cret", "KUBECONFIG": str(tmp_path / "kubeconfig")}
    code, out, err = run(["--build", "--kubectl", str(probe), "--output", "json", "app"], tmp_path / "repo", secret)
    assert code == 0, out + err
    report = json.loads(out)
    assert report["documents"] == 1
    seen = _probe_env(probe, tmp_path)
    assert "AWS_SECRET_ACCESS_KEY" not in seen and seen["KUBECONFIG"] == os.devnull
    assert seen["HTTPS_PROXY"] == build.NOWHERE and seen["HELM_PLUGINS"].startswith(seen["HOME"])
    assert not Path(seen["HOME"]).exists()  # removed
    time.sleep(0.2)
    assert not _processes_named("sleep 300")


def _probe_env(probe: Path, tmp_path: Path) -> dict[str, str]:
    from generator.kubeyaml.load import read_documents

    target = build.Target("kustomize", str(tmp_path / "repo" / "app"), str(tmp_path / "repo" / "app" / "k"))
    built = build.build(target, str(probe), [str(tmp_path)], "1.32", timeout=30)
    docs, _ = read_documents(built.text)
    return docs[0]["data"]


def test_output_past_the_limit_is_stopped(tmp_path):
    with build._Sandbox() as sandbox:
        with pytest.raises(build.Failed, match="wrote more than 1,000 bytes: stopped"):
            build.run(
                ["/bin/sh", "-c", "while :; do echo yyyyyyyy; done"], sandbox.env, sandbox.home, timeout=30, limit=1000
            )
        with pytest.raises(build.Failed, match=r"failed \(exit 3\): bad"):
            build.run(["/bin/sh", "-c", "echo bad >&2; exit 3"], sandbox.env, sandbox.home, timeout=30)


def test_a_missing_tool_keeps_the_note_and_names_the_tool(tmp_path):
    write(tmp_path, {**CHART, "app/kustomization.yaml": "resources: [deploy.yaml]\n", "app/deploy.yaml": DEPLOYMENT})
    code, out, err = run(["--build", "."], tmp_path, {"PATH": str(tmp_path / "bin")})
    assert code == 0, out + err
    assert "chart: skipped: a Helm chart: render it first (helm template CHART | validate -); " in err
    assert "--build needs helm: none on PATH (--helm PATH)" in err
    assert "--build needs kubectl: none on PATH (--kubectl PATH)" in err
    assert out.strip().endswith("1 document: 0 errors, 0 warnings (valid)")


def test_a_relative_path_entry_is_not_searched(tmp_path, monkeypatch):
    """PATH=bin: a checkout's own bin/kubectl is never the tool."""
    (tmp_path / "bin").mkdir()
    fake = tmp_path / "bin" / "kubectl"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "bin")
    assert build.find_tool("kubectl", None) is None
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert build.find_tool("kubectl", None) == str(fake)


def test_tool_flags_need_build_and_an_executable(tmp_path):
    code, _, err = run(["--kubectl", "/bin/true", "."], tmp_path)
    assert code == 2 and "--kubectl: only --build runs it; add --build" in err
    code, _, err = run(["--build", "--helm", str(tmp_path / "nope"), "."], tmp_path)
    assert code == 2 and "no executable file there" in err
    for value in ("0", "-1", "nan", "inf"):
        code, _, err = run(["--build", "--build-timeout", value, "."], tmp_path)
        assert code == 2 and "--build-timeout: expected seconds above 0" in err, err


@needs_kubectl
def test_a_url_as_a_value_is_no_remote_file(tmp_path):
    """An annotation that holds a URL is data, not a file kustomize loads: built."""
    kustomization = "resources: [deploy.yaml]\ncommonAnnotations: {docs: 'https://example.com/runbook'}\n"
    write(tmp_path, {"app/kustomization.yaml": kustomization, "app/deploy.yaml": DEPLOYMENT})
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "kubectl").symlink_to(KUBECTL)
    # a relative --kubectl is the one the user meant, though the tool runs in another folder
    code, out, err = run(["--build", "--kubectl", "bin/kubectl", "app"], tmp_path)
    assert code == 0 and out.strip().endswith("1 document: 0 errors, 0 warnings (valid)"), out + err


@needs_helm
def test_a_library_chart_is_skipped_with_a_note(tmp_path):
    """helm template refuses a library chart ("library charts are not installable"): no error."""
    write(tmp_path, {"lib/Chart.yaml": "apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n"})
    write(tmp_path, {"lib/templates/_helpers.tpl": '{{- define "lib.name" -}}lib{{- end }}\n'})
    code, out, err = run(["--build", "--helm", str(A_HELM), "."], tmp_path)
    assert code == 0, out + err
    assert "lib: skipped: a Helm library chart: rendered where a chart uses it" in err


@needs_kubectl
def test_a_kustomization_this_reader_cannot_read_is_not_built(tmp_path):
    """kustomize's reader might see remote resources where this one sees a syntax error."""
    write(tmp_path, {"app/kustomization.yaml": "resources: [deploy.yaml\n  - https://example.com/x.yaml\n"})
    code, out, err = run(["--build", "--kubectl", KUBECTL, "app"], tmp_path)
    assert code == 1 and "Traceback" not in err, out + err
    assert "app/kustomization.yaml:" in out and "the kustomization: " in out
    assert "validate --build builds only what it can check" in out


@needs_helm
def test_a_values_schema_nested_too_deep_to_check_is_refused(tmp_path):
    write(tmp_path, CHART)
    (tmp_path / "chart" / "values.schema.json").write_text('{"a": ' * 600 + "{}" + "}" * 600)
    code, out, err = run(["--build", "--helm", str(A_HELM), "chart"], tmp_path)
    assert code == 1 and "Traceback" not in err, out + err
    assert "chart/values.schema.json:1:1: error:" in out and "too deep to check" in out


@needs_kubectl
def test_a_component_is_built_where_it_is_named_and_a_kustomization_named_as_a_file_is_built(tmp_path):
    component = """\
        apiVersion: kustomize.config.k8s.io/v1alpha1
        kind: Component
        patches:
          - target: {kind: Deployment}
            patch: |-
              - op: add
                path: /spec/replicas
                value: -1
        """
    write(
        tmp_path,
        {
            "app/deploy.yaml": DEPLOYMENT,
            "app/kustomization.yaml": "resources: [deploy.yaml]\ncomponents: [../ports]\n",
            "ports/kustomization.yaml": component,
        },
    )
    code, out, err = run(["--build", "--kubectl", KUBECTL, "."], tmp_path)
    assert code == 1, out + err
    assert "ports/kustomization.yaml: skipped: a kustomize Component: checked where a kustomization" in err
    findings = [line for line in out.splitlines() if ": error: " in line]
    # on the component's patch that sets it, at its `path: /spec/replicas`
    assert findings and all(line.startswith("ports/kustomization.yaml:") for line in findings), out
    assert findings[0].startswith("ports/kustomization.yaml:7:21: error: Deployment/web: spec.replicas:")
    assert "(as `kubectl kustomize app` builds it" in findings[0] and "; the patch here sets it" in findings[0]
    # a pre-commit hook names the kustomization itself
    code, out, err = run(["--build", "--kubectl", KUBECTL, "app/kustomization.yaml"], tmp_path)
    assert code == 1 and "is outside the folders named" in out  # ../ports: name the folder that holds both
    code, out, err = run(["--build", "--kubectl", KUBECTL, "app/kustomization.yaml", "."], tmp_path)
    assert code == 1 and "(as `kubectl kustomize app` builds it" in out


@needs_helm
def test_a_template_error_is_placed_on_the_line_helm_names(tmp_path):
    template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{ .Values.x.y }}\n"
    write(tmp_path, {"c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "c/templates/a.yaml": template})
    code, out, err = run(["--build", "--helm", str(A_HELM), "c"], tmp_path)
    assert code == 1 and "Traceback" not in err, out + err
    assert out.startswith("c/templates/a.yaml:6:15: error: "), out  # helm's `template: c/templates/a.yaml:6:15:`
    # a parse error names the line alone
    (tmp_path / "c" / "templates" / "a.yaml").write_text(template.replace("y }}", "y }"))
    code, out, err = run(["--build", "--helm", str(A_HELM), "c"], tmp_path)
    assert code == 1 and out.startswith("c/templates/a.yaml:6:1: error: "), out


@needs_helm
def test_a_charts_finding_is_on_the_template_line_that_writes_its_field(tmp_path):
    template = DEPLOYMENT.replace("spec:\n      sel", "spec:\n      replicas: {{ .Values.replicas }}\n      sel")
    chart = {"c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "c/values.yaml": "replicas: -1\n"}
    write(tmp_path, {**chart, "c/templates/deploy.yaml": template})
    code, out, err = run(["--build", "--helm", str(A_HELM), "c"], tmp_path)
    assert code == 1, out + err
    assert out.startswith("c/templates/deploy.yaml:6:3: error: Deployment/web: spec.replicas:"), out


@needs_kubectl
def test_a_field_an_overlays_patch_changes_is_placed_on_the_patch(tmp_path):
    """The base holds `replicas: 1`; the overlay's patch makes it -1: the finding is the patch's,
    not the base's (which may be a file `render` wrote, whose header says not to edit it)."""
    write(
        tmp_path,
        {
            "base/deploy.yaml": DEPLOYMENT.replace("spec:\n      sel", "spec:\n      replicas: 1\n      sel"),
            "base/kustomization.yaml": "resources: [deploy.yaml]\n",
            "overlay/kustomization.yaml": "resources: [../base]\npatches: [{path: replicas.yaml}]\n",
            "overlay/replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
            "spec:\n  replicas: -1\n",
        },
    )
    code, out, err = run(["--build", "--kubectl", KUBECTL, "."], tmp_path)
    assert code == 1, out + err
    findings = [line for line in out.splitlines() if ": error: " in line]
    assert len(findings) == 1, out
    assert findings[0].startswith("overlay/replicas.yaml:5:3: error: Deployment/web: spec.replicas:"), out
    assert "; the patch here sets it" in findings[0]


@needs_kubectl
def test_a_bases_mistake_is_reported_once_for_every_build_that_makes_it(tmp_path):
    """The base is built on its own and in two overlays: its invalid image is one finding, which
    says how many other builds found it, not three copies of it."""
    bad = DEPLOYMENT.replace("image: nginx:1.27", "image: 'Bad Image!'")
    write(
        tmp_path,
        {
            "base/deploy.yaml": bad,
            "base/kustomization.yaml": "resources: [deploy.yaml]\n",
            "dev/kustomization.yaml": "resources: [../base]\n",
            "prod/kustomization.yaml": "resources: [../base]\n",
        },
    )
    code, out, err = run(["--build", "--kubectl", KUBECTL, "."], tmp_path)
    assert code == 1, out + err
    findings = [line for line in out.splitlines() if ": error: " in line]
    assert len(findings) == 1, out
    assert findings[0].startswith("base/deploy.yaml:") and findings[0].endswith(
        "(and 2 other builds of the run) [image]"
    ), findings[0]


def test_a_jsonnet_file_is_said_skipped_with_or_without_build(tmp_path):
    """Argo CD evaluates a directory application's *.jsonnet; validate does not run a repository's
    jsonnet, and says so rather than passing over it."""
    write(tmp_path, {"apps/app.jsonnet": "{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'c'}}\n"})
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\n"
    write(tmp_path, {"apps/lib.libsonnet": "{}\n", "apps/cm.yaml": cm})
    for argv in (["."], ["--build", "--kubectl", "/bin/true", "."]):
        code, out, err = run(argv, tmp_path, {"PATH": os.defpath})
        assert code == 0, out + err
        assert "apps/app.jsonnet: skipped: a jsonnet file (Argo CD evaluates those of a directory application)" in err
        assert "lib.libsonnet" not in err  # a library, not an application
