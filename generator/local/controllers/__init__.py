"""The controllers' models: the pods each controller makes of the kinds it acts on (one module per
runtime builder, named in core/kinds.py) and, in the same module, its lifecycle: what the
controller does with the rendered objects on success, a crashed container, a lost node, at the
deadline, on suspend, after finishing, when an elastic job has shrunk and under Kueue (issue 34).

A module's ``lifecycle(objects)`` answers each scenario of ``SCENARIOS`` from the objects alone,
every answer citing the controller's source (file and function, at the release docs/runtimes.md
names). `local` runs the answers it can keep (the verdict, the deletion at the TTL); the render
writes them as docs/runtimes.md's lifecycle table (render/publish.py); `job` refuses what they say
a flag cannot do (libsonnet/paddlejob/lifecycle.libsonnet, the same sources)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

# scenario -> (what happens to the job, the `job` flags the table renders it with). Every job of the
# table is `job demo --image img --workers 2 --command "python -m paddle.distributed.launch train.py"`
# with these flags (TABLE_JOB).
SCENARIOS: dict[str, tuple[str, tuple[str, ...]]] = {
    "success": ("every trainer exits 0", ()),
    "crash": ("a trainer's container exits 3, with a retry limit", ("--backoff-limit", "1")),
    "lost node": ("a trainer's node is lost (its pod deleted)", ()),
    "deadline": ("the job is still running at its deadline", ("--deadline", "60")),
    "suspend": ("created suspended, then resumed", ("--suspend",)),
    "finished": ("after the job has finished", ("--ttl", "60")),
    "shrink": (
        "an elastic job that lost a worker and goes on with --min-workers",
        ("--elastic", "--etcd", "etcd.example:2379", "--min-workers", "1"),
    ),
    "kueue": (
        "queued by Kueue and dispatched by MultiKueue",
        ("--kueue-queue", "team", "--managed-by", "kueue.x-k8s.io/multikueue"),
    ),
}
TABLE_JOB = ("--workers", "2", "--command", "python -m paddle.distributed.launch train.py")


@dataclass(frozen=True)
class Answer:
    """What the controller does in one scenario: ``outcome`` in a sentence, ``source`` the file
    and function that do it. ``phase`` is the verdict `local` reports (Completed, Failed, Running)
    where the scenario ends in one; ``ttl`` the seconds after finishing at which the controller
    deletes the job, with ``deleted`` (the job and what it owns) and ``left`` (what stays)."""

    outcome: str
    source: str
    phase: str = ""
    ttl: int | None = None
    deleted: tuple[str, ...] = ()
    left: tuple[str, ...] = ()


# The modules in the order their kinds are looked for: the kind that holds the job's verdict first
# (a TrainJob's JobSet, a JobSet's Jobs and a kubernetes job's StatefulSet are the others' parts).
_ORDER = ("trainer", "jobset", "volcano", "kubeflow", "operator", "kubernetes")


def named(obj: dict) -> str:
    return f"{obj.get('kind')} {(obj.get('metadata') or {}).get('name')}"


def of_kind(objects: list[dict], kind: str, group: str = "") -> list[dict]:
    return [
        o
        for o in objects
        if isinstance(o, dict)
        and o.get("kind") == kind
        and (not group or str(o.get("apiVersion", "")).rpartition("/")[0] == group)
    ]


def answers(objects: list[dict]) -> dict[str, Answer]:
    """The lifecycle of the job ``objects`` hold, from the model of the controller of its main kind;
    {} when no kind of theirs has one."""
    from generator.core import kinds as registry

    found = set()
    for obj in objects:
        entry = registry.lookup(obj.get("apiVersion"), obj.get("kind")) if isinstance(obj, dict) else None
        if entry is not None and entry.local and ":" in entry.local:
            found.add(entry.local.split(":")[0])
    for module in _ORDER:
        if module in found:
            return importlib.import_module(f"{__name__}.{module}").lifecycle(objects)
    return {}


def _description(flags: tuple[str, ...], workers: int = 2, command: str = TABLE_JOB[-1]):
    """The TrainingJob `job demo --image img --workers N --command C FLAGS` describes (the flags of
    SCENARIOS only)."""
    from generator.jobs.model import Elastic, Role, TrainingJob

    given = dict(zip(flags[::2], flags[1::2], strict=False)) if "--suspend" not in flags else {}
    job = TrainingJob("demo", "img", worker=Role(workers), command=command.split())
    if "--suspend" in flags:
        job.suspend = True
    for flag, field in (("--backoff-limit", "backoff_limit"), ("--deadline", "deadline"), ("--ttl", "ttl")):
        if flag in given:
            setattr(job, field, int(given[flag]))
    if "--elastic" in flags:
        rest = flags[flags.index("--elastic") + 1 :]
        more = dict(zip(rest[::2], rest[1::2], strict=False))
        job.elastic = Elastic(etcd=more.get("--etcd"), min_replicas=int(more["--min-workers"]))
    job.kueue_queue = given.get("--kueue-queue")
    job.managed_by = given.get("--managed-by")
    return job


def scenario_answer(runtime: str, scenario: str, **job) -> tuple[list[dict] | None, Answer]:
    """The objects `job` renders for ``runtime`` with the scenario's flags, and the model's answer;
    (None, the refusal) where `job` refuses the flags, in its own words."""
    from generator.jobs.model import JobError

    try:
        objects = _description(SCENARIOS[scenario][1], **job).render(runtime)
    except JobError as err:
        return None, Answer(f"refused by `job`: {err}", "the refusal names it")  # noqa: E501
    found = answers(objects).get(scenario)
    return objects, found or Answer("does not apply to this job", "")


def table() -> str:
    """docs/runtimes.md's lifecycle table: runtime x scenario (its flags) -> outcome, source."""
    from generator.jobs.model import runtimes

    rows = ["| runtime | scenario (`job` flags) | outcome | controller source |", "| --- | --- | --- | --- |"]
    for runtime in runtimes():
        for scenario, (what, flags) in SCENARIOS.items():
            _, answer = scenario_answer(runtime, scenario)
            shown = f"`{' '.join(flags)}`" if flags else "no flag"
            cell = answer.outcome.replace("|", "\\|").replace("\n", " ")
            phase = f" **{answer.phase}**." if answer.phase and not cell.startswith("refused") else ""
            source = f"`{answer.source}`" if answer.source and cell[:7] != "refused" else answer.source
            rows.append(f"| `{runtime}` | {scenario}: {what} ({shown}) | {cell}.{phase} | {source} |")
    return "\n".join(rows)
