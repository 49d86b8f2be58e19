"""Live progress of a batch, read from the database's ledger."""
from __future__ import annotations

import time

import sqlalchemy.exc
from celery import Celery
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pipelines.cli.console import console
from pipelines.cli.stopping import raise_if_stopped
from pipelines.datamodel import BatchStatus, DocumentStatus
from pipelines.settings import Settings

DATABASE_OUTAGES = (sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError)


def wait_for_batch(app: Celery, settings: Settings, batch_id: str, total: int, *, embedded_workers=None,
                   timeout_s: float | None = None) -> None:
    """Show live progress until the batch's ledger says it is done, running the recovery sweep
    meanwhile: messages lost to a dead worker or broker are sent again.  Embedded workers are
    stopped once the batch is done: they have nothing left to finish."""
    from workers.recovery import SweepLoop

    with SweepLoop(app, settings):
        _show_progress(settings, batch_id, total, embedded_workers, timeout_s)
    if embedded_workers is not None:
        embedded_workers.stop_idle()


def _show_progress(settings: Settings, batch_id: str, total: int, embedded_workers, timeout_s: float | None) -> None:  # type: ignore[no-untyped-def]
    from storage import repository
    from storage.database import session_scope

    started = time.monotonic()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[detail]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        bar = progress.add_task(f"batch {batch_id}", total=total, detail="")
        while True:
            raise_if_stopped()  # a Ctrl-C or SIGTERM whose interrupt a garbage-collection callback swallowed
            try:
                with session_scope(settings.effective_database_url, write=False) as session:
                    counts = repository.batch_progress(session, batch_id)
                    status = repository.batch_status(session, batch_id)
            except DATABASE_OUTAGES:  # a restart or a network blip: the workers retry, and so does this
                progress.update(bar, detail="[yellow]the database does not answer; waiting for it[/]")
                _check_timeout(batch_id, started, timeout_s)
                time.sleep(1)
                continue
            ended = sum(counts[s] for s in DocumentStatus if s.ended)
            detail = (f"[green]{counts[DocumentStatus.DONE]} done[/] · [red]{counts[DocumentStatus.FAILED]} failed[/] · "
                      f"{counts[DocumentStatus.RUNNING]} running · {counts['pages']} pages")
            progress.update(bar, completed=ended, detail=detail)
            if status is BatchStatus.DONE:
                return
            if embedded_workers is not None and (revived := embedded_workers.revive()):
                console.print(f"[yellow]The embedded {', '.join(revived)} worker stopped unexpectedly and was "
                              "started again; the recovery sweep re-sends the documents it held.[/]")
            _check_timeout(batch_id, started, timeout_s)
            time.sleep(0.25)


def _check_timeout(batch_id: str, started: float, timeout_s: float | None) -> None:
    if timeout_s is not None and time.monotonic() - started > timeout_s:
        raise TimeoutError(f"batch {batch_id} did not finish within {timeout_s:.0f} s; "
                           f"`clausemill status {batch_id}` shows where it is")
