"""Admins read how far double reviewers agree (pipelines/review/agreement.py computes it)."""
from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from starlette.responses import Response

from pipelines.review.agreement import agreement
from web.auth import admin_user
from web.dependencies import ReadSession, batch_filter
from web.pages import render

pages = APIRouter(dependencies=[Depends(admin_user)], include_in_schema=False)


@pages.get("/agreement")
def agreement_page(request: Request, session: ReadSession, batch: str | None = None) -> Response:
    """Per category, the pairs of decisions on double-reviewed items and Cohen's kappa."""
    batch = batch_filter(batch)
    return render(request, "agreement.html", {"report": agreement(session, batch), "batch": batch})
