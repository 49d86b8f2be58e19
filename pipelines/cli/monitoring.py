"""Commands that watch the fleet: Flower for people, a Prometheus endpoint for alerting."""
from __future__ import annotations

import os
from typing import Annotated, Optional

import typer

from pipelines import logs
from pipelines.cli.console import console
from pipelines.settings import get_settings

AUTH_HELP = ('Set CLAUSEMILL_FLOWER_BASIC_AUTH="user:password" (several: comma-separated) in the environment or '
             'flower_basic_auth in clausemill.toml')


def flower_credentials(value: str, min_length: int) -> list[str]:
    """The `user:password` pairs of Settings.flower_basic_auth; raises ValueError, naming the
    entry by position only (it holds a password), when one is not a pair or its password breaks
    the review app's rule (Flower shows and controls every worker)."""
    from pipelines.review.users import password_problem

    pairs = [entry.strip() for entry in value.split(",") if entry.strip()]
    for position, pair in enumerate(pairs, start=1):
        user, colon, password = pair.partition(":")
        if not (user and colon and password):
            raise ValueError(f"entry {position} of CLAUSEMILL_FLOWER_BASIC_AUTH is not user:password "
                             "(a password cannot contain a comma)")
        if problem := password_problem(password, min_length):
            raise ValueError(f"entry {position} of CLAUSEMILL_FLOWER_BASIC_AUTH: {problem}")
    return pairs


def flower(
    port: Annotated[int, typer.Option(help="Port for Flower's web UI and API.")] = 5555,
    address: Annotated[str, typer.Option(help="Address to listen on (default: this machine only; 0.0.0.0 for every interface, behind a firewall or a proxy).")] = "127.0.0.1",
    no_auth: Annotated[bool, typer.Option("--no-auth", help="Start even without CLAUSEMILL_FLOWER_BASIC_AUTH: no password, so anyone reaching the port sees and controls the workers (Flower's JSON API stays closed).")] = False,
) -> None:
    """Flower, the Celery web UI, on the configured broker (server mode): workers, tasks, queues.

    The credentials come from CLAUSEMILL_FLOWER_BASIC_AUTH, never the command line, so they
    do not show in the process list."""
    settings = get_settings()
    if settings.embedded:
        console.print("[red]Flower is for server mode: it watches the task events that workers on a shared broker "
                      "send, and embedded workers only run inside `clausemill audit` and send none.[/]\n"
                      "Set CLAUSEMILL_BROKER_URL (and CLAUSEMILL_DATABASE_URL) to your Redis and PostgreSQL, or use "
                      "`clausemill metrics` for an embedded run.")
        raise typer.Exit(2)
    try:
        credentials = flower_credentials(settings.flower_basic_auth, settings.password_min_length)
    except ValueError as error:
        console.print(f"[red]{error}.[/] {AUTH_HELP}.")
        raise typer.Exit(2) from None
    if not credentials and not no_auth:
        console.print(f"[red]Flower needs credentials: it shows and controls every worker.[/] {AUTH_HELP}, "
                      "or pass --no-auth to serve it without a password.")
        raise typer.Exit(2)
    if credentials:
        os.environ["FLOWER_BASIC_AUTH"] = ",".join(credentials)  # read by Flower itself: off the command line
    from pipelines.cli.flower_workers import use_worker_listing_flower
    from workers.celery_app import create_app

    app = create_app(settings)
    use_worker_listing_flower()  # `/api/workers` lists a worker once its events show it alive
    with app.connection() as connection:
        broker = connection.as_uri()  # the password masked
    guard = f"basic auth for {len(credentials)} user(s)" if credentials else "[yellow]no authentication[/]"
    console.print(f"Flower on http://{address}:{port}/ ({guard}), broker {broker}; Ctrl-C stops it.")
    app.start(["flower", f"--port={port}", f"--address={address}"])


def metrics(
    port: Annotated[Optional[int], typer.Option(help="Port to serve /metrics and /healthz on (default: CLAUSEMILL_METRICS_PORT, 9808; 0 picks a free one).")] = None,
    address: Annotated[str, typer.Option(help="Address to listen on (default: this machine only; 0.0.0.0 for every interface, for a Prometheus elsewhere).")] = "127.0.0.1",
) -> None:
    """Serve clausemill's Prometheus metrics (/metrics) and a health check (/healthz).

    Everything is read from the database and the broker at each scrape, so one endpoint
    covers every worker on every machine; no authentication (counts only, no contract text)."""
    settings = get_settings()
    logs.configure("INFO")
    from workers.celery_app import create_app
    from workers.metrics import serve_metrics

    def ready(host: str, bound: int) -> None:
        mode = "embedded data in " + str(settings.data_dir) if settings.embedded else "server mode"
        console.print(f"Metrics on http://{host}:{bound}/metrics and /healthz ({mode}); Ctrl-C stops.")

    port = settings.metrics_port if port is None else port
    try:
        serve_metrics(settings, create_app(settings), address, port, ready)
    except OSError as error:
        console.print(f"[red]Cannot listen on {address}:{port}: {error.strerror or error}[/]")
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        console.print("Stopped.")
