"""Owner `storage`: the apiserver's validation of StorageClasses beyond their schema
(k8s.io/kubernetes pkg/apis/storage/validation/validation.go, ValidateStorageClass)."""

from __future__ import annotations

from generator.core.findings import Finding, child
from generator.core.grammar import label_key_problem
from generator.validate.rules.base import as_dict, error

RECLAIM_POLICIES = ("Delete", "Retain")  # validateReclaimPolicy: Recycle is not for classes

BINDING_MODES = ("Immediate", "WaitForFirstConsumer")

MAX_PARAMETERS = 512  # validateParameters: maxProvisionerParameterLen (256 KiB in all) and count


def storage_class_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """validateProvisioner (required, a qualified name), validateReclaimPolicy,
    validateVolumeBindingMode, validateParameters."""
    out = []
    provisioner = obj.get("provisioner")
    if not provisioner:
        message = "provisioner is required (e.g. ebs.csi.aws.com, kubernetes.io/no-provisioner)"
        out.append(error("provisioner", "storage-class", message))
    elif isinstance(provisioner, str):
        problem = label_key_problem(provisioner.lower(), "provisioner")
        if problem:
            out.append(error("provisioner", "storage-class", problem))
    policy = obj.get("reclaimPolicy")
    if isinstance(policy, str) and policy not in RECLAIM_POLICIES:
        message = f"reclaimPolicy {policy!r} must be Delete or Retain (Recycle is not supported for a class)"
        out.append(error("reclaimPolicy", "storage-class", message))
    mode = obj.get("volumeBindingMode")
    if isinstance(mode, str) and mode not in BINDING_MODES:
        message = f"volumeBindingMode {mode!r} must be Immediate or WaitForFirstConsumer"
        out.append(error("volumeBindingMode", "storage-class", message))
    parameters = as_dict(obj.get("parameters"))
    for key in parameters:
        if not key:
            out.append(error(child("parameters", key), "storage-class", "a parameter name must not be empty"))
    if len(parameters) > MAX_PARAMETERS:
        message = f"{len(parameters)} parameters; a StorageClass has at most {MAX_PARAMETERS}"
        out.append(error("parameters", "storage-class", message))
    return out
