"""Commands on batches: audit contracts, see where a batch stands, write its reports."""
from __future__ import annotations

import contextlib
from datetime import date
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Optional

import typer

from pipelines import logs
from pipelines.cli.console import console
from pipelines.cli.stopping import exit_code
from pipelines.cli.outputs import write_outputs
from pipelines.cli.progress import wait_for_batch
from pipelines.settings import Settings, get_settings


def contract_inputs(paths: list[Path]) -> list[Path]:
    """The contracts under `paths`; a missing path or no contract at all stops the command (exit 2)."""
    from pipelines.inputs import collect_inputs

    try:
        inputs = collect_inputs(paths)
    except FileNotFoundError as error:
        raise typer.BadParameter(str(error), param_hint="PATH") from None
    if not inputs:
        console.print(f"[red]No .pdf, .txt or .docx files found in {', '.join(map(str, paths))}.[/]")
        raise typer.Exit(2)
    return inputs


PartyOption = Annotated[Optional[list[str]], typer.Option(
    "--party", help="Who we are, as contracts name us (repeat for other spellings or affiliates): the report "
    "shows our role, and a restraint that binds only the other side is not an issue. Default: "
    "CLAUSEMILL_OUR_PARTY, else the playbook's `we:`.")]


TierOption = Annotated[Optional[str], typer.Option(
    help="The business tier of every contract in this batch (standard, important, critical, or "
    "CLAUSEMILL_REVIEW_TIERS): a higher tier's review items rank higher.")]
AsOfOption = Annotated[Optional[str], typer.Option(
    "--as-of", help="The day (YYYY-MM-DD) deadlines and the term in force are counted from, and the 30/60/90-day "
    "horizons (default: today).", show_default=False)]
RegisterOption = Annotated[Optional[Path], typer.Option(
    help="Contract register (CSV with a `file` column and `tier` and/or `value`): each contract's "
    "tier and value weigh its review items' priority; it outranks --tier.", exists=True, dir_okay=False)]


def as_of_day(text: str | None) -> date | None:
    """--as-of as a date; a readable refusal for anything else."""
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a date like 2026-12-31", param_hint="--as-of") from None


def batch_options(playbook: Path | None, view: str, party: list[str] | None = None, due: str | None = None,
                  double_review: float = 0.0, tier: str | None = None, register: Path | None = None) -> dict:
    """Options travel with the batch in the database, so remote workers see the playbook too."""
    options: dict = {"view": view}
    tiers = get_settings().review_tiers
    if tier is not None:
        if tier not in tiers:
            raise typer.BadParameter(f"{tier!r} is not a tier: choose one of {', '.join(tiers)}", param_hint="--tier")
        options["tier"] = tier
    if register is not None:
        from pipelines.review.register import RegisterError, read_register

        try:
            options["register"] = read_register(register, tiers)
        except RegisterError as error:
            raise typer.BadParameter(str(error), param_hint="--register") from None
    if not 0.0 <= double_review <= 1.0:
        raise typer.BadParameter(f"{double_review} is not a share between 0 and 1", param_hint="--double-review")
    if double_review > 0:
        options["double_review"] = double_review
    if due is not None:
        try:
            options["due"] = date.fromisoformat(due).isoformat()
        except ValueError:
            raise typer.BadParameter(f"{due!r} is not a date (YYYY-MM-DD)", param_hint="--due") from None
    names = party or get_settings().our_parties
    if names:
        options["party"] = list(names)
    if playbook is not None:
        from pipelines.playbook import PlaybookError, parse_playbook

        from storage.clause_types import defined_names
        from storage.database import session_scope

        text = playbook.read_text()
        with session_scope(get_settings().effective_database_url, write=False) as session:
            taught = frozenset(defined_names(session))
        try:
            parse_playbook(text, origin=str(playbook), taught=taught)  # fail now, with the message, not in every worker
        except PlaybookError as error:
            raise typer.BadParameter(str(error), param_hint="--playbook") from None
        options["playbook"] = text
    return options


@contextlib.contextmanager
def workers_for(settings: Settings, *, lazy: bool = False) -> Iterator[object | None]:
    """The embedded workers (None in server mode); `lazy`: taken (the data folder's lock) but
    started only by `.start()`, once there is something to audit."""
    if not settings.embedded:
        yield None
        return
    from workers.lifecycle import EmbeddedWorkers

    with EmbeddedWorkers(settings, lazy=lazy) as workers:
        yield workers


def audit(
    paths: Annotated[list[Path], typer.Argument(help="Contract files (PDF, scanned PDF, .txt, .docx) or folders of them.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for report.html, report.xlsx, report.json, findings.csv, predictions.jsonl and deadlines.ics.")] = Path("clausemill-report"),
    playbook: Annotated[Optional[Path], typer.Option(help="Playbook YAML (default: the built-in commercial playbook).", exists=True, dir_okay=False)] = None,
    view: Annotated[str, typer.Option(help="Report view: 'full' (legal: every piece of evidence) or 'summary' (business: one line per contract).")] = "full",
    batch_id: Annotated[Optional[str], typer.Option(help="Name the batch; re-using a name re-runs that batch in place.")] = None,
    wait: Annotated[bool, typer.Option("--wait/--no-wait", help="Wait and write reports, or print the batch id and return (server mode).")] = True,
    timeout: Annotated[Optional[float], typer.Option(help="Give up waiting after this many seconds.")] = None,
    party: PartyOption = None,
    due: Annotated[Optional[str], typer.Option(help="When this batch's review must be done (YYYY-MM-DD): its "
                                               "review items rank higher as the date nears.")] = None,
    double_review: Annotated[float, typer.Option(min=0.0, max=1.0, help="The share (0 to 1) of this batch's review "
                                                 "items that two reviewers decide independently, drawn the same on "
                                                 "every re-run; `clausemill review agreement` compares them.")] = 0.0,
    tier: TierOption = None,
    register: RegisterOption = None,
    as_of: AsOfOption = None,
) -> None:
    """Audit contracts: run every document through the DAG and write the reports."""
    from pipelines.reports import VIEWS

    if view not in VIEWS:
        raise typer.BadParameter(f"choose one of {', '.join(VIEWS)}", param_hint="--view")
    day = as_of_day(as_of)
    settings = get_settings()
    logs.configure("WARNING")
    inputs = contract_inputs(paths)
    options = batch_options(playbook, view, party, due, double_review, tier, register)
    if not wait and settings.embedded:
        console.print("[red]--no-wait needs shared workers: set CLAUSEMILL_BROKER_URL and CLAUSEMILL_DATABASE_URL.[/]")
        raise typer.Exit(2)
    from pipelines.producer import submit_batch
    from workers.celery_app import create_app

    mode = "embedded workers" if settings.embedded else settings.effective_broker_url
    console.print(f"Auditing {len(inputs)} document(s) on {mode}")
    try:
        with workers_for(settings) as workers:
            celery_app = create_app(settings)
            batch_id = submit_batch(celery_app, settings, inputs, batch_id=batch_id, options=options)
            if not wait:
                typer.echo(batch_id)
                return
            wait_for_batch(celery_app, settings, batch_id, len(inputs), embedded_workers=workers, timeout_s=timeout)
    except KeyboardInterrupt as stop:
        console.print("[yellow]Interrupted: workers stopped. Re-run with --batch-id to finish the batch.[/]")
        raise typer.Exit(exit_code(stop)) from None
    except (RuntimeError, TimeoutError) as error:
        console.print(f"[red]{error}[/]")
        raise typer.Exit(1) from None
    try:
        written = write_outputs(settings, batch_id, out, view, day)
    except OSError as error:  # disk full, a read-only folder: the batch is audited and stays in the database
        console.print(f"[red]{error}[/]\nThe batch is audited; write its reports elsewhere with "
                      f"`clausemill report {batch_id} --out DIR`.")
        raise typer.Exit(1) from None
    console.print(f"Reports in {out}: " + ", ".join(p.name for p in written))


def status(batch_id: Annotated[str, typer.Argument(help="The id printed by `audit --no-wait`.")]) -> None:
    """Where a batch stands: documents per status, and the `batch` label of its metrics."""
    from storage import repository
    from storage.database import session_scope
    from storage.metrics_queries import batch_label

    settings = get_settings()
    with session_scope(settings.effective_database_url, write=False) as session:
        state = repository.batch_status(session, batch_id)
        if state is None:
            console.print(f"[red]No batch {batch_id!r} in {settings.effective_database_url}.[/]")
            raise typer.Exit(1)
        counts = repository.batch_progress(session, batch_id)
    typer.echo(f"batch {batch_id}: {state}; " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    typer.echo(f'metrics: clausemill_documents{{batch="{batch_label(batch_id)}"}}')


def report(
    batch_id: Annotated[str, typer.Argument(help="The batch to report on.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("clausemill-report"),
    view: Annotated[str, typer.Option(help="'full' or 'summary'.")] = "full",
    as_of: AsOfOption = None,
) -> None:
    """Write the reports of a batch (finished or not) from the database."""
    day = as_of_day(as_of)
    settings = get_settings()
    try:
        written = write_outputs(settings, batch_id, out, view, day)
    except (LookupError, OSError) as error:
        console.print(f"[red]{error}[/]")
        raise typer.Exit(1) from None
    console.print(f"Reports in {out}: " + ", ".join(p.name for p in written))

