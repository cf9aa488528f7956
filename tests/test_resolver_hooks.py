"""PyYAML's path-resolver hooks stay out of libyaml's composer.

libyaml's composer (PyYAML's C extension) calls ``self.descend_resolver(parent, index)`` and
``self.ascend_resolver()`` for every node it composes. PyYAML's own (BaseResolver) are Python
methods that do nothing when no path resolver is registered, as none is here: some 10,000 Python
calls for one composed Deployment list. tree.Loader puts C callables in their place, so the
composer calls no Python code for them. These tests count the Python frames of a composition: none
may be a resolver hook, whatever the document holds.
"""

from __future__ import annotations

import sys

import pytest

from generator.kubeyaml import compose as yamlcompose
from generator.kubeyaml import tree

HOOKS = ("descend_resolver", "ascend_resolver")

DOCUMENT = "".join(
    f"- name: item-{i}\n  labels: {{app: a{i}, tier: [x, y, {{z: {i}}}]}}\n  ports: [{i}, {i + 1}]\n"
    for i in range(200)
)


def _python_calls(work) -> dict[str, int]:
    """Python function calls made while ``work()`` runs, by function name."""
    calls: dict[str, int] = {}

    def profile(frame, event, arg):
        if event == "call":
            name = frame.f_code.co_name
            calls[name] = calls.get(name, 0) + 1

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return calls


def _nodes(node) -> int:
    count, stack = 0, [node]
    while stack:
        current = stack.pop()
        count += 1
        if isinstance(current.value, list):
            for item in current.value:
                stack.extend(item if isinstance(item, tuple) else (item,))
    return count


def test_the_document_is_big_enough_to_count():
    (root,) = tree.compose(DOCUMENT)
    assert _nodes(root) > 3000  # the hooks would run once per node


@pytest.mark.parametrize("hook", HOOKS)
def test_the_loader_has_the_hook_under_its_own_name(hook):
    # the composer looks the hook up by this name: a misspelt attribute leaves PyYAML's in place
    assert getattr(tree.Loader, hook) is not getattr(tree.yaml.resolver.BaseResolver, hook)
    assert not hasattr(tree.Loader, hook.replace("resolver", "resolve_tagr"))


def test_composing_calls_no_resolver_hook():
    calls = _python_calls(lambda: tree.compose(DOCUMENT))
    assert {hook: calls.get(hook, 0) for hook in HOOKS} == dict.fromkeys(HOOKS, 0)


def test_reading_with_libyaml_calls_no_resolver_hook():
    calls = _python_calls(lambda: yamlcompose.read(DOCUMENT, 1, 0))
    assert {hook: calls.get(hook, 0) for hook in HOOKS} == dict.fromkeys(HOOKS, 0)


def test_reading_a_redefined_anchor_calls_no_resolver_hook():
    # PyYAML's Python composer reads such a document (compose._AnchorsLoader): it calls the hooks
    # from Python, and they must be the C ones there too
    text = "a: &x 1\nb: &x 2\nc: *x\n" + "d:\n" + "".join(f"  - {{k: {i}}}\n" for i in range(100))
    calls = _python_calls(lambda: yamlcompose.read(text, 1, 0))
    assert calls.get("compose_node", 0) > 100  # the Python composer did run
    assert {hook: calls.get(hook, 0) for hook in HOOKS} == dict.fromkeys(HOOKS, 0)
