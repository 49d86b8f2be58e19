"""A batch's reports, written from the database, and its summary table on the terminal."""
from __future__ import annotations

from datetime import date
from pathlib import Path

from rich.console import Console
from rich.table import Table

from pipelines.cli.console import shown
from pipelines.datamodel import DocumentStatus
from pipelines.settings import Settings


def print_summary(batch) -> None:  # type: ignore[no-untyped-def]
    table = Table(title=shown(f"Batch {batch.id}: {batch.count(DocumentStatus.DONE)} done, "
                              f"{batch.count(DocumentStatus.FAILED)} failed"))
    for column in ("Document", "Status", "Pages", "Risk", "Findings", "Note"):
        table.add_column(column, overflow="fold")
    style = {DocumentStatus.DONE: "green", DocumentStatus.FAILED: "red"}
    for d in batch.documents:
        note = (f"{d.stage}: {d.reason}" if d.reason else f"same file as {d.duplicate_of}" if d.duplicate_of
                else "; ".join(d.notes))
        table.add_row(shown(d.filename), f"[{style.get(d.status, 'white')}]{d.status}[/]", str(d.page_count or ""),
                      d.risk_level or "", str(len(d.findings)) if d.status is DocumentStatus.DONE else "", shown(note))
    Console().print(table)


def write_outputs(settings: Settings, batch_id: str, out: Path, view: str, as_of: date | None = None) -> list[Path]:
    """The batch's reports into `out`, deadlines counted from `as_of` (default today), then its
    summary table on the terminal."""
    from pipelines.reported import write_batch_reports

    reported, written = write_batch_reports(settings, batch_id, out, view, as_of)
    print_summary(reported.batch)
    return written
