"""Shared fixtures: one default render per test session, and YAML helpers."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml

from generator.render import bundles
from generator.render import pipeline as render

REPO = Path(__file__).resolve().parent.parent
# derived schemas cached by this test run stay in a folder of its own (schemacache.py)
os.environ.setdefault("PADDLEJOB_MANIFESTS_CACHE", tempfile.mkdtemp(prefix="paddlejob-manifests-cache-"))
FIXTURES = Path(__file__).resolve().parent / "fixtures"


KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")


def kubectl_decode_error(path: Path) -> str | None:
    """kubectl's complaint about reading ``path`` (offline, no cluster), or None if it reads it."""
    done = subprocess.run(
        [KUBECTL, "label", "--local", "-f", str(path), "probe=yes", "-o", "json"],
        capture_output=True, text=True, timeout=60, env={"KUBECONFIG": os.devnull, "PATH": os.defpath},
    )  # fmt: skip
    return None if done.returncode == 0 else done.stderr


def load_all(text: str) -> list[dict]:
    return [doc for doc in yaml.load_all(text, Loader=yaml.CSafeLoader) if doc is not None]


@pytest.fixture(scope="session")
def rendered() -> render.Rendered:
    """The default render (what `make manifests` writes), in memory."""
    return render.render(bundles.default_bundles(), {})


@pytest.fixture(scope="session")
def objects(rendered) -> dict[str, list[dict]]:
    """Rendered objects by file, e.g. objects['v1/operator.yaml']."""
    return {name: load_all(text) for name, text in rendered.files.items() if name.endswith(".yaml")}


def by_kind(docs: list[dict], kind: str) -> list[dict]:
    return [doc for doc in docs if doc["kind"] == kind]


@pytest.fixture(params=["rapidyaml", "libyaml"])
def yaml_reader(request, monkeypatch) -> str:
    """Runs a test with each of yamlload's readers: rapidyaml's fast path (where installed) and
    libyaml's alone (PADDLEJOB_MANIFESTS_YAML=libyaml, or no rapidyaml)."""
    from generator.kubeyaml import fast as yamlfast
    from generator.kubeyaml import load as yamlload

    if request.param == "rapidyaml":
        if not yamlfast.AVAILABLE:
            pytest.skip("rapidyaml is not installed")
        monkeypatch.setattr(yamlload, "fast_reader", yamlfast.read)
        monkeypatch.setattr(yamlload, "FAST_AFTER", 0)  # every document, however small the file
        monkeypatch.delenv("PADDLEJOB_MANIFESTS_YAML", raising=False)
    else:
        monkeypatch.setattr(yamlload, "fast_reader", None)
        monkeypatch.setenv("PADDLEJOB_MANIFESTS_YAML", "libyaml")
    return request.param
