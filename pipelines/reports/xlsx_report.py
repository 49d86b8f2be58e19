"""report.xlsx: the batch as filterable sheets, for people who live in Excel.

Both views open on Contracts (one row per contract, worst first: level, rounded score, top
issues, each key term in its own typed column, and empty Owner, Decision and Due columns to
work in), then Issues (one row per issue); the full view (legal) puts every finding with its
evidence chain third and adds the review queue; both have the evidence behind each key-term
value.  Documents lists every file's processing facts, failures included.
"""
from __future__ import annotations

from datetime import date
from pathlib import Path

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from pipelines.assessment import Assessed
from pipelines.reports.cells import starts_like_formula
from pipelines.reports.tables import (
    CONTRACT_HEADERS, FINDING_HEADERS, ISSUE_HEADERS, KEY_TERM_EVIDENCE_HEADERS, REVIEW_HEADERS, DurationCell, WordsCell,
    contract_rows, document_rows, finding_rows, issue_rows, key_term_evidence_rows, review_rows,
)

_MIN_WIDTH = 8
_MAX_WIDTH = 60
_HEADER_FILL = PatternFill("solid", fgColor="E5E7EB")


def write_xlsx(assessed: list[Assessed], path: Path, view: str, as_of: date) -> Path:
    """report.xlsx; the term in force and the next deadline as of `as_of`."""
    workbook = Workbook()
    workbook.remove(workbook.active)
    _sheet(workbook, "Contracts", CONTRACT_HEADERS, contract_rows(assessed, as_of))
    _sheet(workbook, "Issues", ISSUE_HEADERS, issue_rows(assessed))
    if view == "full":
        _sheet(workbook, "Findings", FINDING_HEADERS, finding_rows(assessed))
    _sheet(workbook, "Key-term evidence", KEY_TERM_EVIDENCE_HEADERS, key_term_evidence_rows(assessed))
    if view == "full":
        _sheet(workbook, "Review queue", REVIEW_HEADERS, review_rows(assessed))
    headers, rows = document_rows(assessed, view)
    _sheet(workbook, "Documents", headers, rows)
    workbook.save(path)
    return path


def _sheet(workbook: Workbook, title: str, headers: list[str], rows: list[list]) -> Worksheet:
    """A sheet with a bold frozen header, an autofilter over the data and widths fitted to it."""
    sheet = workbook.create_sheet(title)
    sheet.append(headers)
    for r, row in enumerate(rows, 2):
        for c, value in enumerate(row, 1):
            _put(sheet, r, c, value)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
        cell.fill = _HEADER_FILL
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(headers))}{max(len(rows) + 1, 2)}"
    for index, header in enumerate(headers, 1):
        longest = max([len(header)] + [len(str(row[index - 1])) for row in rows if row[index - 1] is not None])
        width = min(max(longest + 2, _MIN_WIDTH), _MAX_WIDTH)
        sheet.column_dimensions[get_column_letter(index)].width = width
        if width == _MAX_WIDTH:
            for (cell,) in sheet.iter_rows(min_row=2, min_col=index, max_col=index):
                cell.alignment = Alignment(wrap_text=True, vertical="top")
    return sheet


def _put(sheet: Worksheet, row: int, column: int, value: object) -> None:
    """Write a value as data: contract text may hold control characters Excel rejects, or
    start like a formula (`cells.starts_like_formula`), which is stored as text.  A duration is its
    number of days, so the column sorts and filters, formatted to read as the contract's words."""
    number_format = None
    if isinstance(value, str):
        value = ILLEGAL_CHARACTERS_RE.sub("", value)
    elif isinstance(value, date):
        number_format = "yyyy-mm-dd"
    elif isinstance(value, DurationCell):
        number_format = '"' + value.text.replace('"', "'") + '"'
        value = value.days
    elif isinstance(value, WordsCell):
        sheet.cell(row=row, column=column).comment = Comment(ILLEGAL_CHARACTERS_RE.sub("", value.text), "clausemill")
        return
    cell = sheet.cell(row=row, column=column, value=value)
    if starts_like_formula(value):
        cell.data_type = "s"
    if number_format:
        cell.number_format = number_format
