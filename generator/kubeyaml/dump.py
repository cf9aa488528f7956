"""YAML out: fast (libyaml's emitter), deterministic (keys sorted), and read back the same by
kubectl and by YAML 1.1 tools: a string either would read as something else is quoted."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import yaml
from yaml.nodes import ScalarNode

from generator.core import text
from generator.kubeyaml import scalars


class _Dumper(yaml.CSafeDumper):
    """libyaml's emitter; multi-line strings as literal blocks so ConfigMaps stay readable."""

    def resolve(self, kind: object, value: object, implicit: tuple[bool, bool] | bool) -> str:
        # The emitter writes a string plain only if the plain spelling resolves to str; asking
        # kubectl's resolver too makes `y`, `1e3`, `08` come out quoted.
        if kind is ScalarNode and isinstance(implicit, tuple) and implicit[0] and isinstance(value, str):
            return scalars.plain_tag(value)
        tag: str = super().resolve(kind, value, implicit)
        return tag


def _str(dumper: Any, value: str) -> Any:
    if text.is_command(value):  # on one line, and `##[` escaped below: no line a CI log would run
        style: str | None = '"'
    else:
        style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _defused(dumped: str) -> str:
    """YAML whose strings that would run as a GitHub workflow command are double-quoted (_str),
    one line each: the one form left, `##[`, is only in those, where `#\\x23[` reads back as the
    same string (a double-quoted escape, go-yaml's and PyYAML's)."""
    return dumped.replace("##[", "#\\x23[") if "##[" in dumped else dumped


_Dumper.add_representer(str, _str)


def dump_documents(
    objects: list[dict[str, Any]], header: str = "", comment: Callable[[dict[str, Any]], str] | None = None
) -> str:
    """A multi-document YAML stream; keys sorted, so any engine gives the same bytes.
    ``comment(obj)`` may give lines to put at the top of each document."""
    parts = [header] if header else []
    for obj in objects:
        parts.append("---\n")
        if comment is not None:
            parts.append(comment(obj))
        parts.append(_defused(yaml.dump(obj, Dumper=_Dumper, sort_keys=True, default_flow_style=False, width=1 << 20)))
    return "".join(parts)


def dump_json(objects: list[dict[str, Any]]) -> str:
    """What `kubectl get -o json` prints: one object as itself, several as a v1 List, which
    kubectl, kubectl apply -f and `validate` read back (a bare JSON array is none of those)."""
    if len(objects) == 1:
        doc = objects[0]
    else:
        doc = {"apiVersion": "v1", "kind": "List", "items": objects, "metadata": {"resourceVersion": ""}}
    return json.dumps(doc, indent=4, sort_keys=True, ensure_ascii=False) + "\n"
