"""Owner `kueue`: an object that asks Kueue to queue it (the label kueue.x-k8s.io/queue-name) is
queued only when the Kueue integration of its kind is enabled (the Configuration's
`integrations.frameworks`); otherwise Kueue ignores it and it runs at once, unqueued, which is not
what the label asked for. Which integrations each Kueue release has and enables is data
extracted from Kueue's source (schemas/kueue/integrations.json, generator/tools/kueue_extract.py).

The verdict depends on the cluster's Kueue configuration, which no manifest shows: it is a
warning that names the assumption, the Kueue release given (`--kueue-version`; the newest read by
default), installed with the configuration its own manifests ship
(config/components/manager/controller_manager_config.yaml). The same release decides whether
MultiKueue can dispatch a job that names it in managedBy (multikueue_findings).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from generator.core.findings import Finding, child
from generator.core.paths import SCHEMA_DIR
from generator.validate.rules.base import as_dict, warning

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
GROUP_NAME_LABEL = "kueue.x-k8s.io/pod-group-name"
GROUP_TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count"
DATA = SCHEMA_DIR / "kueue" / "integrations.json"


@functools.cache
def _data() -> dict[Any, Any]:
    data: dict[Any, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(p) for p in release.split("."))


def releases() -> tuple[str, ...]:
    """The Kueue releases whose integrations this tool has read, oldest first ("0.6" ... "0.19")."""
    return tuple(sorted(_data()["releases"], key=_key))


def newest() -> str:
    """The newest Kueue release the data holds ("0.19")."""
    return releases()[-1]


def release(value: Any) -> str:
    """A Kueue release this tool knows, from "0.18", "v0.18.6" or (0, 18): the one parse of
    `job --kueue-version`, `validate --kueue-version` and the Python API's releases["kueue"].
    ValueError names the releases known."""
    text = value if isinstance(value, str) else "{}.{}".format(*value)
    text = text.removeprefix("v")
    parts = text.split(".")
    if len(parts) == 3 and all(p.isdigit() for p in parts):  # v0.18.6: its minor release
        text = ".".join(parts[:2])
    if text not in releases():
        raise ValueError(f"{value!r} is not a Kueue release this tool knows: {', '.join(releases())}")
    return text


def framework_of(api_version: str, kind: str) -> str | None:
    """The Kueue integration (framework name) that admits ``kind`` of ``api_version``'s group."""
    group = api_version.rpartition("/")[0]
    for name, entry in _data()["frameworks"].items():
        if entry["kind"] == kind and entry["apiVersion"].rpartition("/")[0] == group:
            return str(name)
    return None


def enabled(framework: str, release: str | None = None) -> bool:
    """Whether Kueue ``release`` (the newest by default), installed from its own manifests, runs
    ``framework``."""
    return framework in _data()["releases"][release or newest()]["shipped"]


def queue_findings(obj: dict[Any, Any], release: str | None = None) -> list[Finding]:
    """The queue label on a kind Kueue ``release`` does not queue as installed, and a pod group
    Kueue's pod webhook refuses."""
    meta = as_dict(obj.get("metadata"))
    labels = as_dict(meta.get("labels"))
    queue = labels.get(QUEUE_LABEL)
    if not isinstance(queue, str):
        return []
    release = release or newest()
    entry = _data()["releases"][release]
    api, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
    path = child("metadata.labels", QUEUE_LABEL)
    framework = framework_of(api, kind)
    source = f"Kueue {entry['tag']}"
    out = []
    if framework is None or framework not in entry["registered"]:
        message = (
            f"{source} has no integration for {api} {kind}, so it never queues this object for LocalQueue "
            f"{queue!r}: it runs at once, unqueued (unless the cluster's Kueue configuration names it in "
            "integrations.externalFrameworks with a controller of its own); use a kind Kueue queues, or drop the label"
        )
        out.append(warning(path, "kueue-integration", message))
    elif framework not in entry["shipped"]:
        message = (
            f"the {framework} integration is off in the configuration {source} installs "
            "(config/components/manager/controller_manager_config.yaml; a Configuration naming no frameworks "
            f"enables only batch/job), so Kueue ignores the label and the {kind} runs at once, unqueued: "
            f"add {framework!r} to integrations.frameworks in the kueue-manager-config ConfigMap, "
            "or leave this warning if your Kueue enables it"
        )
        out.append(warning(path, "kueue-integration", message))
    elif framework == "pod":
        annotations = as_dict(meta.get("annotations"))
        if (GROUP_NAME_LABEL in labels) != (GROUP_TOTAL_COUNT in annotations):
            message = (
                f"a pod group needs both the label {GROUP_NAME_LABEL} and the annotation {GROUP_TOTAL_COUNT} "
                f"(the pod count of the group): {source}'s pod webhook refuses the pod with one of them "
                "(pod_webhook.go validatePodGroupMetadata)"
            )
            where = child("metadata.labels", GROUP_NAME_LABEL) if GROUP_NAME_LABEL in labels else path
            out.append(warning(where, "kueue-pod-group", message))
    return out


MULTIKUEUE = "kueue.x-k8s.io/multikueue"


def managed_by(obj: dict[Any, Any]) -> Any:
    """The managedBy a job names: spec.managedBy, or a Kubeflow job's spec.runPolicy.managedBy."""
    spec = obj.get("spec")
    if type(spec) is not dict:
        return None
    if "managedBy" in spec:
        return spec["managedBy"]
    run = spec.get("runPolicy")
    return run.get("managedBy") if type(run) is dict else None


def multikueue_problem(obj: dict[Any, Any], release: str | None = None) -> str | None:
    """Why MultiKueue of Kueue ``release`` (the newest by default) never dispatches ``obj``, which
    names it in managedBy: no integration for its kind, or no MultiKueue adapter for that
    integration in that release (core/kinds.py KUEUE_MULTIKUEUE). Its own controller leaves it
    alone (managedBy), so nothing runs it. None when MultiKueue can, or managedBy is another's."""
    if managed_by(obj) != MULTIKUEUE:
        return None
    from generator.core.kinds import KUEUE_MULTIKUEUE

    release = release or newest()
    entry = _data()["releases"][release]
    api, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
    framework = framework_of(api, kind)
    adapter = KUEUE_MULTIKUEUE.get(framework or "")
    if framework is not None and framework in entry["registered"] and adapter and _key(adapter[0]) <= _key(release):
        return None
    if framework is None or framework not in entry["registered"]:
        why = f"Kueue {entry['tag']} has no integration for {api} {kind}"
    else:
        why = f"Kueue {entry['tag']}'s MultiKueue has no adapter for {framework}"
    since = f" (from Kueue {adapter[0]}: {adapter[1]})" if adapter else ""
    return (
        f"managedBy {MULTIKUEUE}: {why}{since}, so MultiKueue never dispatches the {kind} and its own "
        "controller leaves it alone: nothing would run it"
    )


def multikueue_findings(obj: dict[Any, Any], release: str | None = None) -> list[Finding]:
    """multikueue_problem as validate reports it: a warning (the cluster's Kueue decides; the
    release judged is --kueue-version's)."""
    problem = multikueue_problem(obj, release)
    if problem is None:
        return []
    # the field managed_by read: spec.managedBy where the spec has one, else a Kubeflow job's runPolicy's
    path = "spec.managedBy" if "managedBy" in as_dict(obj.get("spec")) else "spec.runPolicy.managedBy"
    return [warning(path, "kueue-multikueue", f"{problem}; run a Kueue that has it (--kueue-version: the one you run)")]
