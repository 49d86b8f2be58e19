"""`clausemill prune`: keep the last runs' details and every decision and audit trail, drop the rest.

The rules are storage/retention.py's; `clausemill nightly` and the scheduler apply them after
each run with CLAUSEMILL_KEEP_RUNS, so a scheduled deployment stays bounded with nobody
running this by hand.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from pipelines.cli.console import console, shown
from pipelines.settings import get_settings

if TYPE_CHECKING:
    from storage.retention import Pruned


def prune(
    keep_runs: Annotated[Optional[int], typer.Option(
        "--keep-runs", min=0, help="Keep the details of this many newest runs of each kind (nightly runs, audits, "
        "watcher batches); 0 keeps everything. Default: CLAUSEMILL_KEEP_RUNS (30).", show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would go, delete nothing.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask first (needed when not on a terminal).")] = False,
) -> None:
    """Delete the details of superseded audits in older runs, and older runs' report folders.

    A document that a later audit of the same contract superseded, in a batch older than the last --keep-runs of its kind, loses its page text and word boxes, its segments, its findings rows and the low-confidence candidates of its stored assessment; its row, status, results (risk, issues, key terms, findings shown in reports) and review items stay, and its reports say "details pruned on DATE". Never pruned: the latest audit of every contract, every review decision and the audits it rests on, anything of a running batch, and the record of batches, documents, recoveries, the intake ledger and nightly runs. Older nightly runs' report folders are deleted (never the one `latest` leads to), and expired rows of a database result backend (db+...). Safe to interrupt and to run again.
    """
    from storage import retention
    from storage.database import session_scope

    settings = get_settings()
    keep = settings.keep_runs if keep_runs is None else keep_runs
    if keep == 0:
        typer.echo("keep runs is 0: everything is kept, nothing to prune.")
        return
    url = settings.effective_database_url
    typer.echo(f"Keeping the {keep} newest run(s) of each kind whole, the latest audit of every contract, every "
               "review decision and what it rests on.")
    if not yes:
        planned = retention.prune(settings, keep, dry_run=True)
        typer.echo(describe(planned))
        if planned.nothing or dry_run:
            return
        if not sys.stdin.isatty():
            console.print("[red]Not on a terminal: add --yes to prune (or --dry-run to look first).[/]")
            raise typer.Exit(2)
        if not typer.confirm("Prune these?", default=False):
            typer.echo("Nothing pruned.")
            raise typer.Exit(1)
    elif dry_run:
        typer.echo(describe(retention.prune(settings, keep, dry_run=True)))
        return
    with session_scope(url, write=False) as session:
        before = retention.database_bytes(session)
    done = retention.prune(settings, keep, progress=_progress)
    with session_scope(url, write=False) as session:
        after = retention.database_bytes(session)
    typer.echo(describe(done))
    if before is not None and after is not None:
        typer.echo(f"database in use: {_size(before)} before, {_size(after)} after (SQLite reuses the freed pages; "
                   "VACUUM with no worker running gives them back to the disk)")


def describe(pruned: Pruned) -> str:
    """What a prune did or would do, in lines a person reads."""
    verb = "would be" if pruned.dry_run else "were"
    if pruned.nothing:
        return f"Nothing to prune ({pruned.seconds:.1f} s)."
    rows = pruned.rows
    lines = [f"Details of {pruned.documents} superseded document(s) in {len(pruned.batches)} batch(es) {verb} pruned "
             f"(about {_size(pruned.bytes)} of text and JSON):",
             f"  pages emptied of text and word boxes  {rows['pages']:>10,}",
             f"  segments deleted                      {rows['segments']:>10,}",
             f"  findings rows deleted                 {rows['findings']:>10,}",
             f"  candidates taken from assessments     {rows['candidates']:>10,}"]
    if pruned.folders:
        total = sum(size for _, size in pruned.folders)
        lines.append(f"Report folders of older runs that {verb} deleted: {len(pruned.folders)} ({_size(total)})")
        lines += [f"  {shown(str(path)).plain}  {_size(size)}" for path, size in pruned.folders]
    if pruned.results:
        lines.append(f"Expired result-backend rows {verb} deleted: {pruned.results}")
    lines.append(f"({pruned.seconds:.1f} s{', dry run: nothing deleted' if pruned.dry_run else ''})")
    return "\n".join(lines)


def _progress(pruned: Pruned) -> None:
    if console.is_terminal:
        console.print(f"  {pruned.documents:,} document(s) pruned so far", end="\r")


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} bytes"
