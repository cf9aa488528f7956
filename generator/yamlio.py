"""YAML out (fast, deterministic) and positions in YAML text (only when there is an error)."""

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


def compose(text: str) -> list:
    """The node trees of every document, with their line marks (slow: for error reports only)."""
    return list(yaml.compose_all(text, Loader=yaml.CSafeLoader))


def locate(documents: list, document: int, path: list) -> tuple[int, int] | None:
    """(line, column), 1-based, of ``path`` (keys and indexes) in ``documents[document]``.

    Walks as deep as the path exists and returns the deepest node found, so a
    missing field points at its parent.
    """
    if document >= len(documents) or documents[document] is None:
        return None
    node = documents[document]
    mark = node.start_mark
    for part in path:
        found = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == part:
                    found, mark = value, key.start_mark
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            found = node.value[part]
            mark = found.start_mark
        if found is None:
            break
        node = found
    return mark.line + 1, mark.column + 1
