"""Owner `pod`: in-tree volume types whose kubelet plugin Kubernetes removed.

The apiserver still accepts them (the API fields stay), with a warning (pkg/api/pod/warnings.go
GetWarningsForPodTemplate and pkg/api/persistentvolume/util.go GetWarningsForPersistentVolume,
kubernetes/kubernetes): "deprecated in v1.X, non-functional in v1.Y+". From v1.Y the kubelet has
no plugin to mount them, so the pod never starts (ContainerCreating, "no volume plugin
matched"): an error there, and a warning in the releases where it is deprecated but works.
"""

from __future__ import annotations

from typing import Any

from generator.core.findings import Finding, child, joined
from generator.core.versions import KubeVersion
from generator.validate.rules.base import as_dict, error, warning
from generator.validate.rules.pod import pod_templates  # every pod template a kind holds

# volume field -> (deprecated since, non-functional since): the minors of warnings.go's messages
IN_TREE = {
    "photonPersistentDisk": (11, 16),
    "scaleIO": (16, 22),
    "flocker": (22, 25),
    "storageos": (22, 25),  # the JSON name of StorageOSVolumeSource is lower-case
    "quobyte": (22, 25),
    "glusterfs": (25, 26),
    "cephfs": (28, 31),
    "rbd": (28, 31),
}


def _source_findings(source: dict[Any, Any], path: str, releases: list[int]) -> list[Finding]:
    out = []
    for field, (deprecated, removed) in IN_TREE.items():
        if source.get(field) is None:
            continue
        here = child(path, field)
        gone, since = KubeVersion(removed), KubeVersion(deprecated)
        if max(releases) >= removed:
            message = (
                f"the in-tree {field} volume plugin is non-functional from Kubernetes {gone} (deprecated in {since}): "
                f"the apiserver accepts the object with a warning, but no kubelet can mount it and "
                f"the pod never starts; use the storage's CSI driver"
            )
            out.append(error(here, "volume-plugin", message))
        elif max(releases) >= deprecated:
            message = (
                f"the in-tree {field} volume plugin is deprecated since Kubernetes {since} and non-functional "
                f"from {gone}; move to the storage's CSI driver"
            )
            out.append(warning(here, "volume-plugin", message))
    return out


def in_tree_volume_findings(
    obj: dict[Any, Any], releases: list[int], templates: list[Any] | None = None
) -> list[Finding]:
    """Removed in-tree volume types in every pod template of ``obj`` (``templates``: pod_templates(obj),
    where the caller has them) and in a PersistentVolume."""
    out = []
    if obj.get("kind") == "PersistentVolume" and obj.get("apiVersion") == "v1":
        out += _source_findings(as_dict(obj.get("spec")), "spec", releases)
    # (path of the template, the template: metadata and spec)
    for path, template in pod_templates(obj) if templates is None else templates:
        volumes = as_dict(template.get("spec")).get("volumes")
        if not isinstance(volumes, list):
            continue
        for i, volume in enumerate(volumes):
            if isinstance(volume, dict) and not IN_TREE.keys().isdisjoint(volume):  # most volumes: none of these
                out += _source_findings(volume, f"{joined(path, 'spec')}.volumes[{i}]", releases)
    return out
