"""Commands that run a long-lived process: a worker."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from pipelines import logs
from pipelines.dag import Queue
from pipelines.settings import get_settings


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
