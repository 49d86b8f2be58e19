"""Admins read how far double reviewers agree (pipelines/review/agreement.py computes it)."""
from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from pipelines.review.agreement import agreement
from storage.database import session_scope
from web.auth import admin_user
from web.pages import render

router = APIRouter(dependencies=[Depends(admin_user)], include_in_schema=False)  # a page, not API


@router.get("/agreement", response_class=HTMLResponse)
def agreement_page(request: Request, batch: str | None = None) -> Response:
    """Per category, the pairs of decisions on double-reviewed items and Cohen's kappa."""
    batch = (batch or "").strip() or None
    if batch is not None and "\x00" in batch:
        raise HTTPException(status_code=400, detail="batch must not contain a NUL character")
    with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
        report = agreement(session, batch)
    return render(request, "agreement.html", {"report": report, "batch": batch})
