"""`validate --crd`: real CRDs of six projects (tests/fixtures/crds, pinned in SOURCES.json) and
their x-kubernetes-validations rules, each with an object that passes and one that fails; and
the Kubernetes CEL libraries (kubecel.py) on their own."""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import subprocess
import sys

import pytest

from generator import validate
from generator.validate import sources as schemasource
from generator.validate.crd import kubecel

from .conftest import FIXTURES, REPO

CRDS = FIXTURES / "crds"
SOURCES = json.loads((CRDS / "SOURCES.json").read_text())


@pytest.fixture(scope="module")
def crd_dir(tmp_path_factory):
    """The pinned CRDs as their projects publish them (plain YAML), one folder per project."""
    root = tmp_path_factory.mktemp("crds")
    for source in SOURCES:
        data = gzip.decompress((CRDS / source["file"]).read_bytes())
        assert hashlib.sha256(data).hexdigest() == source["sha256"], source["file"]
        target = root / source["project"] / source["path"].rsplit("/", 1)[-1]
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(data)
    return root


@pytest.fixture(scope="module")
def checker(crd_dir):
    return validate.ObjectChecker(35, crds=schemasource.CrdSource([str(crd_dir)]))


def findings(checker, obj) -> list[tuple[str, str, str]]:
    return [(f.rule, f.path, f.message) for f in checker.check(obj) if f.severity == "error"]


def test_the_sources_name_six_projects_with_a_tag_and_a_commit():
    assert {s["project"] for s in SOURCES} >= {"trainer", "jobset", "kueue", "cert-manager", "argo-cd"}
    assert len({s["project"] for s in SOURCES}) >= 6
    for source in SOURCES:
        assert source["tag"].startswith("v") and len(source["commit"]) == 40


# -- objects that pass: one per kind -------------------------------------------------------------

CONTAINER = {"name": "c", "image": "busybox"}
JOB_TEMPLATE = {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [CONTAINER]}}}}


def meta(name: str = "demo") -> dict:
    return {"name": name, "namespace": "default"}


BASE = {
    "TrainJob": {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": meta("train"),
        "spec": {"runtimeRef": {"name": "torch-distributed"}},
    },
    "TrainingRuntime": {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainingRuntime",
        "metadata": meta("torch"),
        "spec": {
            "mlPolicy": {"numNodes": 1, "torch": {}},
            "template": {"spec": {"replicatedJobs": [{"name": "node", "template": JOB_TEMPLATE}]}},
        },
    },
    "JobSet": {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": meta("js"),
        "spec": {"replicatedJobs": [{"name": "workers", "replicas": 2, "template": JOB_TEMPLATE}]},
    },
    "ClusterQueue": {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {
            "cohortName": "all",
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": "default",
                            "resources": [
                                {"name": "cpu", "nominalQuota": 9, "borrowingLimit": 2},
                                {"name": "memory", "nominalQuota": "36Gi"},
                            ],
                        }
                    ],
                }
            ],
        },
    },
    "Cohort": {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Cohort",
        "metadata": {"name": "all"},
        "spec": {
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": 4}]}],
                }
            ]
        },
    },
    "ResourceFlavor": {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": "gpu"},
        "spec": {
            "nodeLabels": {"cloud.google.com/gke-accelerator": "nvidia-l4"},
            "nodeTaints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}],
            "tolerations": [{"key": "gpu", "operator": "Equal", "value": "true", "effect": "NoExecute"}],
        },
    },
    "Topology": {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Topology",
        "metadata": {"name": "default"},
        "spec": {
            "levels": [{"nodeLabel": "cloud.google.com/gce-topology-block"}, {"nodeLabel": "kubernetes.io/hostname"}]
        },
    },
    "Issuer": {
        "apiVersion": "cert-manager.io/v1",
        "kind": "Issuer",
        "metadata": meta("venafi"),
        "spec": {"venafi": {"zone": "z", "cloud": {"apiTokenSecretRef": {"name": "token", "key": "k"}}}},
    },
    "Certificate": {
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": meta("web"),
        "spec": {"secretName": "web-tls", "dnsNames": ["example.com"], "issuerRef": {"name": "venafi"}},
    },
    "PrometheusAgent": {
        "apiVersion": "monitoring.coreos.com/v1alpha1",
        "kind": "PrometheusAgent",
        "metadata": meta("agent"),
        "spec": {"mode": "DaemonSet", "serviceAccountName": "prometheus"},
    },
    "ServiceMonitor": {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": meta("web"),
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "endpoints": [{"port": "metrics", "interval": "30s"}]},
    },
    "Application": {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "guestbook", "namespace": "argocd"},
        "spec": {
            "project": "default",
            "source": {"repoURL": "https://github.com/argoproj/argocd-example-apps", "path": "guestbook"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "guestbook"},
        },
    },
}


@pytest.mark.parametrize("kind", sorted(BASE))
def test_a_valid_object_of_each_kind_passes(checker, kind):
    assert findings(checker, BASE[kind]) == []


def changed(kind: str, path: str, value):
    """BASE[kind] with the dotted ``path`` set to ``value`` (a number in the path is an index)."""
    obj = copy.deepcopy(BASE[kind])
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    node = obj
    for part in parents:
        node = node[part] if isinstance(part, int) else node.setdefault(part, {})
    node[last] = value
    return obj


DEPENDS = [
    {"name": "init", "template": JOB_TEMPLATE},
    {"name": "workers", "template": JOB_TEMPLATE, "dependsOn": [{"name": "init", "status": "Ready"}]},
]
VOLUME_CLAIMS = [{"templates": [{"metadata": {"name": "data", "namespace": "other"}, "spec": {}}]}]

# (rule, kind, the near miss that passes: (path, value), the object that fails: (path, value),
#  the path and a part of the message of the finding)
CASES = [
    # Trainer v2 TrainJob
    ("trainjob-name-dns1035", "TrainJob", ("metadata.name", "t1"), ("metadata.name", "1train"), "", "must match"),
    ("trainjob-name-63", "TrainJob", ("metadata.name", "t" * 63), ("metadata.name", "t" * 64), "", "63 characters"),
    (
        "trainjob-dataset-uri",
        "TrainJob",
        ("spec.initializer", {"dataset": {"storageUri": "hf://tatsu-lab/alpaca"}}),
        ("spec.initializer", {"dataset": {"storageUri": "tatsu-lab/alpaca"}}),
        "spec.initializer.dataset.storageUri",
        "",
    ),
    (
        "trainjob-model-uri",
        "TrainJob",
        ("spec.initializer", {"model": {"storageUri": "s3://bucket/model"}}),
        ("spec.initializer", {"model": {"storageUri": "s3:/bucket"}}),
        "spec.initializer.model.storageUri",
        "",
    ),
    (
        "trainjob-managed-by",
        "TrainJob",
        ("spec.managedBy", "kueue.x-k8s.io/multikueue"),
        ("spec.managedBy", "example.com/mine"),
        "spec.managedBy",
        "",
    ),
    # Trainer v2 TrainingRuntime
    (
        "runtime-one-ml-policy",
        "TrainingRuntime",
        ("spec.mlPolicy", {"numNodes": 1, "mpi": {"numProcPerNode": 1}}),
        ("spec.mlPolicy", {"numNodes": 1, "torch": {}, "mpi": {"numProcPerNode": 1}}),
        "spec.mlPolicy",
        "",
    ),
    (
        "runtime-flux-procs",
        "TrainingRuntime",
        ("spec.mlPolicy", {"flux": {"numProcPerNode": 1}}),
        ("spec.mlPolicy", {"flux": {"numProcPerNode": 0}}),
        "spec.mlPolicy.flux.numProcPerNode",
        "",
    ),
    (
        "runtime-env-injection",
        "TrainingRuntime",
        ("spec.mlPolicy.torch", {"envInjection": {"targets": [{"jobName": "node", "containerNames": ["trainer"]}]}}),
        ("spec.mlPolicy.torch", {"envInjection": {"targets": [{"jobName": "node", "containerNames": ["node"]}]}}),
        "spec.mlPolicy.torch.envInjection.targets[0].containerNames",
        "",
    ),
    (
        "runtime-startup-depends-on",
        "TrainingRuntime",
        ("spec.template.spec", {"replicatedJobs": DEPENDS}),
        ("spec.template.spec", {"startupPolicy": {"startupPolicyOrder": "InOrder"}, "replicatedJobs": DEPENDS}),
        "spec.template.spec",
        "mutually exclusive",
    ),
    (
        "runtime-claim-namespace",
        "TrainingRuntime",
        ("spec.template.spec.volumeClaimPolicies", [{"templates": [{"metadata": {"name": "data"}, "spec": {}}]}]),
        ("spec.template.spec.volumeClaimPolicies", VOLUME_CLAIMS),
        "spec.template.spec.volumeClaimPolicies[0]",
        "namespace cannot be set",
    ),
    # JobSet
    (
        "jobset-startup-depends-on",
        "JobSet",
        ("spec", {"startupPolicy": {"startupPolicyOrder": "AnyOrder"}, "replicatedJobs": DEPENDS}),
        ("spec", {"startupPolicy": {"startupPolicyOrder": "InOrder"}, "replicatedJobs": DEPENDS}),
        "spec",
        "StartupPolicy and DependsOn APIs are mutually exclusive",
    ),
    (
        "jobset-claim-namespace",
        "JobSet",
        ("spec.volumeClaimPolicies", [{"templates": [{"metadata": {"name": "data"}, "spec": {}}]}]),
        ("spec.volumeClaimPolicies", VOLUME_CLAIMS),
        "spec.volumeClaimPolicies[0]",
        "namespace cannot be set",
    ),
    # Kueue
    (
        "clusterqueue-borrowing-without-cohort",
        "ClusterQueue",
        ("spec.cohortName", "all"),
        ("spec.cohortName", None),
        "spec",
        "borrowingLimit",
    ),
    (
        "clusterqueue-flavor-fungibility",
        "ClusterQueue",
        ("spec.flavorFungibility", {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"}),
        ("spec.flavorFungibility", {"whenCanBorrow": "MayStopSearch", "preference": "BorrowingOverPreemption"}),
        "spec.flavorFungibility",
        "",
    ),
    (
        "clusterqueue-reclaim-never",
        "ClusterQueue",
        ("spec.preemption", {"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority"}}),
        ("spec.preemption", {"reclaimWithinCohort": "Never", "borrowWithinCohort": {"policy": "LowerPriority"}}),
        "spec.preemption",
        "",
    ),
    (
        "clusterqueue-covered-resources",
        "ClusterQueue",
        ("spec.resourceGroups.0.coveredResources", ["cpu", "memory"]),
        ("spec.resourceGroups.0.coveredResources", ["cpu", "memory", "nvidia.com/gpu"]),
        "spec.resourceGroups[0]",
        "",
    ),
    (
        "cohort-covered-resources",
        "Cohort",
        ("spec.resourceGroups.0.coveredResources", ["cpu"]),
        ("spec.resourceGroups.0.coveredResources", ["cpu", "memory"]),
        "spec.resourceGroups[0]",
        "",
    ),
    (
        "resourceflavor-topology-needs-labels",
        "ResourceFlavor",
        ("spec.topologyName", "default"),
        ("spec", {"topologyName": "default"}),
        "spec",
        "",
    ),
    (
        "resourceflavor-taint-effect",
        "ResourceFlavor",
        ("spec.nodeTaints", [{"key": "a", "value": "b", "effect": "PreferNoSchedule"}]),
        ("spec.nodeTaints", [{"key": "a", "value": "b", "effect": "Sometimes"}]),
        "spec.nodeTaints",
        "",
    ),
    (
        "resourceflavor-toleration-without-key",
        "ResourceFlavor",
        ("spec.tolerations", [{"operator": "Exists"}]),
        ("spec.tolerations", [{"operator": "Equal", "value": "x"}]),
        "spec.tolerations",
        "",
    ),
    (
        "resourceflavor-toleration-seconds",
        "ResourceFlavor",
        ("spec.tolerations", [{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}]),
        ("spec.tolerations", [{"key": "a", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}]),
        "spec.tolerations",
        "",
    ),
    (
        "resourceflavor-toleration-operator",
        "ResourceFlavor",
        ("spec.tolerations", [{"key": "a", "operator": "Exists"}]),
        ("spec.tolerations", [{"key": "a", "operator": "In"}]),
        "spec.tolerations",
        "",
    ),
    (
        "resourceflavor-exists-without-value",
        "ResourceFlavor",
        ("spec.tolerations", [{"key": "a", "operator": "Equal", "value": "v"}]),
        ("spec.tolerations", [{"key": "a", "operator": "Exists", "value": "v"}]),
        "spec.tolerations",
        "",
    ),
    (
        "resourceflavor-toleration-effect",
        "ResourceFlavor",
        ("spec.tolerations", [{"key": "a", "operator": "Exists", "effect": "NoSchedule"}]),
        ("spec.tolerations", [{"key": "a", "operator": "Exists", "effect": "Never"}]),
        "spec.tolerations",
        "",
    ),
    (
        "topology-unique-levels",
        "Topology",
        ("spec.levels", [{"nodeLabel": "rack"}, {"nodeLabel": "block"}]),
        ("spec.levels", [{"nodeLabel": "rack"}, {"nodeLabel": "rack"}]),
        "spec.levels",
        "",
    ),
    (
        "topology-hostname-last",
        "Topology",
        ("spec.levels", [{"nodeLabel": "rack"}, {"nodeLabel": "kubernetes.io/hostname"}]),
        ("spec.levels", [{"nodeLabel": "kubernetes.io/hostname"}, {"nodeLabel": "rack"}]),
        "spec.levels",
        "",
    ),
    # cert-manager
    (
        "issuer-venafi-exactly-one",
        "Issuer",
        ("spec.venafi.zone", "z2"),
        ("spec.venafi.tpp", {"url": "https://tpp.example.com/vedsdk", "credentialsRef": {"name": "tpp"}}),
        "spec.venafi",
        "exactly one of tpp, cloud, or ngts",
    ),
    # prometheus-operator
    (
        "agent-daemonset-replicas",
        "PrometheusAgent",
        ("spec.mode", "StatefulSet"),
        ("spec.replicas", 2),
        "spec",
        "replicas cannot be set when mode is DaemonSet",
    ),
    (
        "agent-update-strategy",
        "PrometheusAgent",
        ("spec.updateStrategy", {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}}),
        ("spec.updateStrategy", {"type": "OnDelete", "rollingUpdate": {"maxUnavailable": 1}}),
        "spec.updateStrategy",
        "rollingUpdate requires type to be RollingUpdate",
    ),
]


def _apply(kind: str, change):
    path, value = change
    obj = changed(kind, path, value)
    if value is None:  # None: the field is removed
        *parents, last = path.split(".")
        node = obj
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        del node[last]
    return obj


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_each_rule_passes_a_near_miss_and_fails_its_breach(checker, case):
    _, kind, good, bad, path, message = case
    assert findings(checker, _apply(kind, good)) == []
    found = findings(checker, _apply(kind, bad))
    assert [(rule, where) for rule, where, _ in found] == [("cel-rule", path)], found
    assert message in found[0][2]


def test_transition_rules_are_skipped_on_create(checker, crd_dir):
    """JobSet's `self == oldSelf` rules (immutable fields) never fire on a new object."""
    text = (crd_dir / "jobset" / "jobset.x-k8s.io_jobsets.yaml").read_text()
    assert text.count("rule: self == oldSelf") >= 5
    obj = changed("JobSet", "spec.successPolicy", {"operator": "Any", "targetReplicatedJobs": ["workers"]})
    assert findings(checker, obj) == []


def test_schema_errors_of_a_crd_kind_are_found_with_defaults_applied(checker):
    obj = changed("ServiceMonitor", "spec.endpoints.0.intervall", "30s")
    assert [(r, p) for r, p, _ in findings(checker, obj)] == [("unknown-field", "spec.endpoints[0].intervall")]
    missing = copy.deepcopy(BASE["Application"])
    del missing["spec"]["destination"]
    assert [(r, p) for r, p, _ in findings(checker, missing)] == [("required", "spec.destination")]  # at the field
    # JobSet's replicatedJobs[].replicas defaults to 1; a rule sees the defaulted object
    obj = changed("JobSet", "spec.replicatedJobs.0.replicas", "two")
    assert [(r, p) for r, p, _ in findings(checker, obj)] == [("type", "spec.replicatedJobs[0].replicas")]


def test_a_blocking_schema_error_stops_the_rules(checker):
    """strategy.go hasBlockingErr: a wrong type means the rules are not run (no second finding)."""
    obj = changed("Topology", "spec.levels", [{"nodeLabel": 5}, {"nodeLabel": 5}])
    rules = {r for r, _, _ in findings(checker, obj)}
    assert rules and rules <= {"type", "type-string"}  # type-string: a type finding, read with the source


def test_status_of_a_kind_with_a_status_subresource_is_dropped_on_create(checker):
    obj = changed("TrainJob", "status", {"trainerStatus": {}})  # its rule needs lastUpdatedTime
    assert findings(checker, obj) == []
    obj = changed("TrainJob", "status", {"trainerStatuss": {}})
    assert [(r, p) for r, p, _ in findings(checker, obj)] == [("unknown-field", "status.trainerStatuss")]


def test_a_version_the_crd_does_not_serve_is_no_match(checker):
    obj = {**BASE["Topology"], "apiVersion": "kueue.x-k8s.io/v1"}
    assert [(r, p) for r, p, _ in findings(checker, obj)] == [("api-not-served", "apiVersion")]


# -- the command line ------------------------------------------------------------------------------


def run(*args: str):
    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", *args], cwd=REPO, capture_output=True, text=True, check=False
    )
    return done.returncode, done.stdout, done.stderr


def test_the_cli_takes_crd_files_folders_and_install_manifests(tmp_path, crd_dir):
    manifest = tmp_path / "install.yaml"  # a multi-document install manifest with other kinds in it
    manifest.write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: jobset-system}\n---\n"
        + (crd_dir / "jobset" / "jobset.x-k8s.io_jobsets.yaml").read_text()
    )
    job = tmp_path / "job.yaml"
    job.write_text(json.dumps(changed("JobSet", "spec.volumeClaimPolicies", VOLUME_CLAIMS)))
    code, out, _ = run("--crd", str(manifest), "--crd", str(crd_dir / "kueue"), str(job))
    assert code == 1 and "namespace cannot be set for VolumeClaimPolicies templates" in out and "[cel-rule]" in out
    code, out, _ = run(str(job))  # without --crd: JobSet is one of the projects' pinned CRDs, rules included
    assert code == 1 and "[cel-rule]" in out and "[unknown-kind]" not in out
    code, _, err = run("--crd", str(tmp_path / "none.yaml"), str(job))
    assert code == 2 and "--crd" in err and "no such file" in err
    code, _, err = run("--crd", str(job), str(job))
    assert code == 2 and "holds no CustomResourceDefinition" in err


def test_twenty_crds_are_read_once_per_run(tmp_path, crd_dir, monkeypatch):
    """A folder of 20 CRDs: each file is read once, each CRD parsed and its kind's validator
    compiled once, when its first object comes, however many objects there are."""
    folder = tmp_path / "crds"
    folder.mkdir()
    source = (crd_dir / "kueue" / "kueue.x-k8s.io_topologies.yaml").read_text()
    for i in range(20):
        folder.joinpath(f"t{i}.yaml").write_text(
            source.replace("kueue.x-k8s.io", f"g{i}.example.com").replace("topologies.", f"topologies{i}.")
        )
    reads = []
    original = schemasource.CrdSource._read
    monkeypatch.setattr(schemasource.CrdSource, "_read", lambda self, name: reads.append(name) or original(self, name))
    compiled = []
    original_init = schemasource.CustomResourceValidator.__init__

    def counting(self, *args, **kwargs):
        compiled.append(1)
        original_init(self, *args, **kwargs)

    monkeypatch.setattr(schemasource.CustomResourceValidator, "__init__", counting)
    parses = []
    original_parse = schemasource.CrdSource._parse
    monkeypatch.setattr(
        schemasource.CrdSource, "_parse", lambda self, *a, **k: parses.append(1) or original_parse(self, *a, **k)
    )
    crds = schemasource.CrdSource([str(folder)])
    checker = validate.ObjectChecker(35, crds=crds)
    for _ in range(3):
        for i in range(2):  # objects of two of the kinds: two CRDs parsed, two compiled
            obj = {**BASE["Topology"], "apiVersion": f"g{i}.example.com/v1beta2"}
            assert findings(checker, obj) == []
    assert len(reads) == 20 and crds.crds == 20 and len(parses) == 2 and len(compiled) == 2
    for _ in range(3):
        for i in range(20):
            obj = {**BASE["Topology"], "apiVersion": f"g{i}.example.com/v1beta2"}
            assert findings(checker, obj) == []
    assert len(reads) == 20 and len(parses) == 20 and len(compiled) == 20


def test_the_crd_index_agrees_with_parsing_every_document(crd_dir, tmp_path):
    import yaml

    expected = set()
    for path in crd_dir.rglob("*.yaml"):
        for crd in yaml.load_all(path.read_text(), Loader=yaml.CSafeLoader):
            for version in crd["spec"]["versions"]:
                expected.add((f"{crd['spec']['group']}/{version['name']}", crd["spec"]["names"]["kind"]))
    assert set(schemasource.CrdSource([str(crd_dir)]).kinds()) == expected
    # JSON, and a List of CRDs, are parsed whole
    crd = yaml.load((crd_dir / "kueue" / "kueue.x-k8s.io_topologies.yaml").read_text(), Loader=yaml.CSafeLoader)
    (tmp_path / "crd.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [crd]}))
    assert ("kueue.x-k8s.io/v1beta2", "Topology") in set(schemasource.CrdSource([str(tmp_path)]).kinds())


# -- the CEL libraries ------------------------------------------------------------------------------

LIBRARY = [
    ("quantity('1Gi').isGreaterThan(quantity('1000Mi'))", True),
    ("quantity('1') == quantity('1000m')", True),
    ("quantity('1.5').add(2).asApproximateFloat()", 3.5),
    ("quantity('1k').asInteger()", 1000),
    ("isQuantity('1.5Gi') && !isQuantity('1.5GB')", True),
    ("quantity('-1').sign()", -1),
    ("[1, 2, 3].isSorted() && [3, 1].max() == 3 && [1, 2].sum() == 3", True),
    ("[1, 2, 2].indexOf(2) == 1 && [1, 2, 2].lastIndexOf(2) == 2 && 'abc'.indexOf('c') == 2", True),
    ("'a1b22'.find('[0-9]+') == '1' && 'a1b22'.findAll('[0-9]+') == ['1', '22']", True),
    ("url('https://example.com:8443/path?x=1').getPort() == '8443'", True),
    ("url('https://example.com/p').getHostname() == 'example.com' && !isURL('example.com')", True),
    ("sets.contains([1, 2, 3], [2]) && sets.intersects([1], [1, 4]) && sets.equivalent([1, 1], [1])", True),
    ("ip('10.0.0.1').family() == 4 && ip('::1').isLoopback() && !isIP('10.0.0.256')", True),
    ("cidr('10.0.0.0/8').containsIP('10.1.2.3') && string(cidr('10.1.0.0/8').masked()) == '10.0.0.0/8'", True),
    ("semver('1.2.3').isLessThan(semver('1.10.0')) && semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))", True),
    ("'a,b'.split(',').size() == 2 && ' x '.trim() == 'x'", True),
    ("[1, 2].all(x, x > 0) && [1, 2].exists_one(x, x == 2) && [1, 2].map(x, x * 2)[1] == 4", True),
    ("!format.dns1123Label().validate('web-1').hasValue()", True),
    ("format.dns1123Label().validate('Web_1').value().size() > 0", True),
    ("format.named('labelValue').hasValue() && !format.named('nope').hasValue()", True),
    ("!format.dns1035LabelPrefix().validate('web-').hasValue()", True),
    (
        "format.qualifiedName().validate('a/b/c').hasValue() && !format.uuid().validate("
        "'123e4567-e89b-12d3-a456-426614174000').hasValue()",
        True,
    ),
    (
        "!format.datetime().validate('2026-01-01T00:00:00Z').hasValue()"
        " && format.date().validate('2026-13').hasValue()",
        True,
    ),
]


@pytest.mark.parametrize("expression, expected", LIBRARY, ids=[e for e, _ in LIBRARY])
def test_the_kubernetes_libraries(expression, expected):
    result, error = kubecel.environment(35).compile(expression).run({"self": {}})
    assert error is None and result == expected


def test_evaluation_errors_are_errors_not_passes():
    env = kubecel.environment(35)
    assert env.compile("quantity('1m').asInteger() == 0").run({"self": {}})[0] is None
    result, error = env.compile("self.missing == 1").run({"self": {}})
    assert result is None and error


def test_libraries_follow_the_release():
    with pytest.raises(kubecel.CelProblem, match="1.27 does not have"):
        kubecel.environment(27).compile("quantity('1').sign() == 1")
    with pytest.raises(kubecel.CelProblem, match="1.29 does not have"):
        kubecel.environment(29).compile("isIP('1.2.3.4')")
    with pytest.raises(kubecel.CelProblem, match="1.30 does not have"):
        kubecel.environment(30).compile("!format.dns1123Label().validate(self).hasValue()")
    with pytest.raises(kubecel.CelProblem) as problem:
        kubecel.environment(35).compile("isImage(self)")
    assert problem.value.unsupported == "isImage"


def _rules(schema, out: list[str]) -> list[str]:
    if isinstance(schema, dict):
        for rule in schema.get("x-kubernetes-validations") or []:
            out += [rule[key] for key in ("rule", "messageExpression") if isinstance(rule.get(key), str)]
        for key, value in schema.items():
            if key not in ("x-kubernetes-validations", "default", "enum", "example"):
                _rules(value, out)
    elif isinstance(schema, list):
        for item in schema:
            _rules(item, out)
    return out


def test_every_rule_of_the_pinned_crds_compiles_with_the_kubernetes_libraries(crd_dir):
    """Transition rules too: the engine knows every function these projects use."""
    import yaml

    rules = []
    for path in sorted(crd_dir.rglob("*.yaml")):
        for crd in yaml.load_all(path.read_text(), Loader=yaml.CSafeLoader):
            rules += _rules(crd["spec"]["versions"], [])
    assert len(rules) > 90
    env = kubecel.environment(35)
    for rule in rules:
        env.compile(rule)  # raises CelProblem
    program = env.compile("self == oldSelf")
    assert program.run({"self": {"a": [1]}, "oldSelf": {"a": [1]}}) == (True, None)
    assert program.run({"self": {"a": [1]}, "oldSelf": {"a": [2]}}) == (False, None)


def test_duplicates_in_list_sets_and_list_maps_are_errors(checker):
    """ValidateListSetsAndMaps: JobSet's replicatedJobs is a list-map keyed by name, a
    TrainingRuntime's envInjection containerNames a list-set."""
    twice = changed("JobSet", "spec.replicatedJobs", [BASE["JobSet"]["spec"]["replicatedJobs"][0]] * 2)
    assert [(r, p) for r, p, _ in findings(checker, twice)] == [("schema", "spec.replicatedJobs[1]")]
    names = {"targets": [{"jobName": "node", "containerNames": ["a", "a"]}]}
    found = findings(checker, changed("TrainingRuntime", "spec.mlPolicy.torch", {"envInjection": names}))
    assert [(r, p) for r, p, _ in found] == [
        ("schema", "spec.mlPolicy.torch.envInjection.targets[0].containerNames[1]")
    ]
    assert "Duplicate value" in found[0][2]


def test_a_rule_the_engine_cannot_evaluate_is_a_warning_never_a_pass(checker):
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "x-kubernetes-validations": [
                    {"rule": "self.m.all(k, v, v > 0)"},
                    {"rule": "self.n > 0", "reason": "FieldValueForbidden"},
                ],
                "properties": {
                    "m": {"type": "object", "additionalProperties": {"type": "integer"}},
                    "n": {"type": "integer"},
                },
            }
        },
    }
    from generator.validate.crd.validator import CustomResourceValidator

    found = CustomResourceValidator(schema, minor=35).findings({"spec": {"m": {"a": 1}, "n": 0}})
    assert [(f.severity, f.rule, f.path) for f in found] == [
        ("error", "cel-rule", "spec"),
        ("warning", "cel-unsupported", "spec"),
    ]
    assert found[0].message == "Forbidden: failed rule: self.n > 0"
    assert "two-variable comprehension" in found[1].message
    older = CustomResourceValidator(schema, minor=31).findings({"spec": {"m": {"a": 1}, "n": 1}})
    assert [f.rule for f in older] == ["cel-unsupported"] and "1.31 does not have" in older[0].message


def test_rules_see_the_object_as_the_apiserver_builds_it():
    """Pruned fields are gone, numbers are doubles, date-time a timestamp, the root's metadata
    only name and generateName, a dashed property escaped."""
    from generator.validate.crd.validator import CustomResourceValidator

    schema = {
        "type": "object",
        "x-kubernetes-validations": [
            {"rule": "!has(self.metadata.labels) && self.metadata.name == 'w'", "message": "metadata"},
        ],
        "properties": {
            "spec": {
                "type": "object",
                "x-kubernetes-validations": [
                    {"rule": "size(self) == 3", "message": "pruned"},
                    {"rule": "self.ratio == 1.0 && self.ratio > 0.5", "message": "double"},
                    {"rule": "self.at < timestamp('2030-01-01T00:00:00Z')", "message": "timestamp"},
                    {"rule": "self.max__dash__size == 2", "message": "escaped"},
                ],
                "properties": {
                    "ratio": {"type": "number"},
                    "at": {"type": "string", "format": "date-time"},
                    "max-size": {"type": "integer"},
                    "unused": {"type": "string"},
                },
            }
        },
    }
    obj = {
        "metadata": {"name": "w", "labels": {"a": "b"}},
        "spec": {"ratio": 1, "at": "2026-01-01T00:00:00Z", "max-size": 2, "typo": 1},
    }
    assert CustomResourceValidator(schema, strict=False, minor=35).findings(obj) == []  # typo: pruned
    obj["spec"]["unused"] = "x"
    found = CustomResourceValidator(schema, strict=False, minor=35).findings(obj)
    assert [f.message.split(" (")[0] for f in found] == ["pruned"]


def test_an_embedded_resource_needs_apiversion_and_kind_and_good_metadata():
    """schema/objectmeta validateEmbeddedResource, on a made-up CRD with an embedded object."""
    from generator.validate.crd.validator import CustomResourceValidator

    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "template": {
                        "type": "object",
                        "x-kubernetes-embedded-resource": True,
                        "x-kubernetes-preserve-unknown-fields": True,
                    }
                },
            }
        },
    }
    validator = CustomResourceValidator(schema, minor=35)
    good = {"spec": {"template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"labels": {"a": "b"}}}}}
    assert validator.findings(good) == []
    bad = {"spec": {"template": {"kind": "Config_Map", "metadata": {"labels": {"a": "b c"}}}}}
    assert [(f.rule, f.path) for f in validator.findings(bad)] == [
        ("required", "spec.template.apiVersion"),
        ("schema", "spec.template.kind"),
        ("label-value", "spec.template.metadata.labels.a"),
    ]


def test_rules_apply_from_kubernetes_1_25(crd_dir):
    """CustomResourceValidationExpressions is on by default from 1.25 (beta): before, the
    apiserver drops the rules."""
    bad = changed("Topology", "spec.levels", [{"nodeLabel": "rack"}, {"nodeLabel": "rack"}])
    for minor, rules in ((24, []), (25, ["cel-rule"])):
        checker = validate.ObjectChecker(minor, crds=schemasource.CrdSource([str(crd_dir / "kueue")]))
        assert [f.rule for f in checker.check(bad) if f.rule.startswith("cel")] == rules


def test_an_re2_pattern_jsonschema_rs_refuses_is_checked_with_python(checker):
    """Kueue's AdmissionCheck parameters.kind pattern `^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$` is RE2,
    no ECMA regex: it is still checked, not a crash and not a pass."""
    check = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "AdmissionCheck",
        "metadata": {"name": "prov"},
        "spec": {
            "controllerName": "kueue.x-k8s.io/provisioning-request",
            "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "cfg"},
        },
    }
    assert findings(checker, check) == []
    check["spec"]["parameters"]["kind"] = "Provisioning_Request"
    assert [(r, p) for r, p, _ in findings(checker, check)] == [("schema", "spec.parameters.kind")]


def test_a_list_map_key_takes_its_default_before_items_are_compared():
    """Two ports, one with protocol TCP and one without (defaulted to TCP): a duplicate."""
    from generator.validate.crd.validator import CustomResourceValidator

    schema = {
        "type": "object",
        "properties": {
            "ports": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port", "protocol"],
                "items": {
                    "type": "object",
                    "required": ["port"],
                    "properties": {"port": {"type": "integer"}, "protocol": {"type": "string", "default": "TCP"}},
                },
            }
        },
    }
    validator = CustomResourceValidator(schema, minor=35)
    assert validator.findings({"ports": [{"port": 80}, {"port": 80, "protocol": "UDP"}]}) == []
    found = validator.findings({"ports": [{"port": 80}, {"port": 80, "protocol": "TCP"}]})
    assert [(f.rule, f.path) for f in found] == [("schema", "ports[1]")]


def test_a_crd_is_read_as_kubectl_reads_it(tmp_path):
    """prometheus-operator's AlertmanagerConfig has `- =` in an enum: a string to kubectl, a
    YAML 1.1 value tag PyYAML cannot build."""
    crd = (FIXTURES / "validate" / "crds" / "widgets.yaml").read_text()
    crd = crd.replace(
        "              maxReplicas: {type: integer}",
        "              maxReplicas: {type: integer}\n"
        "              matchType:\n                type: string\n                enum:\n"
        "                - =\n                - '!='",
    )
    (tmp_path / "crd.yaml").write_text(crd)
    checker = validate.ObjectChecker(35, crds=schemasource.CrdSource([str(tmp_path)]))
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    assert findings(checker, {**widget, "spec": {"maxReplicas": 2, "matchType": "="}}) == []
    assert [r for r, _, _ in findings(checker, {**widget, "spec": {"maxReplicas": 2, "matchType": "=="}})] == ["enum"]
