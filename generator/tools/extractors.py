"""Extractors over pinned upstream source text: functions that read what a release of an
upstream project says and yield it as data, so that a newer release shows its changes as a diff.

`validation_call_sites` reads the apiserver's Go validation (k8s.io/kubernetes
pkg/apis/<group>/validation/validation.go) and yields every place that reports an error
(`field.Required`, `Invalid`, `NotSupported`, `Forbidden`, `Duplicate`, `TooLong`, `TooMany`) in
the functions reachable from a root (`ValidatePodSpec`), each with a stable id. The ledger under
schemas/ledger/ keeps these ids with what people wrote about each (a summary, the rule that ports
it or why it is not modelled); tests/test_ledger.py runs this on the pinned text and compares.

    python -m generator.tools.extractors validation.go ValidatePodSpec core.pod   # JSON lines
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import NamedTuple

ERROR_TYPES = ("Required", "Invalid", "NotSupported", "Forbidden", "Duplicate", "TooLong", "TooMany")

_KEBAB = {
    "Required": "required",
    "Invalid": "invalid",
    "NotSupported": "not-supported",
    "Forbidden": "forbidden",
    "Duplicate": "duplicate",
    "TooLong": "too-long",
    "TooMany": "too-many",
}

_FUNC = re.compile(r"^func (?:\([^)]*\) )?([A-Za-z_]\w*)\s*[\[(]", re.M)
_CALL = re.compile(r"\bfield\.(" + "|".join(ERROR_TYPES) + r")\(")
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


class CallSite(NamedTuple):
    id: str
    function: str  # the Go function the call is written in
    line: int  # 1-based line of `field.X(` in the source
    error_type: str  # Required, Invalid, ...
    path: str  # the field path pattern: fldPath.tolerations[*].operator
    detail: str  # the message (or the allowed values) as the source writes it, on one line


def _masked(source: str) -> str:
    """``source`` with comments and the insides of string and rune literals blanked (newlines
    kept), so that brackets and identifiers are found only in code."""
    out = list(source)
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out[i:j] = [ch if ch == "\n" else " " for ch in source[i:j]]
            i = j
        elif c in "\"'`":
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if c != "`" and source[j] == "\\" else 1
            out[i + 1 : j] = [ch if ch == "\n" else " " for ch in source[i + 1 : j]]
            i = j + 1
        else:
            i += 1
    return "".join(out)


def go_functions(source: str) -> dict[str, tuple[int, int]]:
    """Top-level functions and methods of gofmt'd Go source: name -> (start, end) offsets of
    the text from `func` to the closing brace at the start of a line."""
    masked = _masked(source)
    found = {}
    for match in _FUNC.finditer(masked):
        end = masked.find("\n}", match.end())
        found[match.group(1)] = (match.start(), len(masked) if end < 0 else end + 2)
    return found


def reachable(source: str, root: str) -> list[str]:
    """The functions of ``source`` that ``root`` reaches by naming them (a call or a function
    value), in the order they are first met, ``root`` first."""
    masked = _masked(source)
    functions = go_functions(source)
    if root not in functions:
        raise KeyError(f"no function {root} in the source")
    seen, queue = [root], [root]
    while queue:
        start, end = functions[queue.pop(0)]
        body = masked[start:end]
        body = body[body.find("{") :]  # the signature names types, not functions
        for name in _IDENT.findall(body):
            if name in functions and name not in seen:
                seen.append(name)
                queue.append(name)
    return seen


def _arguments(source: str, masked: str, open_paren: int) -> tuple[list[str], int]:
    """The top-level arguments of the call whose `(` is at ``open_paren`` (source text, split on
    commas outside brackets), and the offset after its `)`."""
    depth, start, args = 0, open_paren + 1, []
    for i in range(open_paren, len(masked)):
        c = masked[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(source[start:i])
                return [a.strip() for a in args if a.strip()], i + 1
        elif c == "," and depth == 1:
            args.append(source[start:i])
            start = i + 1
    raise ValueError(f"unbalanced call at offset {open_paren}")


_PATH_STEP = re.compile(r"\.(Child|Index|Key)\(((?:[^()]|\([^()]*\))*)\)")


def path_pattern(expression: str) -> str:
    """A Go field path expression as a pattern: `fldPath.Child("a", "b").Index(i).Key(k)` ->
    `fldPath.a.b[*][*]`; a path built elsewhere keeps its variable's name."""
    expression = " ".join(expression.split())
    base = re.match(r"[A-Za-z_][\w.]*?(?=\.(?:Child|Index|Key)\(|$)", expression)
    if not base:
        return expression
    out = base.group(0)
    rest = expression[base.end() :]
    for step in _PATH_STEP.finditer(rest):
        kind, arg = step.groups()
        if kind == "Child":
            parts = [p.strip() for p in arg.split(",")]
            out += "".join("." + (p[1:-1] if p.startswith('"') and p.endswith('"') else f"<{p}>") for p in parts)
        elif kind == "Index":
            out += "[*]"
        else:
            key = arg.strip()
            out += f"[{key[1:-1]}]" if key.startswith('"') and key.endswith('"') else "[*]"
    consumed = "".join(m.group(0) for m in _PATH_STEP.finditer(rest))
    return out if consumed == rest.replace(" ", "") or consumed == rest else f"{out}<{rest}>"


def _slug(path: str) -> str:
    """The id part of a path pattern: its steps after the variable, in kebab case."""
    steps = re.sub(r"\[[^\]]*\]", "", path).split(".")[1:]
    words = [re.sub(r"[^a-z0-9]+", "-", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", s).lower()).strip("-") for s in steps]
    return ".".join(w for w in words if w) or "self"


def _detail(error_type: str, args: list[str]) -> str:
    position = {"Required": 1, "Forbidden": 1, "Invalid": 2, "NotSupported": 2, "TooLong": 2, "TooMany": 2}
    at = position.get(error_type)
    if error_type == "Duplicate" or at is None or at >= len(args):
        return ""
    return " ".join(args[at].split())


def site_id(prefix: str, function: str, path: str, error_type: str, ordinal: int = 1) -> str:
    """The id of the ``ordinal``-th call of ``error_type`` on ``path`` in ``function``."""
    base = f"{prefix}.{function}.{_slug(path)}.{_KEBAB[error_type]}"
    return base if ordinal == 1 else f"{base}-{ordinal}"


def validation_call_sites(source: str, root: str = "ValidatePodSpec", prefix: str = "core.pod") -> Iterator[CallSite]:
    """Every field.Required/Invalid/NotSupported/Forbidden/Duplicate/TooLong/TooMany call in the
    functions ``root`` reaches, in the order of the functions met, then of the source. Ids are
    ``PREFIX.FUNCTION.PATH.TYPE`` (`-2`, `-3`, ... for a second and third such call in one
    function), stable while the function keeps its calls."""
    masked = _masked(source)
    functions = go_functions(source)
    for name in reachable(source, root):
        start, end = functions[name]
        counts: dict[str, int] = {}
        for match in _CALL.finditer(masked, start, end):
            error_type = match.group(1)
            args, _ = _arguments(source, masked, match.end() - 1)
            path = path_pattern(args[0]) if args else ""
            base = site_id(prefix, name, path, error_type)
            counts[base] = counts.get(base, 0) + 1
            ident = site_id(prefix, name, path, error_type, counts[base])
            line = source.count("\n", 0, match.start()) + 1
            yield CallSite(ident, name, line, error_type, path, _detail(error_type, args))


MECHANICAL = ("function", "line", "type", "path")  # what the extractor writes; the rest is people's


def merge_ledger(ledger: dict, sites: list[CallSite]) -> tuple[dict, dict[str, list[str]]]:
    """``ledger`` (a schemas/ledger/*.json document) updated to ``sites`` (the extraction of a
    newer release): the mechanical fields from the sites, the summary, status and reason kept by
    id; a new id comes in "open", a gone id goes. Returns the new document and the ids added,
    removed and moved (line changed)."""
    old = {entry["id"]: entry for entry in ledger["entries"]}
    entries, changes = [], {"added": [], "removed": [], "moved": []}
    for site in sites:
        entry = dict(old.get(site.id, {"summary": site.detail or site.path, "status": "open"}))
        if site.id not in old:
            changes["added"].append(site.id)
        elif entry.get("line") != site.line:
            changes["moved"].append(site.id)
        entry.update(id=site.id, function=site.function, line=site.line, type=site.error_type, path=site.path)
        entries.append({k: entry[k] for k in ("id", *MECHANICAL, "summary", "status", "reason") if k in entry})
    changes["removed"] = sorted(set(old) - {site.id for site in sites})
    return {**ledger, "entries": entries}, changes


def main(argv: list[str] | None = None) -> int:
    """VALIDATION_GO [ROOT [PREFIX]]: the call sites as JSON lines; with --ledger FILE (and the
    root and prefix of that ledger), what a newer release adds, removes and moves."""
    args = list(argv if argv is not None else sys.argv[1:])
    ledger_path = None
    if "--ledger" in args:
        at = args.index("--ledger")
        ledger_path = args[at + 1] if at + 1 < len(args) else None
        del args[at : at + 2]
    if not 1 <= len(args) <= 3 or ("--ledger" in (argv or sys.argv[1:]) and ledger_path is None):
        print(
            "usage: python -m generator.tools.extractors VALIDATION_GO [ROOT] [PREFIX] [--ledger FILE]", file=sys.stderr
        )
        return 2
    with open(args[0], encoding="utf-8") as f:
        source = f.read()
    sites = list(validation_call_sites(source, *args[1:]))
    if ledger_path is None:
        for site in sites:
            print(json.dumps(site._asdict()))
        return 0
    with open(ledger_path, encoding="utf-8") as f:
        ledger = json.load(f)
    _, changes = merge_ledger(ledger, sites)
    for what, ids in changes.items():
        for ident in ids:
            print(f"{what}: {ident}")
    return 1 if changes["added"] or changes["removed"] else 0


if __name__ == "__main__":
    sys.exit(main())
