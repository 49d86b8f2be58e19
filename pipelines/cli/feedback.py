"""`clausemill recalibrate`: reviewers' decisions fed back into the machine's confidences."""
from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from pipelines.cli.console import console
from pipelines.settings import get_settings


def recalibrate(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Fit and report, but save nothing.")] = False,
) -> None:
    """Refit each category's calibration, and each key term's value calibration, from reviewers' decisions, as a new version that later audits apply.

    Decisions on presence items ("Is this X?") calibrate the category; decisions on a key term's value (accepted, or corrected to another value) calibrate that value, shown as e.g. "Effective Date (value)". Queued items are weighed against the random audit sample, so the queue's uncertain cases do not teach it that confident findings are doubtful. A new calibration is kept only where it predicts held-out decisions better: the table shows reliability before and after, on contracts it was not fitted on (lower is better).
    """
    from pipelines.review.recalibration import MIN_DECISIONS, fit, params_of, review_labels
    from storage import repository
    from storage.database import session_scope

    url = get_settings().effective_database_url
    with session_scope(url, write=False) as session:
        labels = review_labels(repository.item_trails(session).values())
        queued = repository.review_item_counts(session)
    if not labels:
        console.print("No reviewer decisions on presence or key-term value items yet: work the queue "
                      "(`clausemill serve`) first.")
        raise typer.Exit(1)
    fits = fit(labels, queued)
    table = Table(title=f"Recalibration from {len(labels)} decisions (log loss / Brier / calibration error, "
                        "held-out contracts)")
    for column in ("Category", "Decisions", "Right", "Before", "After", "Kept"):
        table.add_column(column, overflow="fold")
    for f in fits:
        kept = "yes" if f.kept else (f"too few (< {MIN_DECISIONS})" if f.decisions < MIN_DECISIONS else "no: not better")
        table.add_row(f.category, str(f.decisions), f"{f.right:.0%}", _reliability(f.before), _reliability(f.after), kept)
    Console(width=max(Console().width, 120)).print(table)
    params = params_of(fits)
    if dry_run:
        console.print(f"Dry run: {len(params)} categories or values would be recalibrated; nothing saved.")
        return
    if not params:
        console.print("No calibration improved on held-out decisions; nothing saved.")
        return
    with session_scope(url) as session:
        version = repository.save_calibration(session, len(labels), params, {f.category: f.to_dict() for f in fits})
    console.print(f"[green]Saved calibration version {version}[/] ({len(params)} categories or values); "
                  "audits from now on apply it, and their findings record it.")


def _reliability(r) -> str:  # type: ignore[no-untyped-def]
    return f"{r.log_loss:.3f} / {r.brier:.3f} / {r.ece:.3f}"
