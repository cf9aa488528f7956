"""Served versions and the messages of kinds: schemas/kubernetes/served.json (what a default
apiserver of each release leaves off, from DefaultAPIResourceConfigSource), the findings that
use it, and how a removed kind, a group's kinds, a partly known group and a document kubectl
cannot read are named."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest

from generator import validate
from generator.core.paths import KUBE_SCHEMA_DIR
from generator.schema import kubernetes
from generator.tools import extractors
from generator.validate.output import junit as junit_output
from generator.validate.output import tap as tap_output
from generator.validate.output import text as text_output

SERVED = KUBE_SCHEMA_DIR / "served.json"


def served() -> dict:
    return json.loads(SERVED.read_text())


def all_kinds() -> dict:
    return {minor: set(kubernetes.kinds(minor)) for minor in kubernetes.known_versions()}


def check(text: str, minor: str, tmp_path: Path, releases=None):
    path = tmp_path / "in.yaml"
    path.write_text(text)
    releases = [kubernetes.parse_version(r) for r in releases] if releases else None
    return validate.validate_files(
        [str(path)], validate.ObjectChecker(kubernetes.parse_version(minor), releases=releases)
    )


def messages(report, rule=None) -> list[str]:
    return [item.finding.message for item in report.findings if rule is None or item.finding.rule == rule]


# ---- the data ------------------------------------------------------------------------------


def configs(data: dict) -> dict:
    return {kubernetes.parse_version(source["release"]): source["config"] for source in data["sources"]}


# The releases whose DefaultAPIResourceConfigSource was read: 1.19 and 1.30 at kubernetes'
# development commits, 1.21-1.24 and 1.26 at tags vendored by other repositories.
READ = ("1.19", "1.21", "1.22", "1.23", "1.24", "1.26", "1.30")


def test_every_release_has_an_entry_and_the_sources_are_pinned():
    data = served()
    assert list(data["releases"]) == [str(minor) for minor in kubernetes.known_versions()]
    for source in data["sources"]:
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]) and re.fullmatch(r"[0-9a-f]{64}", source["sha256"])
        assert source["function"] == "DefaultAPIResourceConfigSource"
        assert source["path"] in extractors.SERVED_PATHS
        assert source["tag"] is None or re.fullmatch(r"v1\.\d+\.\d+", source["tag"])
    read = {minor for minor, entry in data["releases"].items() if entry["basis"] == "source"}
    assert read == {source["release"] for source in data["sources"]} == set(READ)
    assert {entry["basis"] for entry in data["releases"].values()} == {"source", "policy"}


def test_the_data_is_what_the_extractor_makes_of_the_recorded_readings():
    """A change of the kinds (a new release's document) or of the policy shows as a diff here."""
    data = served()
    made = extractors.served_defaults(all_kinds(), configs(data))
    assert made == {minor: entry["disabled"] for minor, entry in data["releases"].items()}


@pytest.mark.parametrize("release", READ)
def test_on_each_release_read_the_policy_gives_what_the_code_says(release):
    """The policy the other releases are decided by (alpha off; from 1.24 a beta kind new since
    1.24 off, unless legacyBetaEnabledByDefaultResources keeps it) gives on each release whose
    DefaultAPIResourceConfigSource was read, before 1.24 and after, the code's verdict."""
    data = served()
    # the release's own reading decides nothing: filed under a release no document has, its
    # legacyBetaEnabledByDefaultResources still counts, as for the releases not read
    others = {(minor if str(minor) != release else -1): config for minor, config in configs(data).items()}
    by_policy = extractors.served_defaults(all_kinds(), others)
    assert by_policy[release] == data["releases"][release]["disabled"]
    assert by_policy[release]  # not vacuous


def test_what_the_releases_leave_off():
    off = kubernetes.off_by_default
    assert ("resource.k8s.io/v1alpha2", "ResourceClass") in off(kubernetes.parse_version("1.27"))
    assert ("batch/v2alpha1", "CronJob") in off(kubernetes.parse_version("1.11"))
    # a beta before 1.24 is on; a beta new since 1.24 is off (KEP-3136)
    assert ("batch/v1beta1", "CronJob") not in off(kubernetes.parse_version("1.24"))
    assert ("admissionregistration.k8s.io/v1beta1", "ValidatingAdmissionPolicy") in off(
        kubernetes.parse_version("1.28")
    )
    assert ("networking.k8s.io/v1beta1", "ServiceCIDR") in off(kubernetes.parse_version("1.31"))
    # flowcontrol v1beta3 (new in 1.26) stays on: legacyBetaEnabledByDefaultResources
    for minor in ("1.26", "1.29", "1.31"):
        assert ("flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema") not in off(kubernetes.parse_version(minor))
    # GA is served
    assert not any(extractors.version_stage(av) == "ga" for av, _ in off(kubernetes.parse_version("1.37")))


def test_the_recorded_readings_are_the_pinned_files_when_copies_are_given():
    """Needs the upstream files (not kept here): K8S_CONFIG_GO names copies of the recorded files
    at the recorded commits, or folders of copies (os.pathsep between): a folder holds each
    source's file at <tag>/<path> (<commit>/<path> for one read at a development commit,
    extractors.served_copy_path), and every Go file in it must be a recorded reading."""
    data = served()
    given = [Path(path) for path in os.environ.get("K8S_CONFIG_GO", "").split(os.pathsep) if path]
    if not given:
        wanted = ", ".join(f"{s['path']} at {s['tag'] or s['commit'][:12]}" for s in data["sources"])
        pytest.skip(f"K8S_CONFIG_GO is not set (the files are {wanted})")
    by_sha = {source["sha256"]: source for source in data["sources"]}
    copies, checked = [], set()
    for path in given:
        if path.is_dir():
            copies += sorted(path.rglob("*.go"))
            # every recorded reading has its copy in the folder, where served_copy_path puts it
            missing = [s["release"] for s in data["sources"] if not extractors.served_copy_path(path, s).is_file()]
            assert not missing, f"{path} lacks the copies of the readings of {missing}"
        else:
            copies.append(path)
    for copy in copies:
        text = extractors.config_source_text(copy.read_text())
        source = by_sha.get(hashlib.sha256(text.encode()).hexdigest())
        assert source is not None, f"{copy} is none of the recorded files"
        assert extractors.resource_config(text) == source["config"]
        checked.add(source["release"])
    assert checked


def test_the_selfsubjectreview_beta_is_off_where_the_code_disables_it():
    """KEP-3325 made authentication.k8s.io/v1beta1 (SelfSubjectReview) beta in 1.27, and KEP-3136
    left it off: the 1.30 reading lists it in betaAPIGroupVersionsDisabledByDefault
    (`authenticationv1beta1.SchemeGroupVersion,`), no release enables its resource
    (legacyBetaEnabledByDefaultResources), and 1.27-1.29 follow that rule."""
    data = served()
    [reading] = [s for s in data["sources"] if s["release"] == "1.30"]
    assert "authentication.k8s.io/v1beta1" in reading["config"]["DisableVersions"]
    enabled = {av for source in data["sources"] for av, _ in source["config"]["EnableResources"]}
    assert "authentication.k8s.io/v1beta1" not in enabled
    for minor in ("1.27", "1.28", "1.29", "1.30"):
        assert "SelfSubjectReview" in data["releases"][minor]["disabled"]["authentication.k8s.io/v1beta1"]


def test_a_folder_keeps_a_copy_under_its_tag_or_its_commit(tmp_path):
    tagged = {"tag": "v1.27.16", "commit": "c" * 40, "path": "pkg/controlplane/instance.go"}
    assert extractors.served_copy_path(tmp_path, tagged) == tmp_path / "v1.27.16/pkg/controlplane/instance.go"
    untagged = {**tagged, "tag": None}
    assert extractors.served_copy_path(tmp_path, untagged) == tmp_path / ("c" * 40) / "pkg/controlplane/instance.go"


def test_a_text_naming_a_version_its_release_lacks_is_refused():
    kinds = {kubernetes.parse_version("1.19"): {("v1", "Pod")}}
    with pytest.raises(ValueError, match="lacks"):
        extractors.served_document(
            {"1.19": GO}, kinds, sources=({"release": "1.19", "path": "p", "commit": "c", "tag": None},)
        )


# ---- the extractor -------------------------------------------------------------------------

# A small Go file written for these tests: the shapes resource_config must read (an older
# release's explicit lists, aliases of both API trees, a comment after a trailing comma, a list
# named with `...`, resources with WithResource).
GO = """package master

import (
	"fmt"

	appsv1beta1 "k8s.io/api/apps/v1beta1"
	apiv1 "k8s.io/api/core/v1"
	extensionsapiv1beta1 "k8s.io/api/extensions/v1beta1"
	schedulingv1alpha1 "k8s.io/api/scheduling/v1alpha1"
	flowcontrolv1beta3 "k8s.io/kubernetes/pkg/apis/flowcontrol/v1beta3"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
)

func other() {}

var (
	legacy = []schema.GroupVersionResource{
		flowcontrolv1beta3.SchemeGroupVersion.WithResource("flowschemas"), // remove in 1.32
	}
)

// DefaultAPIResourceConfigSource returns default configuration for an APIResource.
func DefaultAPIResourceConfigSource() *serverstorage.ResourceConfig {
	ret := serverstorage.NewResourceConfig()
	// ret.EnableVersions(schedulingv1alpha1.SchemeGroupVersion) in a comment is no call
	ret.EnableVersions(
		apiv1.SchemeGroupVersion,
		extensionsapiv1beta1.SchemeGroupVersion,
	)
	ret.DisableVersions(appsv1beta1.SchemeGroupVersion, flowcontrolv1beta3.SchemeGroupVersion)
	ret.EnableResources(legacy...)
	ret.DisableResources(extensionsapiv1beta1.SchemeGroupVersion.WithResource("deployments"))
	return ret
}
"""


def test_the_extractor_reads_the_calls_lists_and_aliases():
    assert extractors.resource_config(GO) == {
        "EnableVersions": ["v1", "extensions/v1beta1"],
        "DisableVersions": ["apps/v1beta1", "flowcontrol.apiserver.k8s.io/v1beta3"],
        "EnableResources": [["flowcontrol.apiserver.k8s.io/v1beta3", "flowschemas"]],
        "DisableResources": [["extensions/v1beta1", "deployments"]],
    }
    text = extractors.config_source_text(GO)
    assert text.startswith("import (\n") and "var (\n\tlegacy" in text and "func other" not in text
    assert text.rstrip().endswith("return ret\n}")


def test_the_extractor_refuses_what_it_cannot_read():
    with pytest.raises(ValueError, match="cannot read"):
        extractors.resource_config(GO.replace("apiv1.SchemeGroupVersion,", "somewhere.Else(),"))
    with pytest.raises(ValueError, match="API_PACKAGE_GROUPS"):
        extractors.resource_config(GO.replace('"k8s.io/api/core/v1"', '"k8s.io/api/newgroup/v1"'))
    with pytest.raises(ValueError, match="no list"):
        extractors.resource_config(GO.replace("ret.EnableResources(legacy...)", "ret.EnableResources(gone...)"))


def test_the_policy_and_a_read_release():
    kinds = {
        23: {("x.k8s.io/v1alpha1", "A"), ("x.k8s.io/v1beta1", "Old")},
        24: {("x.k8s.io/v1alpha1", "A"), ("x.k8s.io/v1beta1", "Old"), ("x.k8s.io/v1beta1", "New")},
        25: {("x.k8s.io/v1beta1", "Old"), ("x.k8s.io/v1beta1", "New"), ("y.k8s.io/v1", "B"), ("y.k8s.io/v1", "BList")},
    }
    config = {
        "EnableVersions": [],
        "DisableVersions": ["x.k8s.io/v1beta1"],
        "EnableResources": [["x.k8s.io/v1beta1", "olds"]],
        "DisableResources": [],
    }
    made = extractors.served_defaults(kinds, {25: config})
    assert made["23"] == {"x.k8s.io/v1alpha1": ["A"]}
    assert made["24"] == {"x.k8s.io/v1alpha1": ["A"], "x.k8s.io/v1beta1": ["New"]}
    # the read release: the code's word, a GA version it does not enable included
    assert made["25"] == {"x.k8s.io/v1beta1": ["New"], "y.k8s.io/v1": ["B"]}


def test_resources_are_guessed_as_apimachinery_guesses_them():
    guess = extractors.guess_resource
    assert [guess(k) for k in ("FlowSchema", "PriorityLevelConfiguration", "Ingress", "NetworkPolicy")] == [
        "flowschemas",
        "prioritylevelconfigurations",
        "ingresses",
        "networkpolicies",
    ]
    assert guess("Endpoints") == "endpoints" and guess("Gateway") == "gatewaies"


# ---- the findings --------------------------------------------------------------------------

VAP_BETA = """apiVersion: admissionregistration.k8s.io/v1beta1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations: [{expression: "object.spec.replicas <= 5"}]
"""


def test_a_version_off_by_default_names_the_flag_and_the_served_version(tmp_path):
    report = check(VAP_BETA, "1.30", tmp_path)
    [message] = messages(report, "api-not-served")
    assert "--runtime-config=admissionregistration.k8s.io/v1beta1=true" in message
    assert "use admissionregistration.k8s.io/v1," in message and "KEP-3136" in message
    alpha = "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClass\nmetadata: {name: g}\ndriverName: d\n"
    [message] = messages(check(alpha, "1.27", tmp_path), "api-not-served")
    assert "alpha versions are off by default" in message and "use " not in message


def test_a_beta_on_before_1_24_is_not_reported(tmp_path):
    cron = (
        "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  schedule: '* * * * *'\n"
        "  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: Never\n"
        "          containers: [{name: a, image: busybox}]\n"
    )
    assert not messages(check(cron, "1.24", tmp_path), "api-not-served")


def test_a_bundle_checked_against_several_releases_names_the_one_that_leaves_the_kind_off(tmp_path):
    """1.28 and 1.29 leave admissionregistration.k8s.io/v1beta1 off; a bundle for 1.28-1.29 hears
    it for the newest."""
    [message] = messages(check(VAP_BETA, "1.29", tmp_path, releases=["1.28", "1.29"]), "api-not-served")
    assert "Kubernetes 1.29 apiserver" in message


def test_a_removed_kind_says_the_last_release_and_its_successor(tmp_path):
    psp = "apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata: {name: p}\nspec: {}\n"
    [message] = messages(check(psp, "1.30", tmp_path))
    assert "removed in Kubernetes 1.25" in message and "the last release to serve it: 1.24" in message
    assert "Pod Security admission" in message
    # at a version it never had: the group's history, not its list of kinds
    [message] = messages(check(psp.replace("v1beta1", "v1"), "1.30", tmp_path))
    assert "policy/v1beta1 PodSecurityPolicy was removed in Kubernetes 1.25" in message
    assert "DeleteOptions" not in message and "Eviction" not in message


def test_a_removed_kind_points_to_the_version_served_by_default(tmp_path):
    flow = "apiVersion: flowcontrol.apiserver.k8s.io/v1alpha1\nkind: FlowSchema\nmetadata: {name: f}\n"
    [message] = messages(check(flow, "1.30", tmp_path))
    assert message.endswith("use flowcontrol.apiserver.k8s.io/v1")
    # never a version the release leaves off: 1.29 has VolumeAttributesClass only as v1alpha1
    vac = "apiVersion: storage.k8s.io/v1beta1\nkind: VolumeAttributesClass\nmetadata: {name: v}\ndriverName: d\n"
    [message] = messages(check(vac, "1.29", tmp_path))
    # v1beta1 (1.31) is a beta of after 1.24: defined, and off by default in every release (KEP-3136)
    assert message == (
        "storage.k8s.io/v1beta1 VolumeAttributesClass is defined from Kubernetes 1.31 but served by default by no "
        "release this tool knows (it needs --runtime-config=storage.k8s.io/v1beta1=true)"
    )


def test_a_groups_kinds_are_the_ones_a_manifest_creates(tmp_path):
    [message] = messages(check("apiVersion: batch/v1\nkind: Foo\nmetadata: {name: a}\n", "1.30", tmp_path))
    assert message.endswith("its kinds are CronJob, Job")
    [message] = messages(check("apiVersion: policy/v1\nkind: Evictin\nmetadata: {name: a}\n", "1.30", tmp_path))
    assert "did you mean 'Eviction'" in message


@pytest.mark.parametrize(
    "api_version, kind",
    [("paddlepaddle.org/v1", "TrainingJob"), ("batch.paddlepaddle.org/v1alpha1", "SampleSet")],
)
def test_a_group_known_only_partly_does_not_claim_a_kind_does_not_exist(tmp_path, api_version, kind):
    """EDL's TrainingJob (paddlepaddle.org) and PaddleFlow's SampleSet (batch.paddlepaddle.org)
    live in groups this project ships kinds of: an unchecked kind, not "group has no kind"."""
    report = check(f"apiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: a}}\n", "1.30", tmp_path)
    assert [item.finding.rule for item in report.findings] == ["unknown-kind"]
    assert report.findings[0].finding.severity == "warning"
    assert "has no kind" not in report.findings[0].finding.message


def test_a_syntax_error_names_its_document(tmp_path):
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: ConfigMap\nmetadata:\n  labels: [a\n"
    report = check(text, "1.30", tmp_path)
    out = text_output.write(report)
    assert "?/?" not in out and ": document 2: (document): YAML syntax error" in out
    assert "in.yaml document 2\n" in tap_output.write(report) + "\n"
    assert 'name="document 2"' in junit_output.write(report)
