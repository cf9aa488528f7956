"""What keeps the rules cheap without changing what they say: the built-in registry names its
checks (imported when a kind is first checked), and the shortcuts give the long way's findings."""

from __future__ import annotations

import subprocess
import sys

from generator.core import grammar
from generator.core import kinds as registry
from generator.validate.rules import base, builtin

from .conftest import REPO


def test_every_builtin_registry_entry_names_a_check():
    """The registry holds "module:function" names, not functions: a typo would surface only when
    that kind is first checked, so each one is resolved here."""
    for entry in registry.KINDS:
        if entry.rules:
            assert callable(builtin.check_of(entry.rules)), f"{entry.api}/{entry.kind}: {entry.rules}"


def test_validate_imports_no_group_module_it_does_not_need():
    """A group's rules are imported with its first object: a run without Ingresses or CronJobs
    does not load networking.py or batch.py (nor zoneinfo) at start-up."""
    code = "import sys, generator.validate.checker; print(sorted(m for m in sys.modules if m in WANTED))"
    code = code.replace(
        "WANTED", repr({"generator.validate.rules.networking", "generator.validate.rules.batch", "zoneinfo"})
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_nonnegative_fields_is_nonnegative_for_each_field():
    obj = {"a": -1, "b": 0, "c": True, "d": "x", "e": -3}
    expected = [f for field in "abcde" for f in base.nonnegative(obj.get(field), f"spec.{field}", "deployment")]
    assert base.nonnegative_fields(obj, tuple("abcde"), "spec", "deployment") == expected
    assert [f.path for f in expected] == ["spec.a", "spec.e"]


def test_a_lazy_pattern_is_compiled_once():
    pattern = grammar.lazy_pattern(r"^a+$")
    assert pattern() is pattern() and pattern().match("aaa")
