"""The operator's install objects: RBAC, flags, Pod Security, parameters, file order."""

from __future__ import annotations

import pytest

from generator.render import bundles
from generator.render import pipeline as render
from generator.validate.rules import podsecurity

from .conftest import by_kind, load_all


def render_with(params: dict, kube_version: str | None = None) -> dict[str, list[dict]]:
    result = render.render(bundles.default_bundles(kube_version), params)
    return {name: load_all(text) for name, text in result.files.items() if name.endswith(".yaml")}


def rules_for(objs: list[dict], group: str) -> list[dict]:
    (role,) = by_kind(objs, "ClusterRole")
    return [rule for rule in role["rules"] if group in rule["apiGroups"]]


@pytest.mark.parametrize("bundle", ["v1", "v1beta1"])
def test_objects_and_their_order(objects, bundle):
    kinds = [doc["kind"] for doc in objects[f"{bundle}/operator.yaml"]]
    assert kinds == [
        "Namespace",  # paddle-system, the operator's (paddle-jobs, for jobs, is jobs.yaml)
        "ServiceAccount",
        "ClusterRole",
        "Role",
        "ClusterRoleBinding",
        "RoleBinding",
        "ConfigMap",
        "Deployment",
    ]
    # `kubectl create -f DIR` goes by file name: the CRD before the objects, the namespace first.
    assert sorted(name for name in objects if name.startswith(bundle + "/")) == [
        f"{bundle}/crd.yaml",
        f"{bundle}/jobs.yaml",
        f"{bundle}/operator.yaml",
    ]


def test_rbac_matches_upstream_without_volcano(objects):
    docs = objects["v1/operator.yaml"]
    core = {tuple(r["resources"]): r["verbs"] for r in rules_for(docs, "")}
    assert core[("pods/exec",)] == ["create", "get"]
    assert set(core) >= {("pods",), ("services",), ("configmaps",), ("events",)}
    paddle = {tuple(r["resources"]): r["verbs"] for r in rules_for(docs, "batch.paddlepaddle.org")}
    assert paddle == {
        ("paddlejobs",): ["create", "delete", "get", "list", "patch", "update", "watch"],
        ("paddlejobs/finalizers",): ["update"],
        ("paddlejobs/status",): ["get", "patch", "update"],
    }
    assert rules_for(docs, "scheduling.volcano.sh") == []
    (deployment,) = by_kind(docs, "Deployment")
    assert not any(
        a.startswith("--scheduling") for a in deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    )


def test_volcano_adds_podgroup_rbac_and_the_flag():
    docs = render_with({"scheduling": "volcano"})["v1/operator.yaml"]
    assert [r["resources"] for r in rules_for(docs, "scheduling.volcano.sh")] == [["podgroups"], ["podgroups/status"]]
    (deployment,) = by_kind(docs, "Deployment")
    assert "--scheduling=volcano" in deployment["spec"]["template"]["spec"]["containers"][0]["args"]


def test_the_operator_watches_every_namespace_unless_told(objects):
    # the tutorial's jobs live in -n paddlecloud: an operator watching only paddle-system ignored them
    (deployment,) = by_kind(objects["v1/operator.yaml"], "Deployment")
    args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    assert not [a for a in args if a.startswith("--namespace")], "upstream main.go: no --namespace is every namespace"
    # upstream's init image (main.go, v0.3.5): its nslookup loop, where busybox's fails on search domains
    assert "--initImage=docker.io/library/alpine:3.10" in args
    narrowed = render_with({"namespace": "ops", "watchNamespace": "paddlecloud"})["v1/operator.yaml"]
    (deployment,) = by_kind(narrowed, "Deployment")
    assert "--namespace=paddlecloud" in deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    assert {d["metadata"].get("namespace") for d in narrowed} == {"ops", None}


def test_the_namespace_enforces_pod_security_restricted(objects):
    (namespace,) = [
        ns for ns in by_kind(objects["v1/operator.yaml"], "Namespace") if ns["metadata"]["name"] == "paddle-system"
    ]
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    # the port of Pod Security admission agrees with this file's own reading of the standard
    (deployment,) = by_kind(objects["v1/operator.yaml"], "Deployment")
    template = deployment["spec"]["template"]
    assert podsecurity.violations(template.get("metadata", {}), template["spec"], "restricted", 37) == []


def restricted_violations(pod_template: dict, old: bool = False) -> list[str]:
    """The Pod Security Standards "restricted" checks that apply to this pod."""
    spec, meta = pod_template["spec"], pod_template.get("metadata", {})
    pod_sc = spec.get("securityContext", {})
    bad = []
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(field):
            bad.append(field)
    if any("hostPath" in v for v in spec.get("volumes", [])):
        bad.append("hostPath volume")
    allowed_volumes = {"configMap", "emptyDir", "projected", "secret", "downwardAPI", "persistentVolumeClaim"}
    for volume in spec.get("volumes", []):
        if not set(volume) - {"name"} <= allowed_volumes:
            bad.append(f"volume {volume['name']}")
    # Pod Security admission checks the seccompProfile field; the annotation counts only on
    # clusters before 1.19, which have no field (and no admission: the bundle for them is old)
    annotation = meta.get("annotations", {}).get("seccomp.security.alpha.kubernetes.io/pod") if old else None
    for c in spec["containers"] + spec.get("initContainers", []):
        sc = c.get("securityContext", {})
        if sc.get("privileged"):
            bad.append("privileged")
        if sc.get("allowPrivilegeEscalation") is not False:
            bad.append("allowPrivilegeEscalation")
        if sc.get("capabilities", {}).get("drop") != ["ALL"] or set(sc.get("capabilities", {}).get("add", [])) - {
            "NET_BIND_SERVICE"
        }:
            bad.append("capabilities")
        if not (sc.get("runAsNonRoot") or pod_sc.get("runAsNonRoot")):
            bad.append("runAsNonRoot")
        if (sc.get("runAsUser", pod_sc.get("runAsUser"))) == 0:
            bad.append("runAsUser 0")
        seccomp = sc.get("seccompProfile", pod_sc.get("seccompProfile", {})).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost") and annotation != "runtime/default":
            bad.append("seccomp")
        if not sc.get("readOnlyRootFilesystem"):
            bad.append("readOnlyRootFilesystem (not in the profile, but promised here)")
    return bad


@pytest.mark.parametrize("kube_version", [None, "1.19", "1.30", "1.16", "1.13"])
def test_deployment_meets_pod_security_restricted(kube_version):
    docs = render_with({}, kube_version)
    bundles_rendered = sorted({name.split("/")[0] for name in docs})
    assert len(bundles_rendered) == (2 if kube_version is None else 1)  # --kube-version: the bundle serving it
    for bundle in bundles_rendered:
        (deployment,) = by_kind(docs[f"{bundle}/operator.yaml"], "Deployment")
        old = bundle == "v1beta1" or kube_version == "1.16"
        assert restricted_violations(deployment["spec"]["template"], old) == [], (bundle, kube_version)


def test_seccomp_is_a_field_by_default_and_an_annotation_for_1_16():
    old = by_kind(render_with({}, "1.16")["v1/operator.yaml"], "Deployment")[0]["spec"]["template"]
    new = by_kind(render_with({})["v1/operator.yaml"], "Deployment")[0]["spec"]["template"]
    assert "seccompProfile" not in old["spec"]["securityContext"]
    assert old["metadata"]["annotations"] == {"seccomp.security.alpha.kubernetes.io/pod": "runtime/default"}
    assert new["spec"]["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert "annotations" not in new["metadata"]


def test_parameters_reach_the_objects():
    params = {
        "namespace": "training",
        "image": "example.com/paddle/controller:v9",
        "initImage": "example.com/busybox:1.36",
        "replicas": 2,
        "resources": {"requests": {"cpu": "200m"}, "limits": {"memory": "1Gi"}},
        "imagePullSecrets": ["regcred"],
        "nodeSelector": {"pool": "system"},
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "ops", "effect": "NoSchedule"}],
        "labels": {"team": "ml"},
        "networkPolicy": True,
    }
    docs = render_with(params)["v1/operator.yaml"]
    (deployment,) = by_kind(docs, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert container["image"] == "example.com/paddle/controller:v9"
    assert "--initImage=example.com/busybox:1.36" in container["args"]
    assert deployment["spec"]["replicas"] == 2
    assert container["resources"] == params["resources"]
    assert pod["imagePullSecrets"] == [{"name": "regcred"}]
    assert pod["nodeSelector"] == {"pool": "system"}
    assert pod["tolerations"] == params["tolerations"]
    assert all(d["metadata"]["labels"]["team"] == "ml" for d in docs)
    assert deployment["spec"]["selector"] == {"matchLabels": {"control-plane": "controller-manager"}}
    (policy,) = by_kind(docs, "NetworkPolicy")
    assert policy["metadata"]["namespace"] == "training"
    assert policy["spec"]["podSelector"] == deployment["spec"]["selector"]
    egress_ports = sorted(p["port"] for rule in policy["spec"]["egress"] for p in rule["ports"])
    assert egress_ports == [53, 53, 443, 6443]
    (binding,) = by_kind(docs, "ClusterRoleBinding")
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "paddle-manager-sa", "namespace": "training"}]


def test_cli_flags_map_onto_the_config(tmp_path):
    from generator import cli

    out = tmp_path / "deploy"
    argv = [
        "render",
        "--out",
        str(out),
        "--namespace",
        "ml",
        "--watch-namespace",
        "",
        "--scheduling",
        "volcano",
        "--requests",
        "cpu=50m,memory=64Mi",
        "--limits",
        "memory=256Mi",
        "--node-selector",
        "pool=ops",
        "--toleration",
        "dedicated=ops:NoSchedule",
        "--toleration",
        "spot:NoExecute",
        "--label",
        "team=ml",
        "--image-pull-secret",
        "regcred",
        "--network-policy",
        "--apiserver-port",
        "8443",
        "--replicas",
        "2",
    ]
    assert cli.main(argv) == 0
    docs = load_all((out / "v1beta1" / "operator.yaml").read_text())
    (deployment,) = by_kind(docs, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    assert pod["tolerations"] == [
        {"key": "dedicated", "operator": "Equal", "value": "ops", "effect": "NoSchedule"},
        {"key": "spot", "operator": "Exists", "effect": "NoExecute"},
    ]
    assert pod["containers"][0]["resources"] == {
        "requests": {"cpu": "50m", "memory": "64Mi"},
        "limits": {"memory": "256Mi"},
    }
    args = pod["containers"][0]["args"]
    assert not [a for a in args if a.startswith("--namespace")] and "--scheduling=volcano" in args
    (policy,) = by_kind(docs, "NetworkPolicy")
    assert policy["spec"]["egress"][1]["ports"] == [{"port": 8443, "protocol": "TCP"}]


def namespaces(params: dict) -> dict[str, dict]:
    rendered = render_with(params, "1.30")
    docs = rendered["v1/operator.yaml"] + rendered.get("v1/jobs.yaml", [])
    return {ns["metadata"]["name"]: ns["metadata"].get("labels", {}) for ns in by_kind(docs, "Namespace")}


def test_jobs_get_a_namespace_of_their_own_at_a_level_their_pods_meet():
    found = namespaces({})
    assert found["paddle-system"]["pod-security.kubernetes.io/enforce"] == "restricted"
    assert found["paddle-jobs"]["pod-security.kubernetes.io/enforce"] == "baseline"
    assert "control-plane" not in found["paddle-jobs"]  # not a selector label of the controller's
    chosen = namespaces({"podSecurity": "", "jobPodSecurity": "privileged", "jobNamespace": "training"})
    assert not any(k.startswith("pod-security") for k in chosen["paddle-system"])
    assert chosen["training"]["pod-security.kubernetes.io/enforce"] == "privileged"
    assert set(namespaces({"createNamespace": False, "jobNamespace": ""})) == set()
    # narrowed to a namespace of the user's: the bundle does not make (or relabel) it
    assert set(namespaces({"watchNamespace": "team-a"})) == {"paddle-system"}


def test_jobs_in_the_operators_namespace_are_refused_by_the_render():
    with pytest.raises(render.RenderError, match="jobNamespace must differ from namespace"):
        render_with({"jobNamespace": "paddle-system"}, "1.30")


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--label", "pod-security.kubernetes.io/enforce=baseline"], "--pod-security"),
        (["--label", "control-plane=mine"], "the bundle sets 'control-plane' itself"),
        (["--pod-security", "lenient"], "invalid choice"),
        (["--job-namespace", "Bad_NS"], "--job-namespace"),
    ],
)
def test_a_label_or_level_the_bundle_owns_is_a_usage_error(flags, message, capsys):
    from generator import cli

    try:
        code = cli.main(["render", "--out", "-", "--kube-version", "1.30", *flags])
    except SystemExit as exit:  # argparse's own usage errors
        code = exit.code
    assert code == 2
    assert message in capsys.readouterr().err
