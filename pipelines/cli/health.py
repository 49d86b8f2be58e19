"""`clausemill health NAME`: a container's health check for the scheduler and the watcher."""
from __future__ import annotations

from typing import Annotated

import typer

from pipelines.cli.console import console
from pipelines.liveness import DEFAULT_MAX_AGE_S, Process
from pipelines.liveness import health as heartbeat_health
from pipelines.settings import get_settings


def health(
    process: Annotated[Process, typer.Argument(help="Which process to check.", show_default=False)],
    max_age: Annotated[float, typer.Option("--max-age", min=1.0, help="Seconds its last heartbeat may be old; more, and it counts as down.")] = DEFAULT_MAX_AGE_S,
) -> None:
    """Exit 0 while PROCESS's main loop turns (its heartbeat under CLAUSEMILL_DATA_DIR is fresh), 1 saying why when it is stale or missing.

    Run it where the process runs (the same container, the same CLAUSEMILL_DATA_DIR): docker-compose.yml and ops/k8s/ use it as the scheduler's and the watcher's health check.
    """
    alive, sentence = heartbeat_health(get_settings().data_dir, process, max_age)
    if not alive:
        console.print(sentence, markup=False, highlight=False, soft_wrap=True)  # one line in a probe's output
        raise typer.Exit(1)
    typer.echo(sentence)
