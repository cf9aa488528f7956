"""The rules of built-in kinds, one module per API group as the apiserver's own
pkg/apis/<group>/validation packages: which function checks which kind. validate.py calls
`builtin_findings` for every built-in object; the pod rules (pod.py) run on every pod
template, built-in or not, and are called beside it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from generator.core import kinds as registry
from generator.core.findings import Finding

Check = Callable[[dict[Any, Any], tuple[int, ...]], list[Finding]]

# Which function checks which built-in kind is the registry's (core/kinds.py): named there, not
# imported, so a group's module is imported when a kind of it is first checked, and a run that
# sees no Ingress does not pay for networking.py at start-up.


def builtin_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """The group's rules for a built-in object, on the targeted ``releases``."""
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    entry = registry.builtin_entry(group, obj.get("kind"))
    return check_of(entry.rules)(obj, releases) if entry is not None and entry.rules else []


def check_of(ref: str) -> Check:
    """The function a registry entry's "module:function" names in this package."""
    check: Check = registry.resolve(__package__, ref)
    return check
