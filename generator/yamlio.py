"""YAML out: fast (libyaml's emitter) and deterministic (keys sorted)."""

from __future__ import annotations

import yaml


class _Dumper(yaml.CSafeDumper):
    """libyaml's emitter; multi-line strings as literal blocks so ConfigMaps stay readable."""


def _str(dumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump_documents(objects: list[dict], header: str = "") -> str:
    """A multi-document YAML stream; keys sorted, so any engine gives the same bytes."""
    parts = [header] if header else []
    for obj in objects:
        parts.append("---\n")
        parts.append(yaml.dump(obj, Dumper=_Dumper, sort_keys=True, default_flow_style=False, width=1 << 20))
    return "".join(parts)
