"""Messages of the checks of built-in kinds that a fixture's expectations (line, rule, path)
cannot hold: what a served version, an integer bound or a default says."""

from __future__ import annotations

from generator import validate

MAP = {
    "apiVersion": "admissionregistration.k8s.io/v1beta1",
    "kind": "MutatingAdmissionPolicy",
    "metadata": {"name": "m"},
    "spec": {},
}


def _messages(obj: dict, minor: int) -> list[str]:
    return [f.message for f in validate.ObjectChecker(minor).check(obj)]


def test_a_beta_version_defined_but_off_by_default_is_not_said_to_be_served():
    """MutatingAdmissionPolicy v1beta1 is defined from 1.34 and off by default there (KEP-3136):
    on 1.33 the message must not read as if 1.34 served it."""
    (message,) = _messages(MAP, 33)
    assert "served by default" in message and "--runtime-config=admissionregistration.k8s.io/v1beta1=true" in message
    assert "is not served before Kubernetes 1.34" not in message
    (message,) = _messages(MAP, 34)
    assert "not served by a default Kubernetes 1.34 apiserver" in message


def test_an_integer_beyond_its_format_names_the_go_type():
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {
            "replicas": 3000000000,
            "selector": {"matchLabels": {"a": "b"}},
            "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        },
    }
    found = validate.ObjectChecker(34).check(deployment)
    assert [(f.path, f.rule) for f in found] == [("spec.replicas", "type")]
    assert "cannot unmarshal number 3000000000" in found[0].message and "int32" in found[0].message
    deployment["spec"]["replicas"] = 2**31 - 1
    assert validate.ObjectChecker(34).check(deployment) == []
