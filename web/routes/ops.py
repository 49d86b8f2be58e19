"""What operators and Prometheus read without logging in: /healthz and /metrics.

Both hold counts and a database error at most, never contract text (the same rule as
`clausemill metrics`, whose collector /metrics serves).
"""
from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from sqlalchemy import text
from starlette.responses import Response

from pipelines.settings import Settings
from storage.database import session_scope

probes = APIRouter(include_in_schema=False)  # read by operators and Prometheus, not API


def metrics_registry(settings: Settings) -> CollectorRegistry:
    """clausemill's own metrics (workers/metrics.py): read from the database and the broker at
    each scrape, so this endpoint shows the whole fleet like `clausemill metrics` does."""
    from workers.celery_app import create_app
    from workers.metrics import ClausemillCollector

    registry = CollectorRegistry(auto_describe=False)
    registry.register(ClausemillCollector(settings, create_app(settings)))
    return registry


@probes.get("/healthz")
def healthz(request: Request) -> JSONResponse:
    """200 when the database answers, 503 (with the error) when it does not."""
    try:
        with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
            session.execute(text("SELECT 1"))
    except Exception as error:  # noqa: BLE001 - any failure is "not reachable", reported as such
        return JSONResponse({"status": "unavailable", "database": f"{type(error).__name__}: {error}"}, status_code=503)
    return JSONResponse({"status": "ok", "database": "reachable"})


@probes.get("/metrics")
def metrics(request: Request) -> Response:
    return Response(generate_latest(request.app.state.metrics), media_type=CONTENT_TYPE_LATEST)
