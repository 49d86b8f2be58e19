"""`clausemill review`: the human review queue on the terminal (the default), and its audit
trail exported (`review export`)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from pipelines.cli.console import console
from pipelines.settings import get_settings

review = typer.Typer(help="The review queue, most urgent first (the default), or `export` its audit trail.",
                     no_args_is_help=False, invoke_without_command=True, add_completion=False,
                     pretty_exceptions_show_locals=False)


@review.callback()
def queue(
    context: typer.Context,
    batch_id: Annotated[Optional[str], typer.Option(help="Only this batch.")] = None,
    limit: Annotated[int, typer.Option(help="How many items.")] = 20,
) -> None:
    """The human review queue: what the machine is least sure of, most urgent first."""
    if context.invoked_subcommand is not None:
        return
    from storage import repository
    from storage.database import session_scope

    table = Table(title="Review queue")
    for column in ("Priority", "Document", "Category", "Why", "Evidence"):
        table.add_column(column, overflow="fold")
    with session_scope(get_settings().effective_database_url, write=False) as session:
        entries = repository.review_queue(session, batch_id, limit)
    for entry in entries:
        quote = str(entry.evidence.get("text", ""))[:120]
        page = entry.evidence.get("page")
        table.add_row(f"{entry.priority:.2f}", entry.filename, entry.category, entry.reason,
                      f"p.{page}: {quote}" if page else quote)
    Console().print(table)


@review.command()
def export(
    out: Annotated[Path, typer.Option("--out", "-o", help="decisions.csv or decisions.jsonl: the format follows the suffix.")],
    batch_id: Annotated[Optional[str], typer.Option(help="Only the decisions on this batch's documents.")] = None,
) -> None:
    """The audit trail, every decision oldest first: who, when, the action, the values before and
    after, the reason, the comment, the item version, the document and its batch."""
    from pipelines.review.export import FORMATS, trail_rows, write_trail
    from storage.database import session_scope

    if out.suffix.lower() not in FORMATS:
        raise typer.BadParameter(f"end the file name in {' or '.join(FORMATS)}", param_hint="--out")
    with session_scope(get_settings().effective_database_url, write=False) as session:
        count = write_trail(trail_rows(session, batch_id), out)
    console.print(f"Wrote {count} decision(s) to {out}.")
