"""What a spreadsheet cell may hold: the one rule against formula injection.

Contract text, file names and reviewers' comments are untrusted, and every table clausemill
writes (findings.csv, report.xlsx, the decisions export, a training export's files.csv) is
likely to be opened in a spreadsheet.  A cell that starts like a formula there (`=`, `+`, `-`,
`@`, or a tab or carriage return before one) can run a function such as HYPERLINK or DDE, so
CSV cells get a leading apostrophe (OWASP's advice against CSV injection) and xlsx cells are
stored as text, which a spreadsheet never evaluates.
"""
from __future__ import annotations

FORMULA_STARTS = frozenset("=+-@\t\r")


def starts_like_formula(value: object) -> bool:
    return isinstance(value, str) and value[:1] in FORMULA_STARTS


def csv_cell(value: object) -> object:
    """`value` as a CSV cell a spreadsheet shows as text: numbers and safe strings unchanged."""
    return "'" + value if starts_like_formula(value) else value  # type: ignore[operator]
