"""The pod rules as a plan over the fields that exist.

Every pod rule is a check that names the fields it reads (its triggers): a pod spec check
(``spec, path, ctx``) runs when the pod spec has one of its ``fields``, or a container of any
group has one of its ``container_fields``; a container check (``c, here, group, ctx``) runs for
each container of its ``groups`` that has one of its ``fields``. A check whose triggers are
``ALWAYS`` runs every time (what it reports may be an absence: an image that is missing).

A pod's plan, the checks to run for its spec and for each of its containers, depends only on
its shape (the pod spec's keys and each container's group and keys), so it is made once per
shape and reused for every pod of that shape: most documents of a repository share a few shapes,
and the checks of absent fields cost nothing. A check without its triggers finds nothing (the
promise tests/test_pod_plan.py holds every check to on every fixture), so running only the
planned ones reports exactly what running them all would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from generator.core.findings import Finding
from generator.validate.rules.base import as_list

GROUPS = ("initContainers", "containers", "ephemeralContainers")
ALWAYS = None  # the triggers of a check that runs every time


class PodContext:
    """What a check may need beyond the object it checks: the pod spec and its path, the targeted
    releases, whether it is a template (not a Pod), the Pod's name, and the volume names a mount
    may use (the spec's and the claims the controller adds), computed when first asked for."""

    __slots__ = ("spec", "path", "releases", "template", "pod_name", "claims", "_volumes")

    def __init__(
        self,
        spec: dict[Any, Any],
        path: str,
        releases: tuple[int, ...],
        template: bool,
        pod_name: Any,
        claims: frozenset[str],
    ) -> None:
        self.spec, self.path, self.releases = spec, path, releases
        self.template, self.pod_name, self.claims = template, pod_name, claims
        self._volumes: set[Any] | None = None

    @property
    def volumes(self) -> set[Any]:
        if self._volumes is None:
            self._volumes = {
                v.get("name")
                for v in as_list(self.spec.get("volumes"))
                if isinstance(v, dict) and isinstance(v.get("name"), str)
            } | self.claims
        return self._volumes


SpecFunction = Callable[[dict[Any, Any], str, PodContext], list[Finding]]
ContainerFunction = Callable[[dict[Any, Any], str, str, PodContext], list[Finding]]


class SpecCheck(NamedTuple):
    fields: tuple[str, ...] | None  # pod spec keys that make it run (ALWAYS: None)
    run: SpecFunction
    container_fields: tuple[str, ...] = ()  # or container keys, in any group


class ContainerCheck(NamedTuple):
    groups: tuple[str, ...]  # the container groups it checks
    fields: tuple[str, ...] | None  # container keys that make it run (ALWAYS: None)
    run: ContainerFunction


class Plan(NamedTuple):
    spec: tuple[SpecFunction, ...]
    containers: tuple[tuple[ContainerFunction, ...], ...]  # one per container, in the order walked


class Planner:
    """The plans of one rulebook of checks, made once per pod shape (at most ``limit`` shapes kept:
    a stream of ever new shapes is planned each time, not remembered without bound)."""

    def __init__(
        self, spec_checks: tuple[SpecCheck, ...], container_checks: tuple[ContainerCheck, ...], limit: int = 4096
    ) -> None:
        self.spec_checks, self.container_checks, self.limit = spec_checks, container_checks, limit
        self._plans: dict[tuple[Any, ...], Plan] = {}

    def prepare(
        self, spec: dict[Any, Any], everything: bool = False
    ) -> tuple[list[tuple[str, int, dict[Any, Any]]], Plan]:
        """The spec's containers ((group, index, container) for each container that is a
        mapping) and the checks for the spec and
        each container; ``everything``: every check of each level, whatever the fields (what the
        plan must equal in findings). The shape is the keys in their order (a tuple is quicker to
        make than a set; the same keys in another order are another shape, planned alike), taken
        in the same pass that gathers the containers."""
        containers: list[tuple[str, int, dict[Any, Any]]] = []
        shapes: list[tuple[str, tuple[Any, ...]]] = []
        for group in GROUPS:
            items = spec.get(group)
            if isinstance(items, list):
                for i, c in enumerate(items):
                    if isinstance(c, dict):
                        containers.append((group, i, c))
                        shapes.append((group, tuple(c)))
        shape = (tuple(spec), tuple(shapes))
        if everything:
            return containers, self._make(shape, everything=True)
        plan = self._plans.get(shape)
        if plan is None:
            plan = self._make(shape)
            if len(self._plans) >= self.limit:
                self._plans.clear()
            self._plans[shape] = plan
        return containers, plan

    def _make(self, shape: Any, everything: bool = False) -> Plan:
        spec_keys = frozenset(shape[0])
        container_shapes = [(group, frozenset(keys)) for group, keys in shape[1]]
        in_containers = frozenset().union(*(keys for _, keys in container_shapes))
        spec = tuple(
            check.run
            for check in self.spec_checks
            if everything
            or check.fields is ALWAYS
            or not spec_keys.isdisjoint(check.fields)
            or not in_containers.isdisjoint(check.container_fields)
        )
        containers = tuple(
            tuple(
                check.run
                for check in self.container_checks
                if group in check.groups and (everything or check.fields is ALWAYS or not keys.isdisjoint(check.fields))
            )
            for group, keys in container_shapes
        )
        return Plan(spec, containers)
