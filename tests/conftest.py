"""Shared fixtures: one default render per test session, and YAML helpers."""

from __future__ import annotations

import os
import shutil
import stat
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


def tree(root: Path) -> dict[str, tuple[int, bytes | str]]:
    """Every path under root (links not followed): its mode and content, or a link's target."""
    out = {}
    for path in sorted(root.rglob("*")):
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            body: bytes | str = os.readlink(path)
        elif stat.S_ISREG(st.st_mode):
            body = path.read_bytes()
        else:
            body = b""
        out[str(path.relative_to(root))] = (st.st_mode, body)
    return out


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
    """Runs a test with each of kubeyaml.load's readers: rapidyaml's fast path (where installed) and
    libyaml's alone (PADDLEJOB_MANIFESTS_YAML=libyaml, or no rapidyaml)."""
    from generator.kubeyaml import fast, load

    if request.param == "rapidyaml":
        if not fast.AVAILABLE:
            pytest.skip("rapidyaml is not installed")
        monkeypatch.setattr(load, "fast_reader", fast.read)
        monkeypatch.setattr(load, "FAST_AFTER", 0)  # every document, however small the file
        monkeypatch.delenv("PADDLEJOB_MANIFESTS_YAML", raising=False)
    else:
        monkeypatch.setattr(load, "fast_reader", None)
        monkeypatch.setenv("PADDLEJOB_MANIFESTS_YAML", "libyaml")
    return request.param


# The two lanes (CONTRIBUTING.md): `make test` runs everything; `make test-fast` leaves out what is
# marked slow: the files that train with Paddle, run Helm or pre-commit, build the wheel, clone
# the repository, kill renders or fuzz, and the few long tests of the other files.
SLOW_FILES = frozenset(
    {
        "test_local.py",  # Paddle trains the rendered jobs
        "test_elastic.py",  # Paddle and a real etcd: a 3-node elastic job, one node killed
        "test_build_sources.py",  # kubectl kustomize and Helm 3 and 4
        "test_chart.py",  # Helm 3 and 4
        "test_safety_values.py",  # Helm 3 and 4
        "test_installed.py",  # the wheel, built and installed
        "test_readme.py",  # a fresh clone
        "test_integrations.py",  # pre-commit, kubectl, the official client
        "test_consumers.py",
        "test_fuzz.py",
        "test_render_kill.py",
        "test_safety_render.py",  # concurrent renders, locks held
        "test_hostile_input.py",  # each input in a process of its own, timed and measured
        "test_realworld.py",  # kubectl over the real-world corpus
        "test_gitops.py",  # kubectl kustomize, whole renders
        "test_local_input.py",  # every field of every job replaced by odd values
        "test_editors.py",  # yaml-language-server (node)
    }
)
SLOW_TESTS = frozenset(
    {
        "test_every_node_of_every_fixture_replaced_by_each_odd_value_never_crashes",
        "test_both_readers_agree_on_fuzzed_inputs",
        "test_both_readers_agree_on_every_file_and_the_fast_one_reads_most",
        "test_the_slim_objects_a_stream_keeps_give_the_same_verdicts",  # 50 s: the whole corpus, twice
        "test_positions_are_libyamls_or_none",  # 16 s: 172,000 paths
        "test_a_collective_jobset_trains",  # Paddle trains
        "test_a_parameter_server_jobset_trains_and_its_servers_stop",  # Paddle trains
    }
)


def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.name in SLOW_FILES or item.originalname in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
