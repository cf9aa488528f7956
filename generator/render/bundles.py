"""The bundles under deploy/: which CRD flavour serves which Kubernetes releases, and the
objects of one, as the jsonnet library makes them (render.py checks and writes them; chart.py
templates them)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from generator.core.errors import Error
from generator.core.paths import OPERATOR_LIB
from generator.core.versions import KubeVersion
from generator.jobs.model import trainer_runtimes
from generator.jsonnet import engine
from generator.schema import crd as crdschema
from generator.schema import kubernetes
from generator.schema.crd import FIRST_V1, Target

BUNDLE_ENTRY = OPERATOR_LIB / "bundle.jsonnet"

FIRST_V1BETA1 = 11
# The default v1 bundle is for the clusters people run: from 1.19 the pod securityContext has the
# seccompProfile field that Pod Security admission checks. `--kube-version 1.16` (1.17, 1.18)
# renders the bundle for older clusters, with the seccomp annotation of that time instead.
DEFAULT_V1 = 19


@dataclass(frozen=True)
class Bundle:
    name: str  # the directory under deploy/, and the apiextensions version
    target: Target

    @property
    def minors(self) -> list[int]:
        """Every release the bundle is validated against."""
        return list(range(self.target.min_minor, self.target.max_minor + 1))


def for_releases(apiextensions: str, min_minor: int) -> Bundle:
    newest = kubernetes.newest()
    max_minor = newest if apiextensions == "v1" else FIRST_V1 - 1
    return Bundle(apiextensions, Target(apiextensions, min_minor, max_minor))


def default_bundles(kube_version: str | KubeVersion | None = None) -> list[Bundle]:
    """Both bundles (what deploy/ holds); with ``kube_version``, the one bundle that serves that
    release, for releases from it to the newest its apiextensions version is served on."""
    if kube_version is None:
        return [for_releases("v1", DEFAULT_V1), for_releases("v1beta1", FIRST_V1BETA1)]
    minor = kubernetes.require_known(kube_version)
    return [for_releases("v1" if minor >= FIRST_V1 else "v1beta1", minor)]


class BundleError(Error, ValueError):
    """The bundle's jsonnet failed; the message says where."""


def evaluate(bundle: Bundle, params: dict, keep_descriptions: bool = False) -> dict[str, list[dict]]:
    """The bundle's objects by file name (crd.yaml, jobs.yaml, operator.yaml), unchecked."""
    api = crdschema.api_data(bundle.target, keep_descriptions)
    try:
        data = engine.evaluate(
            BUNDLE_ENTRY,
            {"params": {**params, "apiextensions": bundle.name}},
            tla_strings={
                "apiJson": json.dumps(api),
                # evaluated only when asked for: most renders need no job library
                "trainerRuntimesJson": json.dumps(trainer_runtimes()) if params.get("trainerRuntimes") else "",
            },
        )
    except engine.JsonnetError as err:
        raise BundleError(f"{BUNDLE_ENTRY.relative_to(OPERATOR_LIB.parent.parent)}: jsonnet failed:\n{err}") from None
    files = {"crd.yaml": [data["crd"]]}
    if "jobs" in data:  # the jobs' namespace: `kubectl delete -f operator.yaml` keeps it
        files["jobs.yaml"] = sorted(data["jobs"].values(), key=kubernetes.apply_order)
    files["operator.yaml"] = sorted(data["operator"].values(), key=kubernetes.apply_order)
    return files
