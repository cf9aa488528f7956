"""The rulebook as `validate --list-rules` prints it: text or JSON."""

from __future__ import annotations

import json
from collections.abc import Callable

from generator.core import rulebook
from generator.validate.output.common import DOCS


def rules_text() -> str:
    width = max(len(rule_id) for rule_id in rulebook.RULES)
    lines = [f"{'RULE':<{width}}  {'OWNER':<9}  {'SEVERITY':<16}  SUMMARY"]
    for rule in rulebook.RULES.values():
        lines.append(f"{rule.id:<{width}}  {rule.owner:<9}  {' or '.join(rule.severities):<16}  {rule.summary}")
    return "\n".join(lines) + "\n"


def rules_json() -> str:
    body = [
        {
            "id": r.id,
            "owner": r.owner,
            "severities": list(r.severities),
            "summary": r.summary,
            "help": f"{DOCS}#{r.anchor}",
        }
        for r in rulebook.RULES.values()
    ]
    return json.dumps(body, indent=2) + "\n"


RULE_LISTS: dict[str, Callable[[], str]] = {"text": rules_text, "json": rules_json}
