"""A document of a stream as the reader gives it: its data, its problems and its positions, and
the limits every reader of this package holds it to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from generator.kubeyaml.fast import Positions

MAX_DEPTH = 200  # kubectl allows 10,000; schemas stop at about 60, and validators recurse
# A limit of this tool (kubectl has none; go-yaml bounds only aliases and depth): values in one
# document. Each costs some 500 bytes as a node tree, and the largest manifests we know (CRDs of
# 600 KB) hold some 12,000; 3 MiB of `-` lines would hold 1.5 million (800 MB, 4 s).
MAX_NODES = 200_000


class Problem(NamedTuple):
    line: int  # 1-based, in the file
    column: int  # 1-based
    rule: str
    message: str
    severity: str = "error"


class Document:
    """One document of a stream: its data (None when it could not be read) and its problems."""

    __slots__ = ("index", "data", "problems", "node", "line_offset", "nulls", "text", "positions")

    def __init__(
        self,
        index: int,  # 1-based position in the file
        data: object,
        problems: list[Problem] | None = None,
        node: Any = None,  # the composed tree (YAML), for turning field paths into positions
        line_offset: int = 0,  # lines of the file before this document
        nulls: bool = True,  # whether the data may hold a null (False: the reader saw none)
        text: str | None = None,  # read by rapidyaml: the tree is composed from this when needed
    ):
        self.index = index
        self.data = data
        self.problems = [] if problems is None else problems
        self.node = node
        self.line_offset = line_offset
        self.nulls = nulls
        self.text = text
        self.positions: Positions | None = None  # rapidyaml's view of the text, for positions without a node tree

    def __repr__(self) -> str:
        return f"Document(index={self.index}, data={self.data!r}, problems={self.problems!r})"

    def tree(self) -> Any:
        """The document's node tree; composed by libyaml on first use if rapidyaml read it."""
        if self.node is None and self.text is not None:
            from generator.kubeyaml.tree import compose_first

            self.node, self.text = compose_first(self.text), None
        return self.node

    def position(self, path: Sequence[object], node: bool = False) -> tuple[tuple[int, int], Any]:
        """((line, column), node) of a field path; the document's start when it has no tree.
        Without ``node`` (the YAML node at the path, for what a finding says of its text), a
        document rapidyaml read is placed from rapidyaml's tree (fast.Positions), which gives the
        position libyaml's node tree would, and composes that only where it cannot."""
        if not node and self.node is None and self.text is not None:
            if self.positions is None:
                from generator.kubeyaml.fast import Positions

                self.positions = Positions(self.text)
            found = self.positions.of(path)
            if found is not None:
                return (found[0] + self.line_offset, found[1]), None
        if self.tree() is None:
            return (self.line_offset + 1, 1), None
        from generator.kubeyaml.tree import locate  # here: libyaml (PyYAML) only where its tree is needed

        (line, column), target = locate(self.node, path)
        return (line + self.line_offset, column), target

    def path_of(self, problem: Problem) -> list[object]:
        from generator.kubeyaml.tree import path_at

        if self.tree() is None:
            return []
        return path_at(self.node, problem.line - self.line_offset, problem.column) or []


def too_many_message(limit: int) -> str:
    return (
        f"the document holds more than {limit:,} values, the limit of this tool (kubectl has none; "
        "no manifest we know holds a tenth of it): split it"
    )


def duplicate_key_message(key: object) -> str:
    """A key twice in one mapping: the verdict depends on the tool that reads the file."""
    return (
        f"duplicate key {key!r}: kubectl (create, apply, apply --server-side) keeps the last value, so the "
        "apiserver never sees the first; kustomize refuses the file (mapping key already defined); remove one"
    )
