"""findings.csv: every finding and issue as a flat row, for spreadsheets and scripts.

Quotes come from untrusted documents and the file is often opened in a spreadsheet, so every
cell goes through `cells.csv_cell`.
"""
from __future__ import annotations

import csv
from pathlib import Path

from pipelines.assessment import Assessed
from pipelines.reports.cells import csv_cell
from pipelines.reports.tables import FINDING_HEADERS, finding_rows


def write_findings_csv(assessed: list[Assessed], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(FINDING_HEADERS)
        writer.writerows([csv_cell(v) for v in row] for row in finding_rows(assessed))
    return path
