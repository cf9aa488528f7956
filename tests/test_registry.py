"""The registry of kinds (generator/core/kinds.py) is the one table keyed by kind: every code
reference in it imports, and help loads only what it prints."""

from __future__ import annotations

import subprocess
import sys

from generator.core.paths import REPO


def _imported_by(*argv: str) -> set[str]:
    """The modules of this package that `python -m generator ARGV` imports (-X importtime)."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "generator", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    names = set()
    for line in run.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name.startswith("generator"):
                names.add(name)
    return names


def test_job_help_imports_no_validator():
    # `job --help` prints flags and the runtimes' names: the validator (schemas, rules, CEL) and
    # the YAML writer are for a job being rendered.
    imported = _imported_by("job", "--help")
    assert "generator.jobs.model" in imported  # the measure sees what the subcommand imports
    heavy = sorted(
        m for m in imported if m.startswith(("generator.validate", "generator.render", "generator.kubeyaml.dump"))
    )
    assert heavy == [], f"`job --help` imports {heavy}"


def test_every_reference_of_the_registry_imports():
    # Rules, admission webhooks, controller models, pod-template finders and converters are named
    # as "module:function" strings: a rename must fail here, not in a user's run.
    from generator.core import kinds

    refs = kinds.references()
    assert len(refs) > 40
    missing = []
    for package, ref in refs:
        try:
            function = kinds.resolve(package, ref)
        except (ImportError, AttributeError) as err:
            missing.append(f"{package}.{ref}: {err}")
            continue
        if not callable(function):
            missing.append(f"{package}.{ref}: not callable")
    assert missing == []


def test_the_registry_says_where_each_kind_keeps_its_pods():
    # the pod rules see a kind's pods only through the registry's finder
    from generator.validate.rules.pod import pod_templates

    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "spec": {"replicatedJobs": [{"name": "a", "template": {"spec": {"template": {"spec": {}}}}}]},
    }
    assert [p for p, _ in pod_templates(jobset)] == ["spec.replicatedJobs[0].template.spec.template"]
    pytorch = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "spec": {"pytorchReplicaSpecs": {"Worker": {"template": {}}}},
    }
    assert [p for p, _ in pod_templates(pytorch)] == ["spec.pytorchReplicaSpecs.Worker.template"]


# The modules that decide by kind (which rules, which pods, which restarts, which conversion,
# which flags): every decision keyed by a kind of the registry is the registry's. The rules of one
# API group (validate/rules/<group>.py), the controller models (local/controllers/) and the
# verdicts across objects (validate/across.py) are about their kinds by nature: not here.
DECISION_MODULES = (
    "generator/validate/checker.py",
    "generator/validate/rules/pod.py",
    "generator/validate/rules/podsecurity.py",
    "generator/local/pods.py",
    "generator/local/run.py",
    "generator/jobs/convert.py",
    "generator/jobs/model.py",
    "generator/schema/projects.py",
    "generator/tools/thirdparty_extract.py",
    "generator/tools/kueue_extract.py",
    "generator/cli/job.py",
)


def _registry_names() -> set[str]:
    """The registry's custom kinds, their API groups and its projects, as code would spell them."""
    from generator.core import kinds

    builtin = {e.kind for e in kinds.KINDS if e.builtin}
    # "trainer" is also a role (Volcano's task, Trainer's step) and "paddle-operator" the default
    # runtime's name: words that decide nothing of a project alone
    names = {p.name for p in kinds.PROJECTS} - {"trainer", "paddle-operator"}
    for e in kinds.custom_kinds():
        names.add(e.api.rpartition("/")[0])
        if e.kind not in builtin:  # Volcano's Job is also batch/v1's: the word alone decides nothing
            names.add(e.kind)
    names |= {api.rpartition("/")[0] for api, _ in kinds.LEGACY}
    return names


def _decisions(path) -> list[tuple[int, str]]:
    """(line, string) of every string constant in the module's code that is not a docstring and
    not part of a message (an f-string)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    in_fstrings = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and id(node) not in in_fstrings
    ]


def test_no_kind_keyed_table_outside_the_registry():
    names = _registry_names()
    assert {"JobSet", "TrainJob", "PaddleJob", "jobset.x-k8s.io", "batch.volcano.sh", "jobset"} <= names
    found = []
    for module in DECISION_MODULES:
        for line, text in _decisions(REPO / module):
            if text in names or any(text.startswith(f"{name}/") for name in names):
                found.append(f"{module}:{line}: {text!r}")
    assert found == [], "kind-keyed decisions outside core/kinds.py:\n" + "\n".join(found)
