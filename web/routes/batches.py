"""Batches in the browser: each one's status and progress, its failures with their reasons,
and its reports to download, written on demand from the stored results so they always carry
the decisions made so far (pipelines.reported.write_batch_reports).  A batch whose superseded
audits were pruned (storage/retention.py) says how many and when."""
from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path as PathParam, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from pipelines.datamodel import DocumentStatus
from pipelines.reported import write_batch_reports
from storage import repository, retention
from storage.database import session_scope
from web.dependencies import User
from web.pages import render

pages = APIRouter(include_in_schema=False)
BatchId = Annotated[str, PathParam(max_length=64, pattern=r"^[^\x00]+$")]
DOWNLOADS: dict[str, tuple[str, str]] = {
    "xlsx": ("report.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    "html": ("report.html", "text/html; charset=utf-8"),
    "json": ("report.json", "application/json"),
    "csv": ("findings.csv", "text/csv; charset=utf-8"),
    "ics": ("deadlines.ics", "text/calendar; charset=utf-8"),
}
"""The batch reports the app hands out, by their suffix."""


@pages.get("/batches")
def batches_page(request: Request, user: User) -> Response:
    """The latest batches, newest first: status and documents per status."""
    with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
        batches = repository.recent_batches(session)
    return render(request, "batches.html", {"batches": batches, "statuses": [s.value for s in DocumentStatus]})


@pages.get("/batches/{batch_id}")
def batch_page(request: Request, user: User, batch_id: BatchId) -> Response:
    """One batch: where it stands, what failed and why, and its reports."""
    with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
        line = next(iter(repository.recent_batches(session, only=batch_id)), None)
        failed = repository.failures(session, batch_id) if line is not None else []
        pruned, pruned_on = retention.pruned_documents(session, batch_id) if line is not None else (0, [])
    if line is None:
        raise HTTPException(status_code=404, detail=f"No batch {batch_id!r}.")
    return render(request, "batch.html", {"b": line, "failed": failed, "downloads": [n for n, _ in DOWNLOADS.values()],
                                          "statuses": [s.value for s in DocumentStatus], "pruned": pruned,
                                          "pruned_on": pruned_on})


@pages.get("/batches/{batch_id}/{download}")
async def batch_download(request: Request, user: User, batch_id: BatchId, download: str) -> Response:
    """One of the batch's reports (report.xlsx, report.html, report.json, findings.csv,
    deadlines.ics), written now from the stored results and the decisions made so far; always
    an attachment (report.html's own script would not run under the app's policy anyway)."""
    suffix = download.rsplit(".", 1)[-1]
    if suffix not in DOWNLOADS or DOWNLOADS[suffix][0] != download:
        raise HTTPException(status_code=404, detail=f"No report named {download!r}: choose one of "
                                                    + ", ".join(name for name, _ in DOWNLOADS.values()))
    filename, media_type = DOWNLOADS[suffix]
    settings = request.app.state.settings

    def written() -> bytes:
        with tempfile.TemporaryDirectory(prefix="clausemill-download-") as tmp:
            try:
                write_batch_reports(settings, batch_id, Path(tmp) / "out", view="full")
            except LookupError as error:
                raise HTTPException(status_code=404, detail=str(error).strip("'\"")) from error
            return (Path(tmp) / "out" / filename).read_bytes()

    body = await run_in_threadpool(written)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", batch_id)[:80] or "batch"  # a header never carries what was typed
    return Response(body, media_type=media_type, headers={
        "Content-Disposition": f'attachment; filename="{safe}-{filename}"', "Cache-Control": "private, no-store"})
