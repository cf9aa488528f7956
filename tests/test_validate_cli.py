"""`paddlejob-manifests validate` as a user runs it: exit codes, output formats, stdin,
directories, the rendered bundles, and no crash on any input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator import cli, validate
from generator.core.paths import DEPLOY
from generator.validate import checker
from generator.validate import output as outputs

from .conftest import FIXTURES, REPO
from .sweep import mutations

GOOD = FIXTURES / "validate" / "good"
BAD = FIXTURES / "validate" / "bad"


def run(argv, stdin: str | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", *argv],
        cwd=REPO,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def test_clean_input_exits_0_with_a_summary():
    newest = [str(p) for p in sorted(GOOD.iterdir()) if not re.search(r"-version:|# crd:", p.read_text())]  # defaults
    code, out, _ = run(newest)
    assert code == 0
    assert out.strip().splitlines()[-1].endswith("0 errors, 0 warnings (valid)")


def test_warnings_alone_exit_0():
    code, out, _ = run([str(BAD / "unknown-kind.yaml")])
    assert code == 0 and ": warning: Widget/w: kind: no schema is known" in out


def test_strict_kinds_makes_unknown_kinds_errors():
    code, out, _ = run(["--strict-kinds", str(BAD / "unknown-kind.yaml")])
    assert code == 1 and ": error: Widget/w:" in out


def test_errors_exit_1_in_the_documented_text_format():
    code, out, _ = run([str(BAD / "paddlejob-on-failed.yaml")])
    assert code == 1
    first = out.splitlines()[0]
    assert first == (
        f"{BAD / 'paddlejob-on-failed.yaml'}:7:3: error: PaddleJob/wide-and-deep: spec.cleanPodPolicy: "
        '"OnFailed" is not allowed; use one of Always, Never, OnFailure, OnCompletion [enum]'
    )


def test_invalid_yaml_exits_1():
    code, out, _ = run([str(BAD / "yaml-syntax.yaml")])
    assert code == 1 and "yaml-syntax" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["no/such/file.yaml"], "no/such/file.yaml: no such file or directory"),
        (["--kube-version", "1.99", "x"], "--kube-version: Kubernetes 1.99 is not known"),
        (["--output", "xml", "x"], "no format 'xml'"),
        (["--no-such-flag", "x"], "unrecognized arguments"),
    ],
)
def test_usage_errors_exit_2(argv, message):
    code, _, err = run(argv)
    assert code == 2 and message in err


def test_json_output_holds_every_field():
    code, out, _ = run(["--output", "json", str(BAD / "volcano-job.yaml"), str(GOOD / "kubeflow.yaml")])
    assert code == 1
    body = json.loads(out)
    assert body["valid"] is False and body["documents"] == 2
    assert len(body["findings"]) == 4
    first = body["findings"][0]
    assert set(first) == {
        "severity",
        "file",
        "document",
        "line",
        "column",
        "apiVersion",
        "kind",
        "name",
        "path",
        "rule",
        "message",
    }
    assert first["apiVersion"] == "batch.volcano.sh/v1alpha1" and first["name"] == "ctr-volcano"
    assert first["document"] == 1 and first["line"] == 9 and first["column"] == 3


def test_stdin_and_multi_document_streams():
    docs = (GOOD / "volcano.yaml").read_text() + "---\n" + (BAD / "paddlejob-on-failed.yaml").read_text()
    code, out, _ = run(["-"], stdin=docs)
    assert code == 1
    assert out.startswith("<stdin>:") and ":3: error: PaddleJob/wide-and-deep: spec.cleanPodPolicy" in out
    finding = [line for line in out.splitlines() if "cleanPodPolicy" in line][0]
    line = int(finding.split(":")[1])
    assert docs.splitlines()[line - 1].strip() == "cleanPodPolicy: OnFailed"


def test_directories_are_read_recursively(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "job.yml").write_text((BAD / "paddlejob-no-roles.yaml").read_text())
    (tmp_path / "a" / "notes.txt").write_text("not: a manifest\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.yaml").write_text("kind: [\n")
    assert validate.expand([str(tmp_path)]) == [str(tmp_path / "a" / "b" / "job.yml")]


@pytest.mark.parametrize(
    ("bundle", "versions"), [("v1", ["1.19", "1.22", "1.37"]), ("v1beta1", ["1.11", "1.13", "1.15"])]
)
def test_every_rendered_file_validates_clean(bundle, versions, capsys):
    for version in versions:
        assert cli.main(["validate", "--kube-version", version, str(DEPLOY / bundle)]) == 0, version
        assert "0 errors, 0 warnings (valid)" in capsys.readouterr().out


def test_a_crd_too_large_for_client_side_apply_is_a_warning(tmp_path, capsys):
    assert cli.main(["render", "--out", str(tmp_path), "--keep-descriptions"]) == 0
    capsys.readouterr()
    assert cli.main(["validate", "--output", "json", str(tmp_path / "v1" / "crd.yaml")]) == 0
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert finding["rule"] == "crd-size" and finding["severity"] == "warning"
    assert "kubectl apply --server-side" in finding["message"]


def test_seeds_are_validated_with_their_known_mistakes(capsys):
    assert cli.main(["validate", "--output", "json", str(FIXTURES / "seeds")]) == 1
    body = json.loads(capsys.readouterr().out)
    rules = sorted({(f["file"].rsplit("/", 1)[-1], f["rule"], f["path"]) for f in body["findings"]})
    assert rules == [
        ("000-line0074.yaml", "paddlejob-gloo-endpoint", "spec.withGloo"),  # the gloo store on server 0's port
        ("000-line0209.yaml", "paddlejob-clean-pod-policy", "spec.cleanPodPolicy"),  # never fires in PS mode
        ("000-line0209.yaml", "paddlejob-intranet-service", "spec.intranet"),  # the pods would wait for ever
        ("000-line0251.yaml", "across-podgroup", "metadata.name"),  # the PodGroup gangs no pod
        ("000-line0251.yaml", "paddlejob-gloo-endpoint", "spec.withGloo"),
        ("000-line0357.yaml", "unknown-field", "spec.cleanPolicy"),
        ("002-line0155.yaml", "paddlejob-clean-pod-policy", "spec.cleanPodPolicy"),
        ("002-line0155.yaml", "paddlejob-gloo-endpoint", "spec.withGloo"),
        ("002-line0265.yaml", "across-podgroup", "metadata.name"),
        ("002-line0265.yaml", "paddlejob-gloo-endpoint", "spec.withGloo"),
        ("002-line0315.yaml", "paddlejob-clean-pod-policy", "spec.cleanPodPolicy"),
        ("002-line0315.yaml", "paddlejob-intranet-service", "spec.intranet"),
        ("002-line0405.yaml", "unknown-field", "spec.cleanPolicy"),
        ("003-line0229.yaml", "yaml-syntax", ""),
        ("004-line0017.yaml", "legacy-api", "apiVersion"),
    ]


# -- no input crashes the validator ------------------------------------------------------------

CHECKER = validate.ObjectChecker(37)
SAMPLES = [
    *(p.read_text(errors="replace") for p in sorted(GOOD.glob("*.yaml"))),
    *(p.read_text(errors="replace") for p in sorted(BAD.glob("*.yaml"))),
]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=True), st.text(max_size=12)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)


def mutate(data, choices: list, replacement):
    """Replace one node (picked by ``choices``) of ``data`` with ``replacement``."""
    if not choices or not isinstance(data, dict | list) or not data:
        return replacement
    keys = list(data) if isinstance(data, dict) else list(range(len(data)))
    key = keys[choices[0] % len(keys)]
    data[key] = mutate(data[key], choices[1:], replacement)
    return data


def check(text: str) -> validate.Report:
    report = validate.Report()
    validate.validate_text("mutated.yaml", text, CHECKER, report)
    return report


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), st.lists(st.integers(0, 50), max_size=8), VALUES)
def test_mutated_objects_never_crash(sample, choices, replacement):
    try:
        docs = [d for d in yaml.safe_load_all(sample) if d is not None]
        docs = [mutate(d, choices, replacement) for d in docs]
        text = yaml.safe_dump_all(docs)
    except (yaml.YAMLError, RecursionError, ValueError):
        return
    check(text)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SAMPLES), st.integers(0, 4000), st.text(max_size=6))
def test_mutated_text_never_crashes(sample, position, junk):
    position %= len(sample) + 1
    report = check(sample[:position] + junk + sample[position:])
    for item in report.findings:
        assert item.line >= 1 and item.column >= 1


def test_output_formats_never_crash_on_odd_values():
    report = check("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: .nan, b: [1], 3: c}\n")
    json.loads(outputs.FORMATS["json"](report))
    assert "errors" in outputs.FORMATS["text"](report)


def test_empty_input_is_a_warning_or_with_fail_on_empty_an_error(tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing here\n")
    for extra, code in (([], 0), (["--fail-on-empty"], 1)):
        done = subprocess.run(
            [sys.executable, "-m", "generator", "validate", *extra, "-"], input="", capture_output=True, text=True
        )
        assert done.returncode == code and "no documents in -: nothing was checked [empty]" in done.stdout
    done = subprocess.run([sys.executable, "-m", "generator", "validate", str(empty)], capture_output=True, text=True)
    assert done.returncode == 0 and "warning" in done.stdout


def test_an_unreadable_file_is_an_error_not_a_crash(tmp_path):
    report = validate.validate_files([str(tmp_path / "missing.yaml")], validate.ObjectChecker(37))
    assert [f.finding.rule for f in report.findings] == ["file"]


def test_a_folder_with_charts_kustomizations_and_patches_checks_only_the_manifests(tmp_path, capsys):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "web.yaml").write_text((GOOD / "statefulset-claims.yaml").read_text())
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("replicas: 2\n")
    (chart / "templates" / "cm.yaml").write_text("kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n")
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text(
        "resources:\n- ../app\npatches:\n- path: replicas.yaml\ntransformers:\n- labels.yaml\n"
    )
    (overlay / "replicas.yaml").write_text("apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: web\n")
    (overlay / "labels.yaml").write_text((BAD / "kustomize-builtin.yaml").read_text())
    assert cli.main(["validate", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "2 documents: 0 errors, 0 warnings (valid)" in out.out
    for skipped in ("chart: skipped: a Helm chart", "kustomization.yaml: skipped: a kustomization",
                    "replicas.yaml: skipped: a kustomize patch",
                    "labels.yaml: skipped: a kustomize patch or plugin"):  # fmt: skip
        assert skipped in out.err
    # named (as pre-commit names every changed file), a patch is skipped by the same rule, with the note
    assert cli.main(["validate", str(overlay / "replicas.yaml")]) == 0
    assert "replicas.yaml: skipped: a kustomize patch" in capsys.readouterr().err


def test_a_folder_walk_says_the_same_in_every_process(tmp_path):
    """What a folder holds and skips is the same in every run: a subchart belongs to its
    parent chart (rendering the parent renders it). A set of charts was once searched in the
    order of its hashes, which each process draws anew: the subchart was named in some runs."""
    for name in ("a/b.yaml", "a-b.yaml", "A.yaml", "chart/templates/x.yaml", "chart/charts/sub/templates/y.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    for chart in ("chart", "chart/charts/sub"):
        (tmp_path / chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    said = set()
    for seed in range(8):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        done = subprocess.run(
            [sys.executable, "-m", "generator", "validate", "-o", "json", "."],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        said.add((done.stdout, done.stderr))
    assert len(said) == 1
    out, err = said.pop()
    assert err == "chart: skipped: a Helm chart: render it first (helm template CHART | validate -)\n"
    assert json.loads(out)["documents"] == 3


def test_skip_kinds_and_ignore_as_kubeconform_has_them(tmp_path, capsys):
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "bad.yaml").write_text((BAD / "unknown-field.yaml").read_text())
    assert cli.main(["validate", str(tmp_path)]) == 1
    assert cli.main(["validate", "--ignore", "vendor/", str(tmp_path)]) == 0
    kind = next(d["kind"] for d in yaml.safe_load_all((BAD / "unknown-field.yaml").read_text()) if d)
    assert cli.main(["validate", "--skip-kinds", kind, str(tmp_path)]) == 0
    assert cli.main(["validate", "--ignore", "(", str(tmp_path)]) == 2
    capsys.readouterr()


def test_a_kind_some_targeted_releases_do_not_serve_is_kind_not_served():
    """render checks a bundle against every release it targets: batch/v1 CronJob came in 1.21."""
    cron = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "nightly"},
        "spec": {
            "schedule": "0 1 * * *",
            "jobTemplate": {
                "spec": {
                    "template": {
                        "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1.36"}]}
                    }
                }
            },
        },
    }
    across = validate.ObjectChecker(37, releases=[19, 20, 21, 37]).check(cron)
    assert [(f.rule, f.path) for f in across] == [("kind-not-served", "apiVersion")]
    assert "(on Kubernetes 1.19-1.20)" in across[0].message
    assert validate.ObjectChecker(37, releases=[21, 37]).check(cron) == []


def test_a_removed_version_names_the_one_that_replaces_it():
    """Kubernetes' version priority, not the alphabet: autoscaling/v2 replaces v2beta2, not v1."""
    hpa = {"apiVersion": "autoscaling/v2beta2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"}}
    (finding,) = validate.ObjectChecker(37).check(hpa)
    assert finding.rule == "api-not-served" and finding.message.endswith("; use autoscaling/v2")
    assert checker._version_rank("x/v1") > checker._version_rank("x/v2beta2") > checker._version_rank("x/v3alpha1")


def test_skip_rules_drops_those_findings_and_refuses_an_unknown_id():
    bad = str(BAD / "kubeflow-paddlejob.yaml")
    code, out, _ = run(["--output", "json", bad])
    everything = {f["rule"] for f in json.loads(out)["findings"]}
    assert code == 1 and {"kubeflow-name", "kubeflow-replica-type"} <= everything
    code, out, _ = run(["--output", "json", "--skip-rules", "kubeflow-name, kubeflow-replica-type", bad])
    assert {f["rule"] for f in json.loads(out)["findings"]} == everything - {"kubeflow-name", "kubeflow-replica-type"}
    code, out, err = run(["--skip-rules", "kubeflow-nam", bad])
    assert code == 2 and "no rule 'kubeflow-nam'; did you mean 'kubeflow-name'?" in err


def test_list_rules_prints_the_rulebook():
    from generator.core import rulebook

    code, out, _ = run(["--list-rules"])
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()[1:]] == list(rulebook.RULES)
    code, out, _ = run(["--list-rules", "--output", "json"])
    listed = json.loads(out)
    assert code == 0 and [r["id"] for r in listed] == list(rulebook.RULES)
    assert all(r["help"].endswith(f"#rule-{r['id']}") for r in listed)
    assert run(["--list-rules", "--output", "sarif"])[0] == 2
    code, _, err = run([])
    assert code == 2 and "give a PATH" in err


PYTHON_WORDS = re.compile(r"(?<![\"\x27])\b(None|True|False)\b(?![\"\x27])")  # a quoted "True" is a YAML string


def test_every_node_of_every_fixture_replaced_by_each_odd_value_never_crashes():
    """A sweep, not a sample: each field of each fixture and corpus object in turn becomes a
    list, a mapping, null, a bool, a number... and every rule must cope (about 100,000 objects),
    leaving other types to the schema rather than printing them as Python would.
    It found three crashes the random mutations above had not (unhashable names and types)."""
    docs = []
    for path in sorted(FIXTURES.rglob("*.yaml")):
        if "realworld" in path.parts:  # 3,000 documents: test_realworld.py checks them whole
            continue
        try:
            loaded = list(yaml.safe_load_all(path.read_text(errors="replace")))
        except yaml.YAMLError:
            continue
        for doc in loaded:
            try:  # keys as kubectl makes them: strings (PyYAML would give `true:` a bool key)
                docs.append(json.loads(json.dumps(doc, default=str)))
            except (ValueError, RecursionError):  # the alias-cycle fixture
                continue
    checked = 0
    for doc in (d for d in docs if isinstance(d, dict)):
        for (mutated,) in mutations([doc]):
            for finding in CHECKER.check(mutated):
                # a message shows values as the user wrote them (null, true), never Python's repr;
                # None is also an API value: an enum's option (dnsPolicy: None), a headless
                # Service's clusterIP, a webhook's sideEffects, dnsPolicy None, mountPropagation None
                api_values = ("enum", "service", "webhook", "dns-config", "sub-path")
                assert finding.rule in api_values or not PYTHON_WORDS.search(finding.message), finding
            checked += 1
    assert checked > 50_000


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 10**6), st.text(max_size=12)), max_size=8))
def test_a_finding_path_reads_back_as_the_same_keys(parts):
    """dotted() quotes a key that is not a plain name, so split_path() (which finds the line)
    gets back exactly the keys: app.kubernetes.io/name is one key, not three."""
    from generator.core.findings import dotted, split_path

    if parts and isinstance(parts[0], int):
        parts = ["items", *parts]  # a path starts with a field name
    assert split_path(dotted(parts)) == parts


def test_a_split_path_is_kept_and_given_as_a_copy():
    """split_path() keeps what it split (the same fields are found in many documents) and gives
    a copy each time: a caller that changes its list changes no later answer."""
    from generator.core import findings

    path = 'spec.template.metadata.labels["app.kubernetes.io/name"]'
    first = findings.split_path(path)
    assert first == ["spec", "template", "metadata", "labels", "app.kubernetes.io/name"]
    first.append("changed")
    assert findings.split_path(path) == ["spec", "template", "metadata", "labels", "app.kubernetes.io/name"]
    kept = findings._split.cache_info().maxsize
    for number in range(kept + 10):  # bounded: the least recent go
        findings.split_path(f"items[{number}].spec")
    assert findings._split.cache_info().currsize <= kept == 4096


def test_a_file_a_kustomize_generator_reads_is_data_not_a_manifest(tmp_path, capsys):
    """configMapGenerator and secretGenerator read `files` (PATH or KEY=PATH) and `envs` as data:
    a YAML file among them is no manifest (it once gave "apiVersion is required")."""
    (tmp_path / "kustomization.yaml").write_text(
        "resources: [app.yaml]\nconfigMapGenerator:\n- name: cfg\n  files: [settings.yaml, extra=more.json]\n"
        "secretGenerator:\n- name: s\n  envs: [secret.yaml]\n"
    )
    (tmp_path / "app.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n")
    (tmp_path / "settings.yaml").write_text("level: debug\nretries: 3\n")
    (tmp_path / "more.json").write_text('{"a": 1}\n')
    (tmp_path / "secret.yaml").write_text("token: abc\n")
    assert cli.main(["validate", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "1 document: 0 errors, 0 warnings (valid)" in out.out
    for name in ("settings.yaml", "more.json", "secret.yaml"):
        assert f"{name}: skipped: a kustomize patch" in out.err
    # the near miss: a file the kustomization does not name is still checked
    (tmp_path / "stray.yaml").write_text("level: debug\n")
    assert cli.main(["validate", str(tmp_path)]) == 1


def test_a_webhook_url_that_does_not_parse_is_a_finding_not_a_crash():
    """ValidateWebhookURL: a url Go's url.Parse refuses is "must be a valid URL" (Python's
    urlsplit raises on a bracketed host that is no IP address; the fuzzer found it)."""
    hook = {"name": "a.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"]}
    config = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "w"},
        "webhooks": [{**hook, "clientConfig": {"url": "https://[" + "[" * 5000 + "x]/"}}],
    }
    found = [(f.rule, f.path) for f in CHECKER.check(config) if f.is_error]
    assert found == [("webhook", "webhooks[0].clientConfig.url")]
    config["webhooks"][0]["clientConfig"]["url"] = "https://[2001:db8::1]/hook"  # the near miss
    assert [f for f in CHECKER.check(config) if f.is_error] == []


def test_a_ko_import_path_is_named_with_what_to_run():
    from .conftest import FIXTURES

    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", str(FIXTURES / "validate" / "bad" / "image-ko-path.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and "is a ko import path" in done.stdout and "ko resolve -f FILE" in done.stdout


def test_the_readmes_shown_output_for_the_seeds_is_what_validate_prints():
    """README.md shows lines of `validate tests/fixtures/seeds/` (the findings it picked, the two
    summary lines): each is printed as shown, so the README cannot drift from the tool."""
    readme = (REPO / "README.md").read_text()
    block = readme.split("own examples fail (from `tests/fixtures/seeds/`):\n\n```console\n", 1)[1].split("```", 1)[0]
    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", "--no-config", "tests/fixtures/seeds/"],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    printed = done.stdout.splitlines()
    for line in block.splitlines():
        assert line in printed, f"README shows {line!r}; validate prints:\n{done.stdout}"
