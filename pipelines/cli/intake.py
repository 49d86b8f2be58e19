"""Commands of the drop folder: watch an inbox, and list what it took (the intake ledger)."""
from __future__ import annotations

import json
import signal
import threading
from datetime import timezone
from pathlib import Path, PurePosixPath
from types import FrameType
from typing import Annotated, Optional
from zoneinfo import ZoneInfo

import typer
from rich.console import Console
from rich.table import Table

from pipelines import logs
from pipelines.cli.batches import PartyOption, RegisterOption, TierOption, batch_options
from pipelines.cli.console import console, shown
from pipelines.intake.rules import PORTFOLIO_FILES, DropFolder, outbox_of
from pipelines.settings import get_settings


def watch(
    inbox: Annotated[Path, typer.Argument(help="The folder people and programs drop contracts into.", exists=True,
                                          file_okay=False)],
    out: Annotated[Path, typer.Option("--out", "-o", help="The outbox: processed/YYYY-MM-DD/, failed/, duplicates/, "
                                      "reports/BATCH_ID/ and the rolling report.html and report.xlsx. On the "
                                      "inbox's file system, outside the inbox.")],
    poll: Annotated[bool, typer.Option("--poll", help="Poll for changes instead of waiting for file-system events: "
                                       "for NFS/SMB mounts, which raise none (WATCHFILES_POLL_DELAY_MS sets the "
                                       "interval, default 300 ms).")] = False,
    playbook: Annotated[Optional[Path], typer.Option(help="Playbook YAML (default: the built-in commercial playbook).",
                                                     exists=True, dir_okay=False)] = None,
    view: Annotated[str, typer.Option(help="Report view: 'full' (legal) or 'summary' (business).")] = "full",
    party: PartyOption = None,
    tier: TierOption = None,
    register: RegisterOption = None,
) -> None:
    """Watch a drop folder until Ctrl-C or SIGTERM: audit each file dropped into INBOX once and file it under OUTBOX.

    A file is taken once its size and modification time have not changed for CLAUSEMILL_WATCH_STABLE_S seconds; hidden files and folders, ~$ lock files and *.part, *.tmp, *.crdownload downloads are left alone (write a file in a dot-folder, then rename it in).

    Files arriving together are audited as one batch. A failed file lands in failed/ with NAME.error.json saying why: drop it again to retry. A file with the bytes of a contract already audited lands in duplicates/. A restart, even after kill -9, resumes every file where it was.
    """
    from pipelines.intake.watcher import OUTAGES, Watcher, watching
    from pipelines.reports import VIEWS

    if view not in VIEWS:
        raise typer.BadParameter(f"choose one of {', '.join(VIEWS)}", param_hint="--view")
    settings = get_settings()
    logs.configure("INFO")
    options = batch_options(playbook, view, party, tier=tier, register=register)
    drop = DropFolder.at(inbox, out)
    stop, received = threading.Event(), []

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        """Stop between two steps of the loop, so the ledger is left as a step ends."""
        received.append(signum)
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, request_stop)
    mode = "embedded workers" if settings.embedded else settings.effective_broker_url
    finding = "polling" if poll else "file-system events"
    console.print(f"Watching {drop.inbox} → {drop.outbox} on {mode} ({finding}, rescan every "
                  f"{settings.watch_rescan_s:g} s, files taken after {settings.watch_stable_s:g} s unchanged). "
                  "Ctrl-C stops.")
    try:
        with watching(settings, drop) as (app, workers):
            Watcher(settings, drop, app, poll=poll, options=options, view=view, embedded_workers=workers).run(stop)
    except ValueError as error:
        console.print(f"[red]{error}[/]")
        raise typer.Exit(2) from None
    except (RuntimeError, *OUTAGES) as error:  # another watcher, a worker that keeps dying, no database
        console.print(f"[red]{error}[/]")
        raise typer.Exit(1) from None
    console.print("Stopped. Files under way resume at the next start.")
    if signal.SIGINT in received:
        raise typer.Exit(130)


def intake(
    json_output: Annotated[bool, typer.Option("--json", help="Print the ledger as a JSON array (for scripts).")] = False,
    inbox: Annotated[Optional[Path], typer.Option(help="Only files taken from this inbox.")] = None,
) -> None:
    """The intake ledger: every file a watcher took, its state, why, its batch and report."""
    from storage import intake as ledger
    from storage.database import session_scope

    settings = get_settings()
    with session_scope(settings.effective_database_url, write=False) as session:
        rows = ledger.ledger(session, str(inbox.resolve()) if inbox else None)
        names = {row.id: row.name for row in rows}
    zone = ZoneInfo(settings.timezone)
    entries = [_entry(row, names, zone) for row in rows]
    if json_output:
        typer.echo(json.dumps(entries, indent=2, ensure_ascii=False))
        return
    table = Table(title=f"Intake ledger: {len(entries)} file(s)")
    for column in ("File", "State", "Reason", "Batch", "Report", "SHA-256"):
        table.add_column(column, overflow="fold")
    for entry in entries:
        table.add_row(shown(entry["file"]), entry["state"], shown(entry["reason"]), shown(entry["batch"]),
                      shown(entry["report"]), (entry["sha256"] or "")[:12])
    Console().print(table)


def _entry(row, names: dict[int, str], zone: ZoneInfo) -> dict:  # type: ignore[no-untyped-def]
    """One ledger row for people and scripts; `report` is the batch's report.html once written
    (a file that needed no batch, a duplicate of an earlier audit, is in the rolling report's
    contracts through its original)."""
    work = Path(row.work_path)
    outbox = outbox_of(work, PurePosixPath(row.name))
    report = DropFolder(Path(row.inbox), outbox).report_folder(row.batch_id) / PORTFOLIO_FILES[0] if row.batch_id else None

    def local(moment):  # type: ignore[no-untyped-def]
        return moment.replace(tzinfo=timezone.utc).astimezone(zone).isoformat(timespec="seconds") if moment else None

    return {
        "file": row.name, "inbox": row.inbox, "sha256": row.sha256, "size_bytes": row.size_bytes,
        "state": str(row.state), "reason": row.reason, "batch": row.batch_id, "document": row.document_id,
        "original": names.get(row.original_id) if row.original_id else None, "outcome": row.outcome_path,
        "report": str(report) if report is not None and report.exists() else None,
        "claimed_at": local(row.claimed_at), "finished_at": local(row.finished_at), "intake": row.id,
    }
