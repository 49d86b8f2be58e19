"""`clausemill`: audit contracts, run workers, read results.

With no configuration `audit` runs embedded (its own workers, filesystem broker, SQLite);
with CLAUSEMILL_BROKER_URL / _RESULT_BACKEND / _DATABASE_URL set it submits to the workers
started by `clausemill worker` on those servers and waits for them.
"""
from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from pipelines import logs
from pipelines.dag import Queue
from pipelines.datamodel import BatchStatus, DocumentStatus
from pipelines.settings import Settings, get_settings

app = typer.Typer(help=__doc__, no_args_is_help=True, add_completion=False, pretty_exceptions_show_locals=False)
console = Console(stderr=True)

def batch_options(playbook: Path | None, view: str) -> dict:
    """Options travel with the batch in the database, so remote workers see the playbook too."""
    options: dict = {"view": view}
    if playbook is not None:
        from pipelines.playbook import PlaybookError, parse_playbook

        text = playbook.read_text()
        try:
            parse_playbook(text, origin=str(playbook))  # fail now, with the message, not in every worker
        except PlaybookError as error:
            raise typer.BadParameter(str(error), param_hint="--playbook") from None
        options["playbook"] = text
    return options


def wait_for_batch(settings: Settings, batch_id: str, total: int, *, embedded_workers=None, timeout_s: float | None = None) -> None:
    """Show live progress until the batch's ledger says it is done."""
    from storage import repository
    from storage.database import session_scope

    started = time.monotonic()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[detail]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        bar = progress.add_task(f"batch {batch_id}", total=total, detail="")
        while True:
            with session_scope(settings.effective_database_url, write=False) as session:
                counts = repository.batch_progress(session, batch_id)
                status = repository.batch_status(session, batch_id)
            ended = sum(counts[s] for s in DocumentStatus if s.ended)
            detail = (f"[green]{counts[DocumentStatus.DONE]} done[/] · [red]{counts[DocumentStatus.FAILED]} failed[/] · "
                      f"{counts[DocumentStatus.RUNNING]} running · {counts['pages']} pages")
            progress.update(bar, completed=ended, detail=detail)
            if status is BatchStatus.DONE:
                return
            if embedded_workers is not None and (dead := embedded_workers.dead_workers()):
                tail = embedded_workers.log_tail(dead[0])
                raise RuntimeError(f"the embedded {dead[0]} worker stopped unexpectedly; last log lines:\n{tail}")
            if timeout_s is not None and time.monotonic() - started > timeout_s:
                raise TimeoutError(f"batch {batch_id} did not finish within {timeout_s:.0f} s; "
                                   f"`clausemill status {batch_id}` shows where it is")
            time.sleep(0.25)


def print_summary(batch) -> None:  # type: ignore[no-untyped-def]
    table = Table(title=f"Batch {batch.id}: {batch.count(DocumentStatus.DONE)} done, "
                        f"{batch.count(DocumentStatus.FAILED)} failed")
    for column in ("Document", "Status", "Pages", "Risk", "Findings", "Note"):
        table.add_column(column, overflow="fold")
    style = {DocumentStatus.DONE: "green", DocumentStatus.FAILED: "red"}
    for d in batch.documents:
        note = f"{d.stage}: {d.reason}" if d.reason else (f"same file as {d.duplicate_of}" if d.duplicate_of else "")
        table.add_row(d.filename, f"[{style.get(d.status, 'white')}]{d.status}[/]", str(d.page_count or ""),
                      d.risk_level or "", str(len(d.findings)) if d.status is DocumentStatus.DONE else "", note)
    Console().print(table)


def write_outputs(settings: Settings, batch_id: str, out: Path, view: str) -> list[Path]:
    from pipelines.aggregate import DocumentAssessment
    from pipelines.reports import write_reports
    from pipelines.steps import playbook_for
    from storage import repository
    from storage.database import session_scope

    with session_scope(settings.effective_database_url, write=False) as session:
        batch = repository.load_batch_result(session, batch_id, settings.analysers)
        options = repository.batch_options(session, batch_id)
        assessments = {i: DocumentAssessment.from_dict(a) for i, a in repository.load_assessments(session, batch_id).items()}
    written = write_reports(batch, out, view=view, playbook=playbook_for(options), assessments=assessments)
    print_summary(batch)
    return written


@contextlib.contextmanager
def workers_for(settings: Settings) -> Iterator[object | None]:
    if not settings.embedded:
        yield None
        return
    from workers.lifecycle import EmbeddedWorkers

    with EmbeddedWorkers(settings) as workers:
        yield workers


@app.command()
def audit(
    paths: Annotated[list[Path], typer.Argument(help="Contract files (PDF, scanned PDF, .txt, .docx) or folders of them.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for report.html, report.xlsx, report.json, findings.csv, predictions.jsonl.")] = Path("clausemill-report"),
    playbook: Annotated[Optional[Path], typer.Option(help="Playbook YAML (default: the built-in commercial playbook).", exists=True, dir_okay=False)] = None,
    view: Annotated[str, typer.Option(help="Report view: 'full' (legal: every piece of evidence) or 'summary' (business: one line per contract).")] = "full",
    batch_id: Annotated[Optional[str], typer.Option(help="Name the batch; re-using a name re-runs that batch in place.")] = None,
    wait: Annotated[bool, typer.Option("--wait/--no-wait", help="Wait and write reports, or print the batch id and return (server mode).")] = True,
    timeout: Annotated[Optional[float], typer.Option(help="Give up waiting after this many seconds.")] = None,
) -> None:
    """Audit contracts: run every document through the DAG and write the reports."""
    from pipelines.reports import VIEWS

    if view not in VIEWS:
        raise typer.BadParameter(f"choose one of {', '.join(VIEWS)}", param_hint="--view")
    from pipelines.inputs import collect_inputs

    settings = get_settings()
    logs.configure("WARNING")
    try:
        inputs = collect_inputs(paths)
    except FileNotFoundError as error:
        raise typer.BadParameter(str(error), param_hint="PATH") from None
    if not inputs:
        console.print(f"[red]No .pdf, .txt or .docx files found in {', '.join(map(str, paths))}.[/]")
        raise typer.Exit(2)
    options = batch_options(playbook, view)
    if not wait and settings.embedded:
        console.print("[red]--no-wait needs shared workers: set CLAUSEMILL_BROKER_URL and CLAUSEMILL_DATABASE_URL.[/]")
        raise typer.Exit(2)
    from pipelines.producer import submit_batch
    from workers.celery_app import create_app

    mode = "embedded workers" if settings.embedded else settings.effective_broker_url
    console.print(f"Auditing {len(inputs)} document(s) on {mode}")
    try:
        with workers_for(settings) as workers:
            batch_id = submit_batch(create_app(settings), settings, inputs, batch_id=batch_id, options=options)
            if not wait:
                typer.echo(batch_id)
                return
            wait_for_batch(settings, batch_id, len(inputs), embedded_workers=workers, timeout_s=timeout)
    except KeyboardInterrupt:
        console.print("[yellow]Interrupted: workers stopped. Re-run with --batch-id to finish the batch.[/]")
        raise typer.Exit(130) from None
    except (RuntimeError, TimeoutError) as error:
        console.print(f"[red]{error}[/]")
        raise typer.Exit(1) from None
    written = write_outputs(settings, batch_id, out, view)
    console.print(f"Reports in {out}: " + ", ".join(p.name for p in written))


@app.command()
def worker(
    queues: Annotated[str, typer.Option(help="Which role this worker plays: 'cpu' (ingest, OCR, rules, aggregation) or 'gpu' (the model).")] = "cpu",
    concurrency: Annotated[Optional[int], typer.Option(help="Worker processes (cpu role; default: one per core).")] = None,
) -> None:
    """Run a worker for the configured broker until stopped (SIGTERM finishes current tasks)."""
    from workers.lifecycle import run_worker

    if queues not in set(Queue):
        raise typer.BadParameter(f"choose one of {', '.join(Queue)}", param_hint="--queues")
    logs.configure("INFO")
    run_worker(get_settings(), Queue(queues), concurrency)


@app.command()
def status(batch_id: Annotated[str, typer.Argument(help="The id printed by `audit --no-wait`.")]) -> None:
    """Where a batch stands: documents per status."""
    from storage import repository
    from storage.database import session_scope

    settings = get_settings()
    with session_scope(settings.effective_database_url, write=False) as session:
        state = repository.batch_status(session, batch_id)
        if state is None:
            console.print(f"[red]No batch {batch_id!r} in {settings.effective_database_url}.[/]")
            raise typer.Exit(1)
        counts = repository.batch_progress(session, batch_id)
    typer.echo(f"batch {batch_id}: {state}; " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


@app.command()
def report(
    batch_id: Annotated[str, typer.Argument(help="The batch to report on.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("clausemill-report"),
    view: Annotated[str, typer.Option(help="'full' or 'summary'.")] = "full",
) -> None:
    """Write the reports of a batch (finished or not) from the database."""
    settings = get_settings()
    try:
        written = write_outputs(settings, batch_id, out, view)
    except LookupError as error:
        console.print(f"[red]{error}[/]")
        raise typer.Exit(1) from None
    console.print(f"Reports in {out}: " + ", ".join(p.name for p in written))


@app.command()
def review(
    batch_id: Annotated[Optional[str], typer.Option(help="Only this batch.")] = None,
    limit: Annotated[int, typer.Option(help="How many items.")] = 20,
) -> None:
    """The human review queue: what the machine is least sure of, most urgent first."""
    from storage import repository
    from storage.database import session_scope

    settings = get_settings()
    table = Table(title="Review queue")
    for column in ("Priority", "Document", "Category", "Why", "Evidence"):
        table.add_column(column, overflow="fold")
    with session_scope(settings.effective_database_url, write=False) as session:
        entries = repository.review_queue(session, batch_id, limit)
    for entry in entries:
        quote = str(entry.evidence.get("text", ""))[:120]
        page = entry.evidence.get("page")
        table.add_row(f"{entry.priority:.2f}", entry.filename, entry.category, entry.reason,
                      f"p.{page}: {quote}" if page else quote)
    Console().print(table)


@app.command()
def train(
    data: Annotated[Path, typer.Option(help="CUAD folder: txt/, spans.jsonl, files.csv, master_clauses.csv.", exists=True, file_okay=False)] = Path("../shared/data/cuad"),
    out: Annotated[Optional[Path], typer.Option(help="Checkpoint to write (default: the one workers load, models/checkpoint/clause_experts.safetensors).")] = None,
    device: Annotated[Optional[str], typer.Option(help="'cuda' or 'cpu' (default: CUDA when present).")] = None,
    cache: Annotated[Optional[Path], typer.Option(help="Folder to keep backbone outputs in, so retraining the heads takes minutes.")] = None,
) -> None:
    """Train the router and experts on CUAD (the validation split in docs/ is left out)."""
    from models.checkpoint import DEFAULT_CHECKPOINT
    from models.training import train as train_model

    report = train_model(data, out or DEFAULT_CHECKPOINT, device=device, cache=cache, log=console.print)
    console.print(f"[green]Saved {report.path}[/] (version {report.version}); "
                  f"routing recall@k {report.routing_recall:.3f}; {sum(report.seconds.values()):.0f} s")


@app.command()
def samples(out: Annotated[Path, typer.Argument(help="Folder to write the synthetic contracts into.")] = Path("samples")) -> None:
    """Write synthetic sample contracts (text PDFs, a scan, .txt, .docx, broken files)."""
    from pipelines.samples import write_samples

    written = write_samples(out)
    console.print(f"Wrote {len(written)} sample files to {out} (expected results in {out / 'expected.json'}).")


if __name__ == "__main__":
    sys.exit(app())
