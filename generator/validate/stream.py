"""The documents of one input (a file, a pipe, stdin, a part of a big file, a text) checked one
at a time into a Report; each finding's field path turned into a line and column of the input
(`locate`, the one place that does it)."""

from __future__ import annotations

import sys
from typing import Any

from generator.core import provenance, rulebook
from generator.core.findings import Finding, dotted, split_path
from generator.kubeyaml.document import Document, Problem
from generator.kubeyaml.load import iter_documents
from generator.schema import kubernetes
from generator.validate import across, inputs
from generator.validate.checker import ObjectChecker
from generator.validate.report import Located, Report
from generator.validate.rules import podsecurity


def validate_file(name: str, checker: ObjectChecker, report: Report) -> None:
    """Check one file ("-": stdin) into ``report``; a file that cannot be read is a finding."""
    if name == "-":
        validate_stream("<stdin>", sys.stdin.buffer, _checker_for(sys.stdin.buffer, checker), report)
        return
    try:
        with inputs.open_input(name) as stream:
            validate_stream(name, stream, _checker_for(stream, checker), report)
    except OSError as err:
        problem = Problem(1, 1, "file", f"cannot read the file: {err.strerror or err}")
        report.add(Located(Finding("error", "", problem.rule, problem.message), name, 1, 1, 1))


def _checker_for(stream: Any, checker: ObjectChecker) -> ObjectChecker:
    """``checker``, or for a file `render` wrote (when the checker follows records: no
    --kube-version) the checker for the releases the file records and this tool knows."""
    if not checker.follow_records or not hasattr(stream, "peek"):
        return checker
    try:
        record = provenance.read(stream.peek(provenance.HEAD_BYTES))
    except (provenance.ProvenanceError, OSError):
        return checker  # not a record this tool wrote: the releases asked for
    # the releases this tool knows within the record's range (never the range itself: it is input)
    if record is None:
        return checker
    releases = [minor for minor in kubernetes.known_versions() if record.min_minor <= minor <= record.max_minor]
    return checker.for_releases(releases) if releases else checker


def validate_text(name: str, text: str, checker: ObjectChecker, report: Report) -> None:
    """Check the documents of ``text`` into ``report``."""
    validate_stream(name, text, checker, report)


def validate_part(name: str, start: int, end: int, checker: ObjectChecker, report: Report) -> tuple[int, int]:
    """Check bytes ``start`` to ``end`` of file ``name``, a part of it that starts at a document
    separator (parallel.py cuts big files), into ``report``, as if it were the whole file: the
    caller moves the findings' lines and documents. Returns how many documents it read and how
    many lines the part has."""
    with open(name, "rb") as stream:
        checker = _checker_for(stream, checker)  # what the file's head says, for every part
        stream.seek(start)
        part = stream.read(end - start)
    return validate_stream(name, part, checker, report), part.count(b"\n")


def validate_stream(name: str, source: Any, checker: ObjectChecker, report: Report) -> int:
    """Check every document of ``source`` (text, bytes or a binary file) into ``report``;
    returns how many documents it read."""
    namespace_levels: dict[str, tuple[str, int]] = {}  # Namespaces read so far (rules/podsecurity.py)
    # what the verdicts across objects read (across.py), until the input ends: the objects,
    # slimmed, and where a finding may be on one, its document without its data (for the position)
    kept: list[tuple[dict[Any, Any], Document | None]] = []
    ignored_kept: dict[int, Ignores] = {}  # the rules silenced on a kept object, by its place in kept
    pods = False
    read = 0
    verdicts = across.input_may_report(source)  # else no verdict can be on its objects: none is kept
    for doc in iter_documents(source):
        if report.full:
            return read
        read = doc.index
        ignores = None
        if doc.data is not None:
            report.documents += 1
            if checker.skip_kinds:
                _count_skipped(doc.data, checker.skip_kinds, report)
            ignores = ignored_rules(doc.data)
        if doc.data is not None and verdicts:
            slim, holds_pods = across.keep(doc.data)
            pods = pods or holds_pods
            if slim is not None:
                place = None
                if across.reports_on(doc.data):
                    place = Document(doc.index, None, [], doc.node, doc.line_offset, doc.nulls, doc.text)
                kept.append((slim, place))
                if ignores:
                    ignored_kept[len(kept) - 1] = ignores
        findings = checker.check(doc.data, doc.nulls) if doc.data is not None else []
        findings += podsecurity.namespace_findings(doc.data, namespace_levels, checker.minor)
        if ignores and None in ignores:  # annotations naming no rule: a warning each
            findings += ignores.pop(None)
        if not findings and not doc.problems:
            continue
        ident = _identity(doc.data)
        explained = set()  # a field the reader already reported needs no second finding
        for problem in doc.problems:
            path = dotted(_shortened(doc.path_of(problem)))
            if problem.severity == "error":
                explained.add(path)
            finding = Finding(problem.severity, path, problem.rule, problem.message)
            _add(report, Located(finding, name, doc.index, problem.line, problem.column, *ident), ignores)
        for finding in findings:
            if finding.path not in explained:
                _add(report, _locate(finding, doc, name, ident), ignores)
    if any(place is not None for _, place in kept) and not report.full:  # the verdicts across the documents
        for index, finding in across.check([data for data, _ in kept], checker.minor, pods):
            data, place = kept[index]
            if place is None:  # across.reports_on and across.check disagree: a bug
                raise AssertionError(f"a finding on an object across.reports_on did not name: {finding}")
            _add(report, _locate(finding, place, name, _identity(data)), ignored_kept.get(index))
    return read


# An object's annotation that silences one rule on that object, as kube-linter's
# `ignore-check.kube-linter.io/<check>`: `ignore-check.paddlejob-manifests.io/<rule-id>: "reason"`.
IGNORE_PREFIX = "ignore-check.paddlejob-manifests.io/"


# the rules an object's annotations silence: rule id -> reason; under None, the ignore-check
# findings of annotations that name no rule
Ignores = dict[str | None, Any]


def ignored_rules(data: object) -> Ignores | None:
    """The rules ``data``'s annotations silence, rule id -> reason; under None, the warnings
    (ignore-check findings) for annotations that name no rule, each with the nearest rule id.
    None when there is no such annotation (most objects: a few dictionary lookups)."""
    if type(data) is not dict:
        return None
    meta = data.get("metadata")
    annotations = meta.get("annotations") if type(meta) is dict else None
    if type(annotations) is not dict:
        return None
    found: Ignores | None = None
    for key, reason in annotations.items():
        if type(key) is not str or not key.startswith(IGNORE_PREFIX):
            continue
        found = {} if found is None else found
        rule = key[len(IGNORE_PREFIX) :]
        if rule in rulebook.RULES:
            found[rule] = reason if isinstance(reason, str) else ""
            continue
        import difflib  # here: only a mistyped rule id needs it

        close = difflib.get_close_matches(rule, list(rulebook.RULES), n=1, cutoff=0.6)
        hint = f"; did you mean {IGNORE_PREFIX}{close[0]}?" if close else " (validate --list-rules lists them)"
        message = f"no rule {rule!r}: the annotation silences nothing{hint}"
        found.setdefault(None, []).append(
            Finding("warning", dotted(["metadata", "annotations", key]), "ignore-check", message)
        )
    return found


def _add(report: Report, item: Located, ignores: Ignores | None) -> None:
    """``item`` into ``report``: a finding, or one the object's annotation silences."""
    if ignores and item.finding.rule in ignores:
        report.suppress(item, ignores[item.finding.rule])
    else:
        report.add(item)


def _count_skipped(data: object, skip_kinds: frozenset[str], report: Report) -> None:
    """A document of a kind --skip-kinds names, counted as skipped (the checker passes it over)."""
    if type(data) is not dict:
        return
    kind, api_version = data.get("kind"), data.get("apiVersion")
    if kind in skip_kinds or f"{api_version}/{kind}" in skip_kinds:
        report.skip(kind if isinstance(kind, str) else "?")


def _shortened(path: list[object], keep: int = 12) -> list[object]:
    """A readable path: up to the first part that is no name or index (a mapping used as a key,
    as `token: {{HF_TOKEN}}` makes, has no path: the finding is on the mapping holding it), and
    cut short for absurdly deep places (the reader stops at 200 levels)."""
    plain = next((i for i, part in enumerate(path) if not isinstance(part, str | int) or isinstance(part, bool)), None)
    path = path if plain is None else path[:plain]
    return path if len(path) <= keep else [*path[:keep], f"(+{len(path) - keep} levels)"]


Identity = tuple[Any, Any, str | None]  # an object's apiVersion, kind and name, as Located holds them


def _identity(data: object) -> Identity:
    if not isinstance(data, dict):
        return (None, None, None)
    meta = data.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return (data.get("apiVersion"), data.get("kind"), name if isinstance(name, str) else None)


def _locate(finding: Finding, doc: Document, file: str, ident: Identity) -> Located:
    # the node only where a message needs it (a type finding: what YAML made of the text)
    (line, column), target = doc.position(split_path(finding.path), node=finding.rule == "type-string")
    if finding.rule == "type-string":  # a YAML surprise (`y`, `08`), or a plain type error
        from generator.kubeyaml.tree import implicit_type_note  # loaded already: the position came from its tree

        note = implicit_type_note(target)
        rule = "yaml-implicit-type" if note else "type"
        finding = Finding(finding.severity, finding.path, rule, note or finding.message)
    return Located(finding, file, doc.index, line, column, *ident)


def locate_objects(file: str, text: str, problems: list[tuple[int, dict[Any, Any], Finding]]) -> list[Located]:
    """Findings of objects (``problems``: the object's index in ``text``, the object, the finding)
    at their line and column in ``text``, the YAML the objects were written as: what `render`,
    `job` and `convert` report of the objects they make, as `validate` would of the file."""
    documents = list(iter_documents(text))
    out = []
    for index, obj, finding in problems:
        doc = documents[index] if index < len(documents) else None
        if doc is None:
            out.append(Located(finding, file, index + 1, 1, 1, *_identity(obj)))
        else:
            out.append(_locate(finding, doc, file, _identity(obj)))
    return out
