"""Our JSON Schemas in the editors' own tools: yaml-language-server (what VS Code's YAML extension
runs), driven over the Language Server Protocol, and check-jsonschema.

`make` installs yaml-language-server from the npm registry into .venv/node; without npm the LSP
tests skip (the README's setup needs npm there too).
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from generator.core.paths import DEPLOY

from .conftest import REPO

SERVER = REPO / ".venv" / "node" / "node_modules" / ".bin" / "yaml-language-server"
needs_server = pytest.mark.skipif(not SERVER.exists(), reason="yaml-language-server is not installed (make)")
SETTINGS = {"validate": True, "schemaStore": {"enable": False}, "format": {"enable": False}, "schemas": {}}


class LanguageServer:
    """A minimal LSP client: open a document, wait for its diagnostics."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [str(SERVER), "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.inbox: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.request(
            1,
            "initialize",
            {"processId": None, "rootUri": None, "capabilities": {"workspace": {"configuration": True}}},
        )
        self.wait(lambda m: m.get("id") == 1)
        self.notify("initialized", {})
        self.notify("workspace/didChangeConfiguration", {"settings": {"yaml": SETTINGS}})

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                byte = stream.read(1)
                if not byte:
                    return
                header += byte
            length = next(
                int(h.split(b":")[1]) for h in header.split(b"\r\n") if h.lower().startswith(b"content-length")
            )
            self.inbox.put(json.loads(stream.read(length)))

    def _send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def request(self, number: int, method: str, params: dict) -> None:
        self._send({"id": number, "method": method, "params": params})

    def notify(self, method: str, params: dict) -> None:
        self._send({"method": method, "params": params})

    def wait(self, wanted, timeout: float = 30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = self.inbox.get(timeout=0.5)
            except queue.Empty:
                continue
            if message.get("method") == "workspace/configuration":  # the server asks for its settings
                self._send({"id": message["id"], "result": [SETTINGS] * len(message["params"]["items"])})
            elif wanted(message):
                return message
        raise TimeoutError("no answer from yaml-language-server")

    def diagnostics(self, path: Path, text: str) -> list[tuple[int, str]]:
        """(line, message) of every diagnostic for ``text`` opened as ``path``."""
        uri = path.resolve().as_uri()
        self.notify(
            "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}
        )
        found = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        return [(d["range"]["start"]["line"] + 1, d["message"]) for d in found["params"]["diagnostics"]]

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture(scope="module")
def server():
    lsp = LanguageServer()
    yield lsp
    lsp.close()


EXAMPLES = sorted((DEPLOY / "examples").glob("*.yaml"))


@needs_server
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_rendered_example_is_clean_in_the_editor(server, path):
    text = path.read_text()
    from generator.core import kinds

    # the groups whose kinds have a published JSON Schema (the registry's), which the modeline names
    groups = {entry.api.rpartition("/")[0] for entry in kinds.custom_kinds() if entry.published}
    assert {"batch.paddlepaddle.org", "batch.volcano.sh", "kubeflow.org", "jobset.x-k8s.io"} <= groups
    custom = any(f"apiVersion: {g}/" in text for g in groups)
    assert ("# yaml-language-server: $schema=" in text) == custom
    assert server.diagnostics(path, text) == []


@needs_server
def test_a_typo_in_a_mixed_file_is_marked_on_its_line_only(server):
    path = DEPLOY / "examples" / "data-nfs.yaml"  # PersistentVolume + PersistentVolumeClaim + PaddleJob
    text = path.read_text()
    assert text.count("\n---\n") >= 2
    bad = text.replace("cleanPodPolicy:", "cleanPolicy:")
    line = bad.splitlines().index(next(x for x in bad.splitlines() if "cleanPolicy:" in x)) + 1
    found = server.diagnostics(path.with_name("typo.yaml"), bad)
    assert found == [(line, "Property cleanPolicy is not allowed.")]


@needs_server
def test_a_wrong_enum_value_is_marked(server):
    path = DEPLOY / "examples" / "wide-and-deep.yaml"
    bad = path.read_text().replace("cleanPodPolicy: Never", "cleanPodPolicy: OnFailed")  # the seeds' mistake
    found = server.diagnostics(path.with_name("enum.yaml"), bad)
    assert len(found) == 1 and found[0][0] == 10 and "OnCompletion" in found[0][1], found


def test_job_writes_the_modeline_when_asked():
    done = subprocess.run(
        [sys.executable, "-m", "generator", "job", "demo", "--image", "registry.example.com/demo:1", "--workers", "1",
         "--schema-modeline", "https://example.com/schemas/"],
        capture_output=True, text=True, check=True, cwd=REPO,
    )  # fmt: skip
    assert done.stdout.startswith(
        "---\n# yaml-language-server: $schema=https://example.com/schemas/batch.paddlepaddle.org/paddlejob_v1.json\n"
    )


CHECK_JSONSCHEMA = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))


@pytest.mark.skipif(CHECK_JSONSCHEMA is None, reason="check-jsonschema is not installed")
def test_check_jsonschema_on_single_document_files(tmp_path):
    """check-jsonschema reads one document per file: the README says so and shows this usage."""
    schema = REPO / "schemas" / "jsonschema" / "batch.paddlepaddle.org" / "paddlejob_v1.json"
    text = (DEPLOY / "examples" / "wide-and-deep.yaml").read_text()
    good = tmp_path / "job.yaml"
    good.write_text(text)
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("cleanPodPolicy:", "cleanPolicy:"))

    def run(path: Path) -> subprocess.CompletedProcess:
        argv = [CHECK_JSONSCHEMA, "--schemafile", str(schema), str(path)]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120)

    assert run(good).returncode == 0, run(good).stdout
    done = run(bad)
    assert done.returncode == 1 and "cleanPolicy" in done.stdout
