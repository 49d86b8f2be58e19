"""`clausemill review`: the human review queue on the terminal (the default), its audit trail
exported (`review export`), work assigned to reviewers (`review assign`), and how far double
reviewers agree (`review agreement`)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from pipelines.cli.console import console
from pipelines.settings import get_settings

review = typer.Typer(help="The review queue, most urgent first (the default); `export` its audit trail, `assign` "
                     "work, or see reviewers' `agreement`.",
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
    out: Annotated[Path, typer.Option("--out", "-o", help="decisions.csv or decisions.jsonl (the format follows the "
                                      "suffix); with --training, a folder.")],
    batch_id: Annotated[Optional[str], typer.Option(help="Only the decisions on this batch's documents.")] = None,
    training: Annotated[bool, typer.Option("--training", help="Write the decisions as training data instead: a "
                                           "folder in CUAD's span format for `clausemill train --extra`.")] = False,
) -> None:
    """The audit trail, every decision oldest first: who, when, the action, the values before and
    after, the reason, the comment, the item version, the document and its batch.

    With --training, the decided documents' texts and the spans their decisions confirm or reject (files.csv, txt/, spans.jsonl with a `label` per span), which `clausemill train --extra FOLDER` learns from.
    """
    from pipelines.review.export import FORMATS, trail_rows, write_trail, write_training
    from storage.database import session_scope

    if training:
        if out.exists() and not out.is_dir():
            raise typer.BadParameter(f"{out} is a file; --training writes a folder", param_hint="--out")
        with session_scope(get_settings().effective_database_url, write=False) as session:
            documents, spans = write_training(session, out, batch_id)
        console.print(f"Wrote {spans} labelled span(s) of {documents} contract(s) to {out}/; "
                      f"train on them with `clausemill train --extra {out}`.")
        return
    if out.suffix.lower() not in FORMATS:
        raise typer.BadParameter(f"end the file name in {' or '.join(FORMATS)}", param_hint="--out")
    with session_scope(get_settings().effective_database_url, write=False) as session:
        count = write_trail(trail_rows(session, batch_id), out)
    console.print(f"Wrote {count} decision(s) to {out}.")


BatchOption = Annotated[Optional[str], typer.Option("--batch", "--batch-id", help="Only this batch.")]


@review.command()
def assign(
    to: Annotated[Optional[str], typer.Option("--to", help="The user who gets the items.")] = None,
    unassign: Annotated[bool, typer.Option("--unassign", help="Assign them to nobody: anyone may take them.")] = False,
    batch: BatchOption = None,
    contract: Annotated[Optional[str], typer.Option(help="Only this contract (its file name, exactly).")] = None,
    category: Annotated[Optional[str], typer.Option(help="Only this category.")] = None,
    severity: Annotated[Optional[str], typer.Option(help="Only this severity (the playbook stakes).")] = None,
) -> None:
    """Assign the open items the filters match (every open item without filters) to a user, or
    to nobody with --unassign; claims held by anyone else on them are released."""
    import getpass

    from pipelines.playbook.severity import WEIGHTS
    from pipelines.review.assignment import AssignmentError, assign as assign_items
    from pipelines.review.listing import Selection
    from storage.database import session_scope
    from storage.schema import utcnow

    if (to is None) == (not unassign):
        raise typer.BadParameter("give --to NAME, or --unassign (not both)", param_hint="--to")
    if severity is not None and severity not in WEIGHTS:
        raise typer.BadParameter(f"choose one of {', '.join(WEIGHTS)}", param_hint="--severity")
    selection = Selection(batch=batch, contract=contract, category=category, severity=severity)
    try:
        with session_scope(get_settings().effective_database_url) as session:
            count = assign_items(session, selection, to, f"cli:{getpass.getuser()}", utcnow())
    except AssignmentError as error:
        console.print(f"[red]{error}.[/]")
        raise typer.Exit(2) from None
    typer.echo(f"Assigned {count} open item(s) to {to}." if to else f"Unassigned {count} open item(s).")


@review.command()
def agreement(batch: BatchOption = None) -> None:
    """How far the two reviewers of double-reviewed items (`audit --double-review`) agree, per
    category: the pairs of decisions, how many agree, and Cohen's kappa (n/a when undefined)."""
    from pipelines.review.agreement import agreement as reviewers_agreement
    from storage.database import session_scope

    with session_scope(get_settings().effective_database_url, write=False) as session:
        report = reviewers_agreement(session, batch)
    table = Table(title="Reviewer agreement" + (f" in batch {batch}" if batch else ""))
    for column in ("Category", "Pairs", "Agreed", "Kappa"):
        table.add_column(column, justify="left" if column == "Category" else "right")
    for row in report.rows:
        share = f"{row.agreed} ({row.share_agreed:.0%})" if row.share_agreed is not None else "n/a"
        table.add_row(row.category, str(row.pairs), share, f"{row.kappa:.2f}" if row.kappa is not None else "n/a")
    Console().print(table)
    typer.echo(f"{report.waiting} double-reviewed item(s) wait for their second decision.")
