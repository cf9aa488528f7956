"""Read manifests fast, and notice what kubectl's strict decoding would refuse.

The fast path is libyaml's parser with PyYAML's safe constructor, plus two
cheap checks per mapping: duplicate keys (kubectl rejects them) and keys that
YAML 1.1 turns into booleans or numbers (`on:`, `1:`).  Timestamps stay
strings, as they do for kubectl.  Tags that construct objects (`!!python/...`,
`!!set`, `!Custom`) are refused but the document is still read, as plain data.

Problems carry the position of the node; the path of the field is worked out
later, and only for documents that have a finding (see ``locate``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml


@dataclass
class Problem:
    line: int  # 1-based
    column: int  # 1-based
    rule: str
    message: str
    severity: str = "error"


@dataclass
class Document:
    index: int  # 1-based position in the file
    data: object
    problems: list[Problem] = field(default_factory=list)


class _StrictLoader(yaml.CSafeLoader):
    def __init__(self, stream):
        super().__init__(stream)
        self.problems: list[Problem] = []

    def _problem(self, node, rule: str, message: str) -> None:
        self.problems.append(Problem(node.start_mark.line + 1, node.start_mark.column + 1, rule, message))

    def construct_mapping(self, node, deep=False):
        mapping = super().construct_mapping(node, deep=deep)
        merged = any(key.tag == "tag:yaml.org,2002:merge" for key, _ in node.value)
        if len(mapping) != len(node.value) and not merged:
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node)
                if key in seen:
                    self._problem(
                        key_node,
                        "duplicate-key",
                        f"duplicate key {key!r}: kubectl rejects it (strict decoding) and "
                        "other tools keep only the last one; remove one of them",
                    )
                seen.add(key)
        if any(key.__class__ is not str for key in mapping):
            return self._string_keys(node, mapping)
        return mapping

    def _string_keys(self, node, mapping: dict) -> dict:
        by_value = {}
        for key_node, _ in node.value:
            if key_node.tag != "tag:yaml.org,2002:str":
                by_value.setdefault(self.construct_object(key_node), key_node)
        fixed = {}
        for key, value in mapping.items():
            if key.__class__ is str:
                fixed[key] = value
                continue
            key_node = by_value.get(key)
            raw = key_node.value if key_node is not None and isinstance(key_node.value, str) else str(key)
            if key_node is not None:
                self._problem(
                    key_node,
                    "yaml-implicit-type",
                    f"key {raw!r} is read as {type(key).__name__} {key!r} by YAML 1.1, not as a string; "
                    f"quote it: {_quoted(raw)}",
                )
            fixed[raw] = value
        return fixed

    def construct_yaml_timestamp(self, node):
        return self.construct_scalar(node)  # kubectl keeps timestamps as strings too

    def construct_refused(self, tag_suffix, node=None):
        # multi-constructors get (suffix, node); plain constructors get (node)
        if node is None:
            node = tag_suffix
        self._problem(node, "yaml-tag", f"tag {node.tag!r} constructs an object; manifests hold plain data only")
        if isinstance(node, yaml.MappingNode):
            return {str(k.value): self.construct_object(v, deep=True) for k, v in node.value}
        if isinstance(node, yaml.SequenceNode):
            return [self.construct_object(v, deep=True) for v in node.value]
        return self.construct_scalar(node)


_StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", _StrictLoader.construct_yaml_timestamp)
for _tag in ("set", "omap", "pairs", "binary"):
    _StrictLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _StrictLoader.construct_refused)
_StrictLoader.add_multi_constructor("", _StrictLoader.construct_refused)
_StrictLoader.add_constructor(None, _StrictLoader.construct_refused)


_RESOLVER = yaml.resolver.Resolver()  # the implicit types of CSafeLoader


def _quoted(raw: str) -> str:
    return '"' + raw.replace("\\", "\\\\").replace('"', '\\"') + '"'


def iter_yaml(text: str):
    """Yield Documents; a syntax error ends the stream with a document holding only the problem."""
    loader = _StrictLoader(text)
    index = 0
    try:
        while loader.check_data():
            index += 1
            loader.problems = []
            data = loader.get_data()
            yield Document(index, data, loader.problems)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = err.problem or "invalid YAML"
        context = f" ({err.context})" if err.context else ""
        yield Document(index or 1, None, [Problem(line, column, "yaml-syntax", f"YAML syntax error: {what}{context}")])
    except yaml.YAMLError as err:
        yield Document(index or 1, None, [Problem(1, 1, "yaml-syntax", f"YAML error: {err}")])
    finally:
        loader.dispose()


def compose(text: str) -> list:
    """Node trees of the documents, with positions; as many as the text holds before an error."""
    nodes = []
    loader = yaml.CSafeLoader(text)
    try:
        while loader.check_node():
            nodes.append(loader.get_node())
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    return nodes


def locate(node, path: list) -> tuple[tuple[int, int], object]:
    """((line, column), node) of ``path`` under ``node``: the key of a mapping entry, the item of a
    sequence. A path that goes deeper than the document points at the deepest part that exists."""
    mark = node.start_mark
    for part in path:
        found = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == part:
                    found, mark = value, key.start_mark
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            found = node.value[part]
            mark = found.start_mark
        if found is None:
            return (mark.line + 1, mark.column + 1), None
        node = found
    return (mark.line + 1, mark.column + 1), node


def path_at(node, line: int, column: int, prefix: tuple = ()) -> list | None:
    """The path of the mapping entry (key or value) or item that starts at (line, column), 1-based."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            here = (*prefix, key.value)
            if key.start_mark.line + 1 == line and key.start_mark.column + 1 == column:
                return list(here)
            found = path_at(value, line, column, here)
            if found is not None:
                return found
            if value.start_mark.line + 1 == line and value.start_mark.column + 1 == column:
                return list(here)  # a tagged or otherwise odd value
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            if item.start_mark.line + 1 == line and item.start_mark.column + 1 == column:
                return [*prefix, i]
            found = path_at(item, line, column, (*prefix, i))
            if found is not None:
                return found
    return None


def implicit_type_note(node) -> str | None:
    """Why a plain scalar is not a string: YAML 1.1 reads `yes` as true and `0777` as 511."""
    if not isinstance(node, yaml.ScalarNode) or node.style not in (None, ""):  # libyaml says "" for plain
        return None
    raw = node.value
    resolved = _RESOLVER.resolve(yaml.ScalarNode, raw, (True, False))
    kinds = {
        "tag:yaml.org,2002:bool": "a boolean",
        "tag:yaml.org,2002:int": "an integer",
        "tag:yaml.org,2002:float": "a number",
        "tag:yaml.org,2002:null": "null",
    }
    if resolved not in kinds:
        return None
    value = yaml.safe_load(raw)
    shown = f" ({value!r})" if str(value) != raw else ""
    return f"YAML 1.1 reads {raw} as {kinds[resolved]}{shown}, but a string is required here; quote it: {_quoted(raw)}"
