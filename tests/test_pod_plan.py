"""The pod rules run as a plan over the fields that exist (generator/validate/rules/pod_plan.py):
a check runs only when the pod spec or a container has one of the fields it names. That is only
right if a check without those fields finds nothing; these tests hold every check to it on every
pod spec of the fixtures (with the fields taken away), and the plan to the findings of running
every check."""

from __future__ import annotations

import itertools

import pytest
import yaml

from generator.validate.rules import pod
from generator.validate.rules.pod_plan import ALWAYS, GROUPS, PodContext

from .conftest import FIXTURES

RELEASES = ((31,), (24,), (28, 35), (35,))


def _documents() -> list[dict]:
    out = []
    for path in sorted(
        p for folder in ("validate", "realworld", "corpus") for p in (FIXTURES / folder).rglob("*.y*ml")
    ):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue  # a symbolic link of the corpus's that points nowhere
        try:
            docs = list(yaml.load_all(text, Loader=yaml.CSafeLoader))
        except yaml.YAMLError:
            docs = []  # the reader's fixtures: not every one is YAML; their documents one by one
            for part in text.split("\n---"):
                try:
                    docs.append(yaml.load(part, Loader=yaml.CSafeLoader))
                except yaml.YAMLError:
                    continue
        out += [d for d in docs if isinstance(d, dict)]
    return out


def _pod_specs() -> list[tuple[str, dict, bool]]:
    """(path, pod spec, template) of every pod template of the fixtures (the rulebook's, the
    real-world and the corpus files)."""
    specs = []
    for doc in _documents():
        for path, template in pod.pod_templates(doc):
            spec = template.get("spec") if isinstance(template, dict) else None
            if isinstance(spec, dict):
                specs.append((f"{path}.spec" if path else "spec", spec, doc.get("kind") != "Pod"))
    return specs


SPECS = _pod_specs()


def test_the_fixtures_hold_pod_specs_of_many_shapes():
    assert len(SPECS) > 800
    shapes = {frozenset(spec) for _, spec, _ in SPECS}
    assert len(shapes) > 150


@pytest.mark.parametrize("releases", RELEASES, ids=str)
def test_the_plan_finds_what_every_check_finds(releases):
    for path, spec, template in SPECS:
        planned = pod.pod_spec_findings(spec, path, template, releases=releases, pod_name="p")
        every = pod.pod_spec_findings(spec, path, template, releases=releases, pod_name="p", everything=True)
        assert sorted(set(planned)) == sorted(set(every)), path


def _without(spec: dict, fields, container_fields) -> dict:
    """``spec`` without ``fields`` and its containers without ``container_fields``."""
    out = {k: v for k, v in spec.items() if k not in (fields or ())}
    for group in GROUPS:
        if isinstance(out.get(group), list):
            out[group] = [
                {k: v for k, v in c.items() if k not in container_fields} if isinstance(c, dict) else c
                for c in out[group]
            ]
    return out


def test_a_spec_check_without_its_fields_finds_nothing():
    checked = 0
    for check, (path, spec, template), releases in itertools.product(pod.PLANNER.spec_checks, SPECS, RELEASES):
        if check.fields is ALWAYS:
            continue
        bare = _without(spec, check.fields, check.container_fields)
        ctx = PodContext(bare, path, releases, template, "p", frozenset())
        assert check.run(bare, path, ctx) == [], (check.run.__qualname__, path)
        checked += 1
    assert checked > 1000


def test_a_container_check_without_its_fields_finds_nothing():
    checked = 0
    for check, (path, spec, template), releases in itertools.product(pod.PLANNER.container_checks, SPECS, RELEASES):
        if check.fields is ALWAYS:
            continue
        ctx = PodContext(spec, path, releases, template, "p", frozenset())
        for group in check.groups:
            for i, c in enumerate(spec.get(group) or ()):
                if isinstance(c, dict):
                    bare = {k: v for k, v in c.items() if k not in check.fields}
                    assert check.run(bare, f"{path}.{group}[{i}]", group, ctx) == [], check.run.__qualname__
                    checked += 1
    assert checked > 1000


def test_a_plan_is_made_once_per_shape_and_the_plans_kept_are_bounded():
    planner = pod.PLANNER
    spec = {"containers": [{"name": "a", "image": "b"}]}
    assert planner.prepare(spec)[1] is planner.prepare({"containers": [{"name": "y", "image": "x"}]})[1]
    small = type(planner)(planner.spec_checks, planner.container_checks, limit=3)
    for n in range(10):
        small.prepare({**spec, f"extra{n}": 1})
    assert len(small._plans) <= 3
