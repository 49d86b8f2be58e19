"""`clausemill serve`: the reviewers' web app."""
from __future__ import annotations

from typing import Annotated

import typer

from pipelines import logs
from pipelines.cli.console import console
from pipelines.settings import get_settings


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (127.0.0.1: this machine only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Serve the review app: log in, work the queue (`clausemill users add` makes the first login)."""
    import uvicorn

    from web.app import create_app

    settings = get_settings()
    logs.configure("INFO")
    try:
        app = create_app(settings)
    except (OSError, ValueError) as error:  # the session key: a key file missing, unreadable or empty
        console.print(f"[red]Cannot start the review app: {error}[/]")
        raise typer.Exit(2) from None
    mode = "embedded data in " + str(settings.data_dir) if settings.embedded else "server mode"
    console.print(f"Review app on http://{host}:{port}/ ({mode}); Ctrl-C stops it.")
    # X-Forwarded-For names the client only when a proxy of ours set it: believed from anyone
    # (uvicorn trusts 127.0.0.1 by default), a forged one gives each password guess a fresh
    # login throttle.
    proxies = settings.trusted_proxy_list
    uvicorn.run(app, host=host, port=port, log_level="info", proxy_headers=bool(proxies),
                forwarded_allow_ips=proxies or None)
