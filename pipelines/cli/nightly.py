"""Commands for nightly audits of a contract repository: one incremental run now, and the
scheduler that runs them every night."""
from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from pipelines import logs
from pipelines.cli.batches import (
    AsOfOption, PartyOption, RegisterOption, TierOption, as_of_day, batch_options, contract_inputs, workers_for,
)
from pipelines.cli.console import console
from pipelines.cli.progress import wait_for_batch
from pipelines.cli.stopping import exit_code, stop_celery_worker_on_signal
from pipelines.settings import get_settings

_OUT_HELP = ("Folder for the runs' reports, one subfolder per run (YYYY-MM-DD_HHMM of its start, local time; "
             "no run overwrites another) and `latest`, a link to the last one: the batch reports (report.html, "
             ".xlsx, .json, findings.csv, predictions.jsonl, deadlines.ics) and the nightly ones, nightly.html and "
             "nightly.json (what changed since the last run, upcoming deadlines).")


def nightly(
    paths: Annotated[list[Path] | None, typer.Argument(help="Contract files or folders: the repository to audit (default: CLAUSEMILL_NIGHTLY_PATHS).", show_default=False)] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help=_OUT_HELP)] = Path("clausemill-nightly"),
    full: Annotated[bool, typer.Option("--full", help="Audit every contract again, even those already audited with the same rule pack, model and playbook.")] = False,
    playbook: Annotated[Path | None, typer.Option(help="Playbook YAML (default: the built-in commercial playbook). Changing it re-audits everything.", exists=True, dir_okay=False)] = None,
    view: Annotated[str, typer.Option(help="Report view: 'full' (legal) or 'summary' (business).")] = "full",
    party: PartyOption = None,
    tier: TierOption = None,
    register: RegisterOption = None,
    as_of: AsOfOption = None,
    timeout: Annotated[float | None, typer.Option(help="Give up waiting after this many seconds (server mode: the run goes on and is reported when it ends).")] = None,
) -> None:
    """Audit a contract repository now, incrementally, and report what changed since the last run.

    A contract is audited again only if its bytes, the rule pack, the model or the playbook changed since its last audit; the others keep their results (the run says how many it audited). Runs over the same paths are compared: new, changed and removed contracts, findings that appeared or vanished, risk-level changes and the review items added, plus the deadlines of the next 30, 60 and 90 days (the last day for notice of non-renewal, a renewal whose notice window has just closed, the last day to exercise an option, the end of a term), also as deadlines.ics for a calendar. CLAUSEMILL_WEBHOOK_URL, when set, gets a JSON summary at the end.
    """
    from pipelines.nightly.cron import ScheduleError, zone
    from pipelines.nightly.runs import NightlyJob, finish_run, nightly_paths, send_planned, start_run
    from pipelines.reports import VIEWS
    from workers.celery_app import create_app

    if view not in VIEWS:
        raise typer.BadParameter(f"choose one of {', '.join(VIEWS)}", param_hint="--view")
    day = as_of_day(as_of)
    settings = get_settings()
    logs.configure("WARNING")
    try:
        zone(settings.timezone)
    except ScheduleError as error:
        console.print(f"[red]CLAUSEMILL_TIMEZONE: {error}.[/]")
        raise typer.Exit(2) from None
    paths = paths or list(nightly_paths(settings))
    if not paths:
        console.print("[red]Name the contract folders to audit, or set CLAUSEMILL_NIGHTLY_PATHS.[/]")
        raise typer.Exit(2)
    inputs = contract_inputs(paths)
    job = NightlyJob(tuple(paths), batch_options(playbook, view, party, tier=tier, register=register), full=full)
    mode = "embedded workers" if settings.embedded else settings.effective_broker_url
    console.print(f"Nightly audit of {len(inputs)} document(s) on {mode}")
    try:
        with workers_for(settings, lazy=True) as workers:  # embedded: also the lock that keeps one run per data folder
            app = create_app(settings)
            started = start_run(app, settings, job, window_start=datetime.now(UTC), trigger="manual", out=out)
            if started.plan is None or started.batch_id is None or started.run_id is None:
                console.print(f"[red]The run could not start: {started.reason or 'another run took the same moment'}.[/]")
                raise typer.Exit(1)
            typer.echo(started.plan.describe())
            if workers is not None and started.plan.to_send:  # nothing to audit again: no worker started
                workers.start()
            send_planned(app, settings, started)
            wait_for_batch(app, settings, started.batch_id, started.plan.documents, embedded_workers=workers,
                           timeout_s=timeout)
    except KeyboardInterrupt as stop:
        console.print("[yellow]Interrupted: workers stopped. The next run audits what this one did not finish.[/]")
        raise typer.Exit(exit_code(stop)) from None
    except (RuntimeError, TimeoutError) as error:
        console.print(f"[red]{error}[/]")
        raise typer.Exit(1) from None
    finished = finish_run(settings, started.run_id, as_of=day)
    if finished is None:
        console.print(f"Batch {started.batch_id} was reported by another process (a scheduler), into {out}.")
        return
    report = finished.report
    typer.echo(report.delta.describe())
    counts = report.deadline_counts()
    typer.echo(f"deadlines as of {report.as_of}: {counts['30']} within 30 days, {counts['60']} in 31-60, "
               f"{counts['90']} in 61-90 (deadlines.ics)")
    if finished.written:
        typer.echo(f"Reports in {finished.out} (also {out / 'latest'}): " + ", ".join(p.name for p in finished.written))
    for error in (finished.reports_error, finished.webhook_error):
        if error:
            console.print(f"[red]{error}[/]")
    if finished.reports_error or finished.webhook_error:
        raise typer.Exit(1)


def scheduler(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the runs' reports, one subfolder per run (YYYY-MM-DD_HHMM of its window, local time) and `latest`, a link to the last one.")] = Path("clausemill-nightly"),
    playbook: Annotated[Path | None, typer.Option(help="Playbook YAML (default: the built-in commercial playbook).", exists=True, dir_okay=False)] = None,
    view: Annotated[str, typer.Option(help="Report view: 'full' (legal) or 'summary' (business).")] = "full",
    party: PartyOption = None,
    tier: TierOption = None,
    register: RegisterOption = None,
) -> None:
    """Run nightly audits on a schedule until Ctrl-C or SIGTERM: Celery beat plus the runs' bookkeeping.

    CLAUSEMILL_NIGHTLY_CRON is a crontab(5) line (default '0 2 * * *': 02:00 every night) read in CLAUSEMILL_TIMEZONE (default UTC; daylight saving time neither doubles nor drops a run); CLAUSEMILL_NIGHTLY_PATHS names the folders, separated by ':'. Each window runs once, even with several schedulers on one database: one sends, the others stand by. A run that finds the previous one still going is skipped and recorded; a night missed within 24 h runs once when the scheduler starts, older ones are not replayed. With no servers configured it starts its own embedded workers.
    """
    from pipelines.nightly.beat import STOP_DEADLINE_S, describe_next, run_scheduler
    from pipelines.nightly.cron import Cron, ScheduleError
    from pipelines.nightly.runs import NightlyJob, nightly_paths
    from pipelines.reports import VIEWS

    if view not in VIEWS:
        raise typer.BadParameter(f"choose one of {', '.join(VIEWS)}", param_hint="--view")
    settings = get_settings()
    logs.configure("INFO")
    try:
        cron = Cron(settings.nightly_cron, settings.timezone)
    except ScheduleError as error:
        console.print(f"[red]CLAUSEMILL_NIGHTLY_CRON / CLAUSEMILL_TIMEZONE: {error}.[/]")
        raise typer.Exit(2) from None
    paths = nightly_paths(settings)
    if not paths:
        console.print("[red]Set CLAUSEMILL_NIGHTLY_PATHS to the contract folders to audit (separated by ':').[/]")
        raise typer.Exit(2)
    for path in paths:
        if not path.exists():
            console.print(f"[yellow]{path} does not exist (yet): a run that cannot read it is recorded as failed.[/]")
    job = NightlyJob(paths, batch_options(playbook, view, party, tier=tier, register=register))
    mode = "embedded workers" if settings.embedded else settings.effective_broker_url
    console.print(f"Nightly audits of {', '.join(map(str, paths))} on {mode}: '{cron.expression}' in "
                  f"{cron.timezone_name}, next at {describe_next(cron)}. Reports in {out}/. Ctrl-C stops.")
    stop_celery_worker_on_signal(STOP_DEADLINE_S)  # from here on a stop is the worker's warm shutdown, whenever it comes
    try:
        with workers_for(settings) as workers:
            run_scheduler(settings, job, cron, out, workers)  # type: ignore[arg-type]
    except RuntimeError as error:
        console.print(f"[red]{error}[/]")
        raise typer.Exit(1) from None


