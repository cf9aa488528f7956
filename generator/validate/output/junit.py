"""JUnit XML (Jenkins, GitLab, most CI dashboards): a test case per document with findings."""

from __future__ import annotations

from generator.core.text import visible
from generator.validate.output.common import count, finding_text, in_document
from generator.validate.report import Located, Report


def write(report: Report, colour: bool = False) -> str:
    """A test case per document with findings (failed when it has an error), and one for the rest
    when there are any (none when every document has findings: no test that stands for nothing)."""
    cases: dict[tuple[str, int], list[Located]] = {}
    for item in report.findings:
        cases.setdefault((item.file, item.document), []).append(item)
    failed = sum(1 for items in cases.values() if any(i.finding.is_error for i in items))
    clean = max(report.documents - len(cases), 0)
    from xml.etree import ElementTree  # here: only JUnit output needs it

    suites = ElementTree.Element("testsuites", name="paddlejob-manifests validate")
    suite = ElementTree.SubElement(
        suites,
        "testsuite",
        name="validate",
        tests=str(len(cases) + bool(clean)),
        failures=str(failed),
        errors="0",
        skipped="0",
    )
    for (file, _document), items in sorted(cases.items()):
        file = visible(file)  # noqa: PLW2901 - XML 1.0 holds no control character nor surrogate
        case = ElementTree.SubElement(suite, "testcase", classname=file, name=in_document(items[0], ": "), file=file)
        errors = [i for i in items if i.finding.is_error]
        body = "\n".join(f"{i.line}:{i.column}: {i.finding.severity}: {finding_text(i.finding)}" for i in items)
        if errors:
            first = errors[0].finding
            message = visible(f"{first.path}: {first.message}")
            failure = ElementTree.SubElement(case, "failure", message=message, type=visible(first.rule))
            failure.text = body
        else:
            ElementTree.SubElement(case, "system-out").text = body
    if clean:
        ElementTree.SubElement(
            suite, "testcase", classname="paddlejob-manifests", name=f"{count(clean, 'document')} without findings"
        )
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"
