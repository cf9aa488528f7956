"""What a run found: each finding with its file, document, line and column (Located), in one
Report, which counts errors as they are added (a file with a finding on every document costs no
more per finding than one with a few)."""

from __future__ import annotations

from typing import NamedTuple

from generator.core.findings import Finding


class Located(NamedTuple):
    """A finding with where it is: file, document (1-based), line and column (1-based)."""

    finding: Finding
    file: str
    document: int
    line: int
    column: int
    api_version: str | None = None
    kind: str | None = None
    name: str | None = None

    def as_dict(self) -> dict:
        f = self.finding
        return {
            "severity": f.severity,
            "file": self.file,
            "document": self.document,
            "line": self.line,
            "column": self.column,
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "path": f.path,
            "rule": f.rule,
            "message": f.message,
        }


class Suppressed(NamedTuple):
    """A finding an object's annotation silenced (ignore-check.paddlejob-manifests.io/RULE), with
    the annotation's reason: reported as ignored, never as a finding."""

    item: Located
    reason: str

    def as_dict(self) -> dict:
        return self.item.as_dict() | {"reason": self.reason}


class Report:
    """What a run found: the documents read and the findings, in the order they were found."""

    __slots__ = (
        "documents",
        "findings",
        "suppressed",
        "skipped",
        "files",
        "skipped_files",
        "verbosity",
        "max_errors",
        "truncated",
        "skip_rules",
        "strict",
        "_counted",
        "_counted_list",
        "_errors",
    )

    def __init__(
        self,
        documents: int = 0,
        findings: list[Located] | None = None,
        max_errors: int = 0,  # stop reading after this many errors (0: never)
        truncated: bool = False,
        skip_rules: frozenset[str] = frozenset(),  # rule ids the user silenced (--skip-rules)
        strict: bool = False,  # warnings fail too (--strict)
    ):
        self.documents = documents
        self.findings = [] if findings is None else findings
        self.suppressed: list[Suppressed] = []  # findings an object's ignore annotation silenced
        self.skipped: dict[str, int] = {}  # documents not checked, by kind (--skip-kinds)
        self.files = 0  # files read (the caller counts them: a file named twice is read twice)
        self.skipped_files: list[tuple[str, str]] = []  # (file, why) not read: not a manifest
        self.verbosity = 1  # 0: --quiet, 1, 2: --verbose (what the text output says beyond findings)
        self.max_errors = max_errors
        self.truncated = truncated
        self.skip_rules = skip_rules
        self.strict = strict
        # The errors among findings[:_counted] of the list _counted_list: a finding is counted
        # once, when it is added (or when the count is next asked for, after `findings +=`), not
        # again at every document (a file with a finding on every document took quadratic time).
        self._counted = 0
        self._counted_list = self.findings
        self._errors = 0

    def __repr__(self) -> str:
        return f"Report(documents={self.documents}, findings={len(self.findings)}, errors={self.errors})"

    def add(self, item: Located) -> None:
        if item.finding.rule not in self.skip_rules:
            self.findings.append(item)

    def suppress(self, item: Located, reason: str) -> None:
        if item.finding.rule not in self.skip_rules:
            self.suppressed.append(Suppressed(item, reason))

    def skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1

    @property
    def invalid(self) -> int:
        """Documents with at least one error (a YAML error outside any document counts as one)."""
        return len({(item.file, item.document) for item in self.findings if item.finding.is_error})

    @property
    def valid_documents(self) -> int:
        """Documents read, checked and without an error (warnings allowed)."""
        return max(self.documents - self.invalid - sum(self.skipped.values()), 0)

    def counts(self) -> dict:
        """The summary as data: files, documents and what became of them, and the totals."""
        return {
            "files": self.files,
            "documents": self.documents,
            "valid": self.valid_documents,
            "invalid": self.invalid,
            "skipped": {
                "documents": sum(self.skipped.values()),
                "kinds": dict(sorted(self.skipped.items())),
                "files": [{"file": file, "why": why} for file, why in self.skipped_files],
            },
            "ignored": len(self.suppressed),
            "errors": self.errors,
            "warnings": self.warnings,
        }

    @property
    def full(self) -> bool:
        if self.max_errors and not self.truncated and self.errors >= self.max_errors:
            self.truncated = True
        return self.truncated

    @property
    def errors(self) -> int:
        findings = self.findings
        if findings is not self._counted_list or len(findings) < self._counted:  # replaced, or cut
            self._counted_list, self._counted, self._errors = findings, 0, 0
        if len(findings) > self._counted:
            self._errors += sum(1 for item in findings[self._counted :] if item.finding.is_error)
            self._counted = len(findings)
        return self._errors

    @property
    def warnings(self) -> int:
        return len(self.findings) - self.errors

    @property
    def valid(self) -> bool:
        return self.errors == 0 and not (self.strict and self.findings)


def note_empty(report: Report, names: list[str], fail: bool = False, named: list[str] | None = None) -> None:
    """No document at all is worth saying: `kustomize build ... | validate -` with a failed build
    would otherwise read as valid. A warning, or with ``fail`` an error. With no file to read
    (every one skipped: a chart's folder without --build), on the paths ``named``."""
    if report.documents or report.findings:
        return
    severity = "error" if fail else "warning"
    if names:
        message = f"no documents in {_some_names(names)}: nothing was checked"
        report.add(Located(Finding(severity, "", "empty", message), names[0], 1, 1, 1))
        return
    where = _some_names(named or [])
    skipped = len(report.skipped_files)
    why = (
        f"every file found was skipped ({skipped}; charts and kustomizations are built with --build)"
        if skipped
        else "no manifest (*.yaml, *.yml, *.json) was found"
    )
    message = f"nothing was checked in {where}: {why}"
    report.add(Located(Finding(severity, "", "empty", message), (named or ["-"])[0], 0, 0, 0))


# An empty repository of 100,000 files is one line that names a few of them, not a 2 MB line
NAMES_SHOWN = 5


def _some_names(names: list[str]) -> str:
    """The files named, or the first few of them and how many more."""
    if not names:
        return "(no files)"
    if len(names) <= NAMES_SHOWN:
        return ", ".join(names)
    return f"{len(names):,} files ({', '.join(names[:NAMES_SHOWN])} and {len(names) - NAMES_SHOWN:,} more)"
