"""Owner `kueue`: an object that asks Kueue to queue it (the label kueue.x-k8s.io/queue-name) is
queued only when the Kueue integration of its kind is enabled (the Configuration's
`integrations.frameworks`); otherwise Kueue ignores it and it runs at once, unqueued, which is not
what the label asked for. Which integrations each Kueue release has and enables is data
extracted from Kueue's source (schemas/kueue/integrations.json, generator/tools/kueue_extract.py).

The verdict depends on the cluster's Kueue configuration, which no manifest shows: it is a
warning that names the assumption, Kueue's newest release read, installed with the
configuration its own manifests ship (config/components/manager/controller_manager_config.yaml).
"""

from __future__ import annotations

import functools
import json

from generator.core.findings import Finding, child
from generator.core.paths import SCHEMA_DIR
from generator.validate.rules.base import as_dict, warning

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
GROUP_NAME_LABEL = "kueue.x-k8s.io/pod-group-name"
GROUP_TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count"
DATA = SCHEMA_DIR / "kueue" / "integrations.json"


@functools.cache
def _data() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


def newest() -> str:
    """The newest Kueue release the data holds ("0.19")."""
    return max(_data()["releases"], key=lambda r: tuple(int(p) for p in r.split(".")))


def framework_of(api_version: str, kind: str) -> str | None:
    """The Kueue integration (framework name) that admits ``kind`` of ``api_version``'s group."""
    group = api_version.rpartition("/")[0]
    for name, entry in _data()["frameworks"].items():
        if entry["kind"] == kind and entry["apiVersion"].rpartition("/")[0] == group:
            return name
    return None


def enabled(framework: str, release: str | None = None) -> bool:
    """Whether Kueue ``release`` (the newest by default), installed from its own manifests, runs
    ``framework``."""
    return framework in _data()["releases"][release or newest()]["shipped"]


def queue_findings(obj: dict, release: str | None = None) -> list[Finding]:
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
