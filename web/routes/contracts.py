"""The portfolio in the browser, behind the same login as the queue: the contracts' triage
table (each contract's latest audit, reviewers' decisions applied: pipelines.reported.load_latest),
searchable and filtered by level, and each contract's page, with its batch's reports to
download (web/routes/batches.py).

The pages read what report.html shows (pipelines.reports.html_report.contract_view) and render
its contract partial, so the browser and the files never disagree.
"""
from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, Field, field_validator
from sqlalchemy import select
from starlette.responses import Response

from pipelines.playbook.severity import RISK_LEVELS
from pipelines.reported import load_latest
from pipelines.reports.html_report import ContractView, contract_view
from pipelines.reports.search import matches, search_terms
from storage.database import session_scope
from storage.schema import Document, ReviewItem
from web.dependencies import User
from web.routes.batches import DOWNLOADS
from web.pages import render

pages = APIRouter(include_in_schema=False)
PER_PAGE = 50
class ContractFilters(BaseModel):
    """The triage table's filters, as its form sends them; a blank field filters nothing."""

    level: Literal["critical", "high", "medium", "low"] | None = None
    q: str | None = Field(default=None, max_length=500, description='Words or "quoted phrases", all of which must match.')
    clause: str | None = Field(default=None, max_length=100)
    within: int | None = Field(default=None, ge=0, le=3660, description="Next deadline within this many days.")
    page: int = Field(default=1, ge=1, le=100_000)

    @field_validator("level", "q", "clause", "within", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value


def _portfolio(request: Request, document_id: int | None = None) -> list[ContractView]:
    """Every contract's latest audit (or only `document_id`'s) as the triage shows it, worst first."""
    settings = request.app.state.settings
    with session_scope(settings.effective_database_url, write=False) as session:
        reported = load_latest(session, settings.analysers, document_id)
    today = date.today()
    views = [contract_view(doc, a, today) for doc, a in reported.assessed()]
    return sorted(views, key=lambda c: (-(RISK_LEVELS.index(c.assessment.risk_level) if c.assessment else -1),
                                        -(c.assessment.risk_score if c.assessment else 0.0), c.doc.filename))


@pages.get("/contracts")
def contracts_page(request: Request, user: User, filters: Annotated[ContractFilters, Query()]) -> Response:
    """The triage table: level, counterparty, type, our role, term in force, next deadline, top issues."""
    views = _portfolio(request)
    terms, today = search_terms(filters.q), date.today()
    found = [c for c in views if (filters.level is None or c.level == filters.level)
             and matches(c, terms, filters.clause, filters.within, today)]
    pages_count = max(1, -(-len(found) // PER_PAGE))
    shown = found[(filters.page - 1) * PER_PAGE: filters.page * PER_PAGE]
    by_level = {level: sum(1 for c in views if c.level == level) for level in reversed(RISK_LEVELS)}

    def page_url(page: int) -> str:
        return str(request.url.include_query_params(page=page))

    return render(request, "contracts.html", {"rows": shown, "f": filters, "total": len(views), "found": len(found),
                                              "by_level": by_level, "pages": pages_count, "page_url": page_url,
                                              "levels": list(reversed(RISK_LEVELS))})


@pages.get("/contracts/{document_id}")
def contract_page(request: Request, user: User,
                  document_id: Annotated[int, PathParam(ge=1, le=2**31 - 1)]) -> Response:
    """One contract: its issues, key terms with their evidence, deadlines, findings, and its
    review items with where each stands."""
    c = next(iter(_portfolio(request, document_id)), None)
    if c is None:
        raise HTTPException(status_code=404, detail=f"No contract {document_id} in the portfolio: it may have been "
                                                    "audited again since (a later audit replaces it here).")
    with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
        items = list(session.execute(select(ReviewItem.id, ReviewItem.category, ReviewItem.reason, ReviewItem.status)
                                     .where(ReviewItem.document_id == document_id)
                                     .order_by(ReviewItem.priority.desc(), ReviewItem.id)))
        batch = session.scalar(select(Document.batch_id).where(Document.id == document_id))
    return render(request, "contract_page.html", {"c": c, "items": items, "batch": batch,
                                                  "downloads": [name for name, _ in DOWNLOADS.values()]})
