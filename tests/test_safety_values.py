"""Hostile chart values and `render --params` files (issue 24, item 4).

Each wrong value goes through both doors: `helm template -f FILE` (Helm 3 and 4; skipped without
`make helm-tools`) must stop at values.schema.json, and `render --params FILE` must exit 2 naming
the file, the line and the field, and write nothing. The near misses, values the apiserver
takes, must pass both.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from generator.render import params
from tests.conftest import REPO, load_all
from tests.test_chart import CHART, HELM, run_helm

LONG_NAME = "a" * 64  # a qualified name's name part is 63 characters at most
LONG_PREFIX = "a" * 254  # its prefix (a DNS-1123 subdomain) 253

# case -> (the values / --params file, the field path render names)
WRONG = {
    # the NetworkPolicy's apiserver rule: null (Helm drops it) or [] left `ports` empty, all egress allowed
    "apiserver-ports-null": ("networkPolicy: true\napiserverPorts: null\n", "apiserverPorts"),
    "apiserver-ports-empty": ("networkPolicy: true\napiserverPorts: []\n", "apiserverPorts"),
    "apiserver-port-string": ("networkPolicy: true\napiserverPorts: ['443']\n", "apiserverPorts[0]"),
    "toleration-null": ("tolerations: [null]\n", "tolerations[0]"),
    "toleration-operator": ("tolerations: [{key: a, operator: Sometimes}]\n", "tolerations[0].operator"),
    "toleration-operator-empty": ("tolerations: [{key: a, operator: ''}]\n", "tolerations[0].operator"),
    "toleration-effect": ("tolerations: [{key: a, operator: Exists, effect: NoRun}]\n", "tolerations[0].effect"),
    "toleration-effect-empty": ("tolerations: [{key: a, operator: Exists, effect: ''}]\n", "tolerations[0].effect"),
    "toleration-effect-null": ("tolerations: [{key: a, operator: Exists, effect: null}]\n", "tolerations[0].effect"),
    "toleration-key-64": (f"tolerations: [{{key: {LONG_NAME}, operator: Exists}}]\n", "tolerations[0].key"),
    "toleration-key-prefix-254": (
        f"tolerations: [{{key: {LONG_PREFIX}/k, operator: Exists}}]\n",
        "tolerations[0].key",
    ),
    "toleration-key-spelling": ("tolerations: [{key: 'a b', operator: Exists}]\n", "tolerations[0].key"),
    "toleration-exists-with-value": (
        "tolerations: [{key: a, operator: Exists, value: b}]\n",
        "tolerations[0].value",
    ),
    "toleration-empty-key-equal": ("tolerations: [{operator: Equal, value: b}]\n", "tolerations[0].operator"),
    "toleration-empty-key-no-operator": ("tolerations: [{effect: NoSchedule}]\n", "tolerations[0].operator"),
    "toleration-bad-value": ("tolerations: [{key: a, operator: Equal, value: 'x y'}]\n", "tolerations[0].value"),
    "toleration-seconds-without-noexecute": (
        "tolerations: [{key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]\n",
        "tolerations[0].tolerationSeconds",
    ),
    "toleration-seconds-without-effect": (
        "tolerations: [{key: a, operator: Exists, tolerationSeconds: 5}]\n",
        "tolerations[0].tolerationSeconds",
    ),
    "toleration-seconds-string": (
        "tolerations: [{key: a, operator: Exists, effect: NoExecute, tolerationSeconds: '5'}]\n",
        "tolerations[0].tolerationSeconds",
    ),
    "quantity-negative-string": ("resources: {limits: {cpu: '-1'}}\n", "resources.limits.cpu"),
    "quantity-negative-number": ("resources: {requests: {memory: -1}}\n", "resources.requests.memory"),
    "quantity-1e400": ("resources: {limits: {cpu: 1e400}}\n", "resources.limits.cpu"),
    "quantity-1e400-quoted": ("resources: {limits: {cpu: '1e400'}}\n", "resources.limits.cpu"),
    "quantity-too-long": (f"resources: {{limits: {{cpu: '{'1' * 65}'}}}}\n", "resources.limits.cpu"),
    "resource-unknown": ("resources: {limits: {gpu: 1}}\n", "resources.limits.gpu"),
    "resource-kubernetes-io": ("resources: {limits: {kubernetes.io/foo: 1}}\n", "resources.limits.kubernetes.io/foo"),
    "resource-requests-prefix": (
        "resources: {limits: {requests.example.com/gpu: 1}}\n",
        "resources.limits.requests.example.com/gpu",
    ),
    "resource-hugepages-size": ("resources: {limits: {hugepages-lots: 1Gi}}\n", "resources.limits.hugepages-lots"),
    "resources-limits-null": ("resources: {limits: null, requests: {cpu: 100m}}\n", "resources.limits"),
}

# values the apiserver takes, each beside a wrong one above: one file, so one render
NEAR_MISSES = f"""\
networkPolicy: true
apiserverPorts: [1, 65535]
tolerations:
- {{key: {LONG_NAME[:63]}, operator: Exists}}
- {{key: {LONG_PREFIX[:253]}/k, operator: Exists, value: ''}}
- {{key: example.com/dedicated, operator: Equal, value: system, effect: NoSchedule}}
- {{key: b, value: x.y_z}}
- {{operator: Exists}}
- {{key: c, operator: Exists}}
- {{key: d, operator: Exists, effect: NoExecute, tolerationSeconds: 300}}
- {{key: e, operator: Exists, effect: PreferNoSchedule}}
resources:
  limits: {{cpu: '+1', memory: 1e9, ephemeral-storage: 1Gi, example.com/gpu: 2, hugepages-2Mi: 2Mi}}
  requests: {{cpu: '0', memory: 99e-2, example.com/gpu: 2, hugepages-2Mi: 2Mi}}
"""


def render_params(tmp_path: Path, text: str, *flags: str) -> tuple[subprocess.CompletedProcess, Path]:
    file = tmp_path / "params.yaml"
    file.write_text(text)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "generator", "render", "--params", str(file), "--out", str(out), *flags],
        capture_output=True, text=True, timeout=120, cwd=REPO, check=False,
    )  # fmt: skip
    return done, out


def _helm_values(helm: Path, tmp_path: Path, text: str, *extra: str) -> subprocess.CompletedProcess:
    values = tmp_path / "values.yaml"
    values.write_text(text)
    return run_helm(helm, "template", "x", str(CHART), "-n", "paddle-system", "-f", str(values), *extra)


@pytest.mark.parametrize("case", WRONG)
@pytest.mark.parametrize("helm", HELM)
def test_the_schema_refuses(helm, case, tmp_path):
    done = _helm_values(helm, tmp_path, WRONG[case][0])
    assert done.returncode != 0, done.stdout
    assert "schema" in done.stderr, done.stderr


@pytest.mark.parametrize("case", WRONG)
def test_render_params_refuses(case, tmp_path):
    text, field = WRONG[case]
    done, out = render_params(tmp_path, text)
    assert done.returncode == 2, done.stdout + done.stderr
    assert not out.exists(), "nothing may be written"
    message = done.stderr
    assert "Traceback" not in message
    assert f"{tmp_path / 'params.yaml'}:" in message and f" {field}: " in message, message


@pytest.mark.parametrize("case", WRONG)
def test_check_refuses(case):
    """The one check the flags and --params share: params.check, with a typed error."""
    data = load_all(WRONG[case][0])[0]
    with pytest.raises(params.ParamsError) as raised:
        params.check(data)
    assert raised.value.field == WRONG[case][1]


@pytest.mark.parametrize("helm", HELM)
def test_the_issue_reproduction_is_refused(helm):
    """`--set networkPolicy=true --set apiserverPorts=null` rendered `- ports:` (null): all egress."""
    done = run_helm(helm, "template", "x", str(CHART), "--set", "networkPolicy=true", "--set", "apiserverPorts=null")
    assert done.returncode != 0 and "apiserverPorts" in done.stderr, done.stdout + done.stderr


@pytest.mark.parametrize("helm", HELM)
def test_the_template_refuses_empty_ports_without_the_schema(helm):
    """The NetworkPolicy template fails on its own: a rule widened to all egress is never written."""
    sets = ["--set", "networkPolicy=true", "--set", "apiserverPorts=null", "--skip-schema-validation"]
    done = run_helm(helm, "template", "x", str(CHART), *sets)
    assert done.returncode != 0, done.stdout
    assert "apiserverPorts must be a non-empty list" in done.stderr, done.stderr


@pytest.mark.parametrize("helm", HELM)
def test_the_template_refuses_dropped_limits_without_the_schema(helm):
    sets = ["--set", "resources.limits=null", "--skip-schema-validation"]
    done = run_helm(helm, "template", "x", str(CHART), *sets)
    assert done.returncode != 0, done.stdout
    assert "resources.limits is required" in done.stderr, done.stderr


@pytest.mark.parametrize("helm", HELM)
def test_near_misses_pass_the_schema(helm, tmp_path):
    done = _helm_values(helm, tmp_path, NEAR_MISSES)
    assert done.returncode == 0, done.stderr
    (deployment,) = [o for o in load_all(done.stdout) if o["kind"] == "Deployment"]
    assert len(deployment["spec"]["template"]["spec"]["tolerations"]) == 8
    (policy,) = [o for o in load_all(done.stdout) if o["kind"] == "NetworkPolicy"]
    assert policy["spec"]["egress"][1]["ports"] == [{"port": 1, "protocol": "TCP"}, {"port": 65535, "protocol": "TCP"}]
    checked = subprocess.run(
        [sys.executable, "-m", "generator", "validate", "-"],
        input=done.stdout, capture_output=True, text=True, timeout=120, cwd=REPO, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_near_misses_pass_render_params(tmp_path):
    done, out = render_params(tmp_path, NEAR_MISSES)
    assert done.returncode == 0, done.stdout + done.stderr
    objects = load_all((out / "v1" / "operator.yaml").read_text())
    (deployment,) = [o for o in objects if o["kind"] == "Deployment"]
    spec = deployment["spec"]["template"]["spec"]
    assert spec["tolerations"] == load_all(NEAR_MISSES)[0]["tolerations"]
    assert spec["containers"][0]["resources"]["limits"]["example.com/gpu"] == 2


@pytest.mark.parametrize(
    "text, line, key",
    [
        ("replicas: 1\nimage: a/b:1\nreplicas: 2\n", 3, "replicas"),
        ("resources:\n  limits:\n    cpu: 1\n    memory: 1Gi\n    cpu: 2\n", 5, "cpu"),
        ('{"replicas": 1,\n "replicas": 2}\n', 1, "replicas"),
    ],
    ids=["top-level", "nested", "json"],
)
def test_duplicate_keys_in_params_are_refused(text, line, key, tmp_path):
    done, out = render_params(tmp_path, text)
    assert done.returncode == 2, done.stdout + done.stderr
    assert not out.exists()
    assert f"params.yaml:{line}:" in done.stderr and f"duplicate key {key!r}" in done.stderr, done.stderr


@pytest.mark.parametrize(
    "flags, field",
    [
        (["--limits", "cpu=-1"], "resources.limits.cpu"),
        (["--requests", "gpu=1"], "resources.requests.gpu"),
        (["--toleration", f"{LONG_NAME}:NoSchedule"], "tolerations[0].key"),
    ],
    ids=["negative-limit", "unknown-resource", "long-key"],
)
def test_flags_go_through_the_same_check(flags, field, tmp_path):
    done, out = render_params(tmp_path, "{}\n", *flags)
    assert done.returncode == 2, done.stdout + done.stderr
    assert not out.exists()
    assert f"({field}):" in done.stderr, done.stderr


def test_the_flag_and_the_file_give_one_message(tmp_path):
    """One check, one wording: the file's message and the flag's say the same about the value."""
    by_file, _ = render_params(tmp_path, f"tolerations: [{{key: {LONG_NAME}, operator: Exists}}]\n")
    by_flag, _ = render_params(tmp_path, "{}\n", "--toleration", f"{LONG_NAME}:NoSchedule")
    assert by_file.stderr.rsplit("tolerations[0].key: ", 1)[1] == by_flag.stderr.rsplit("(tolerations[0].key): ", 1)[1]


def test_a_key_with_an_empty_prefix_is_refused_as_the_apiserver_and_the_chart_refuse_it(tmp_path):
    """IsQualifiedName: `/a` has an empty prefix ("prefix part must be non-empty"); the fuzzer
    found `--params` taking it while the chart's schema refused it."""
    from generator.core import grammar

    assert grammar.label_key_problem("/a", "toleration")
    assert grammar.label_key_problem("example.com/a", "toleration") is None
    params = tmp_path / "params.yaml"
    params.write_text('tolerations: [{key: "/a", operator: Equal, value: b}]\n')
    done = subprocess.run(
        [sys.executable, "-m", "generator", "render", "--params", str(params), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "prefix" in done.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("helm", HELM)
@pytest.mark.parametrize(
    "ports, shown",
    [
        ("[null]", "null"),
        ("[443, null]", "null"),
        ('["443"]', '"443"'),
        ("[1.5]", "1.5"),
        ("[0]", "0"),
        ("[65536]", "65536"),
        ("[-443]", "-443"),
        ('[{"port": 443}]', '{"port":443}'),
    ],
)
def test_the_template_refuses_a_port_that_is_no_port_without_the_schema(helm, ports, shown):
    """A null item wrote `- protocol: TCP`, a rule without a port: Kubernetes reads it as every
    port. The template fails on each item that is not an integer 1-65535, without the schema too."""
    sets = ["--set", "networkPolicy=true", "--set-json", f"apiserverPorts={ports}", "--skip-schema-validation"]
    done = run_helm(helm, "template", "x", str(CHART), *sets)
    assert done.returncode != 0, done.stdout
    assert f"apiserverPorts: each item must be an integer from 1 to 65535, not {shown}" in done.stderr, done.stderr


@pytest.mark.parametrize("helm", HELM)
@pytest.mark.parametrize("ports", ['{"a": 443}', '"443"', "443"])
def test_the_template_refuses_ports_that_are_no_list_without_the_schema(helm, ports):
    sets = ["--set", "networkPolicy=true", "--set-json", f"apiserverPorts={ports}", "--skip-schema-validation"]
    done = run_helm(helm, "template", "x", str(CHART), *sets)
    assert done.returncode != 0, done.stdout
    assert "apiserverPorts must be a non-empty list" in done.stderr, done.stderr


@pytest.mark.parametrize("helm", HELM)
def test_the_template_writes_every_port_helm_gives_as_a_number(helm):
    """YAML and --set-json give float64, --set int64: both are ports, written as integers."""
    for sets in (["--set-json", "apiserverPorts=[1, 443.0, 65535]"], ["--set", "apiserverPorts[0]=6443"]):
        done = run_helm(helm, "template", "x", str(CHART), "--set", "networkPolicy=true", *sets)
        assert done.returncode == 0, done.stderr
        policy = next(o for o in load_all(done.stdout) if o and o["kind"] == "NetworkPolicy")
        wanted = [1, 443, 65535] if sets[0] == "--set-json" else [6443]
        assert [p["port"] for p in policy["spec"]["egress"][1]["ports"]] == wanted
