"""Example third-party output format: a check as a JUnit XML test suite.

CI systems (GitLab, Jenkins, Azure Pipelines) show JUnit XML as test results. Each model of the
policy is one test case, failing when the data violates it; each release-integrity finding (an
identifier column left in, too many suppressed records) is one more failing case. The format
reads the report's data only: ``privcheck check data.csv -p policy.yaml -o results.xml``.
"""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

from privcheck import hookimpl
from privcheck.output_formats import OutputFormat


class JUnitFormat(OutputFormat):
    name = "junit"
    summary = "a check as a JUnit XML test suite (CI test results)"
    kinds = frozenset({"check"})
    suffixes = (".xml",)
    media_type = "application/xml"

    def render(self, report: Any, kind: str, **context: Any) -> str:
        source = context.get("source") or report.source or "data"
        suite = ElementTree.Element("testsuite", name=f"privcheck {source}")
        failures = 0
        for m in report.models:
            params = ", ".join(f"{k}={v}" for k, v in m.params.items())
            case = ElementTree.SubElement(
                suite, "testcase", classname=source, name=f"{m.model} ({params})"
            )
            if not m.passed:
                failures += 1
                message = (
                    f"{m.statistic} {m.value}: {m.violating_classes} classes / "
                    f"{m.violating_records} records violate it"
                )
                ElementTree.SubElement(case, "failure", message=message)
        for finding in report.findings():
            case = ElementTree.SubElement(
                suite, "testcase", classname=source, name="release integrity"
            )
            ElementTree.SubElement(case, "failure", message=finding)
            failures += 1
        suite.set("tests", str(len(suite)))
        suite.set("failures", str(failures))
        return ElementTree.tostring(suite, encoding="unicode") + "\n"


@hookimpl
def privcheck_output_formats() -> list[type[OutputFormat]]:
    return [JUnitFormat]
