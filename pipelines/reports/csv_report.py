"""findings.csv: every finding and issue as a flat row, for spreadsheets and scripts.

Quotes come from untrusted documents and the file is often opened in a spreadsheet, so a cell
starting like a formula gets a leading apostrophe (OWASP's advice against CSV injection).
"""
from __future__ import annotations

import csv
from pathlib import Path

from pipelines.aggregate import Assessed
from pipelines.reports.tables import FINDING_HEADERS, finding_rows

_FORMULA_STARTS = frozenset("=+-@\t\r")


def write_findings_csv(assessed: list[Assessed], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(FINDING_HEADERS)
        writer.writerows([_inert(v) for v in row] for row in finding_rows(assessed))
    return path


def _inert(value: object) -> object:
    if isinstance(value, str) and value[:1] in _FORMULA_STARTS:
        return "'" + value
    return value
