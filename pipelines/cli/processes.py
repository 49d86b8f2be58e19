"""Commands that run the cluster's own processes: a worker, and the one-shot migration."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from pipelines import logs
from pipelines.dag import Queue
from pipelines.settings import get_settings


def worker(
    queues: Annotated[str, typer.Option(help="Which role this worker plays: 'cpu' (ingest, OCR, rules, aggregation) or 'gpu' (the model).")] = "cpu",
    concurrency: Annotated[Optional[int], typer.Option(help="Worker processes (cpu role; default: one per core).")] = None,
    hostname: Annotated[Optional[str], typer.Option(help="Node name shown in Flower and pinged by health checks (default: ROLE-PID@HOST; %h is the host).")] = None,
) -> None:
    """Run a worker for the configured broker until stopped (SIGTERM finishes current tasks)."""
    from workers.lifecycle import run_worker

    if queues not in set(Queue):
        raise typer.BadParameter(f"choose one of {', '.join(Queue)}", param_hint="--queues")
    logs.configure("INFO")
    run_worker(get_settings(), Queue(queues), concurrency, hostname)


def migrate() -> None:
    """Bring the database (CLAUSEMILL_DATABASE_URL) to the current schema, then exit.

    Every process also migrates on first use; a cluster runs this once before the others
    start, so a failing migration is one clear error rather than one per worker."""
    from sqlalchemy import make_url

    from storage.migrate import upgrade

    settings = get_settings()
    upgrade(settings.effective_database_url)
    shown = make_url(settings.effective_database_url).render_as_string(hide_password=True)
    typer.echo(f"database at the current schema: {shown}")
