"""One type per version flag, parsed once, the same from the command line and the Python API."""

from __future__ import annotations

import pickle

import pytest

from generator.core.errors import InputError
from generator.core.versions import KubeVersion, Release
from generator.jobs.model import JobError, Role, TrainingJob
from generator.schema import kubernetes, projects


@pytest.mark.parametrize("text", ["1.30", "v1.30", "v1.30.2", " 1.30 ", KubeVersion(30), 30])
def test_a_kubernetes_version_is_written_as_people_write_it(text):
    version = KubeVersion.parse(text)
    assert (
        version == 30 and str(version) == "1.30" and f"{version}" == "1.30" and repr(version) == "KubeVersion('1.30')"
    )
    assert f"Kubernetes {version}" == "Kubernetes 1.30"  # never 1.1.30
    assert pickle.loads(pickle.dumps(version)) == version


@pytest.mark.parametrize("text", ["30", "2.30", "1.", "1.x", "", "1.30.2.1", None, True, -1, "1.99999"])
def test_what_is_not_a_kubernetes_version_is_bad_input(text):
    with pytest.raises(InputError):
        KubeVersion.parse(text)


def test_the_newest_release_is_named_once_and_is_a_version():
    assert kubernetes.newest() == kubernetes.known_versions()[-1]
    assert isinstance(kubernetes.newest(), KubeVersion)
    with pytest.raises(kubernetes.UnknownVersionError, match="not known here"):
        kubernetes.require_known("1.5")


def test_a_project_release_compares_as_numbers_and_prints_as_written():
    assert Release.parse("v1.10.2") > Release.parse("1.9") == (1, 9)
    assert str(Release(1, 9)) == "1.9" and f"{Release(0, 6)}" == "0.6"
    assert pickle.loads(pickle.dumps(Release(1, 9))) == Release(1, 9)
    assert isinstance(projects.newest("volcano"), Release)
    with pytest.raises(projects.UnknownReleaseError, match="like 1.9"):
        projects.parse_release("volcano", "one.nine")


def test_the_python_api_takes_the_version_as_the_cli_does():
    job = TrainingJob("demo", "registry.baidubce.com/paddlepaddle/paddle:3.3.1", worker=Role(2))
    assert job.render("volcano", "1.30") == job.render("volcano", KubeVersion(30))
    with pytest.raises(JobError, match="kube_version: '30.1' is not a Kubernetes version; write it as 1.MINOR"):
        job.render("volcano", "30.1")
    with pytest.raises((JobError, InputError), match="not known here"):
        job.render("volcano", "1.5")
