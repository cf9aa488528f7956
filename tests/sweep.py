"""Sweeps over objects: each field in turn replaced by each of a dozen odd values (null, a bool,
a fraction, an empty or odd list or mapping). Not random: every field, every value, so a rule
that indexes, hashes or iterates a value without looking at its type is found for sure."""

from __future__ import annotations

import json
from collections.abc import Iterator

ODD_VALUES = [None, True, 0, -1, 1.5, "", "x", [], {}, [1, "a", None], {"a": [1]}, {"name": ["x"]}, [{"name": {}}]]


def _paths(data, path=()) -> Iterator[tuple]:
    yield path
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _paths(value, (*path, index))


def mutations(docs: list) -> Iterator[list]:
    """Copies of ``docs`` (JSON data) with one field of one document replaced, for every field
    of every document and every odd value."""
    text = json.dumps(docs)
    for index, doc in enumerate(docs):
        for where in list(_paths(doc))[1:]:
            for value in ODD_VALUES:
                mutated = json.loads(text)
                parent = mutated[index]
                for key in where[:-1]:
                    parent = parent[key]
                parent[where[-1]] = json.loads(json.dumps(value))
                yield mutated
