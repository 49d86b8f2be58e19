"""The portfolio in the browser, behind the same login as the queue: the contracts' triage
table (each contract's latest audit, reviewers' decisions applied, as its stored summary says:
pipelines.reported.refresh_portfolio), searchable and filtered by level, a page at a time by
keyset, and each contract's page, with its batch's reports to download (web/routes/batches.py).

The pages read what report.html shows (pipelines.reports.html_report.contract_view) and render
its contract partial, so the browser and the files never disagree.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, Field, field_validator
from sqlalchemy import ColumnElement, select
from starlette.responses import Response

from pipelines.playbook.severity import RISK_LEVELS
from pipelines.reported import load_documents, refresh_portfolio
from pipelines.reports.html_report import contract_view
from pipelines.reports.search import search_terms
from storage import repository
from storage.database import session_scope
from storage.schema import ContractSummary, Document, ReviewItem
from web.dependencies import User
from web.routes.batches import DOWNLOADS
from web.routes.queue import keyset_url
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
    after: int | None = Field(default=None, ge=1, le=2**31 - 1, description="The page after this contract's row.")
    before: int | None = Field(default=None, ge=1, le=2**31 - 1, description="The page before this contract's row.")

    @field_validator("level", "q", "clause", "within", "after", "before", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    def conditions(self, today: date) -> list[ColumnElement[bool]]:
        """The filters on the contracts' summaries (pipelines.reports.search.matches, in SQL)."""
        S = ContractSummary
        found: list[ColumnElement[bool]] = []
        if self.level is not None:
            found.append(S.level_order == -RISK_LEVELS.index(self.level))
        terms, said_within = search_terms(self.q)
        found += [S.search.contains(term, autoescape=True) for term in terms]
        if self.clause and self.clause.strip():
            found.append(S.clauses.contains(f"\n{self.clause.strip().lower()}\n", autoescape=True))
        within = self.within if self.within is not None else said_within
        if within is not None:
            found.append(S.deadline_on.between(today, today + timedelta(days=within)))
        return found


@dataclass(frozen=True)
class Listed:
    """The document and level a triage row shows (what the template reads of a ContractView's
    doc and assessment)."""

    id: int
    filename: str
    risk_level: str
    risk_score: float


@dataclass(frozen=True)
class Due:
    date: date
    kind: str


@dataclass(frozen=True)
class TriageRow:
    """A contract's row of the triage table, from its summary."""

    doc: Listed
    assessment: Listed | None
    counterparty: str
    contract_type: str
    our_role: str
    term: str
    deadline: Due | None
    top_issues: list[str]

    @classmethod
    def of(cls, s: ContractSummary) -> TriageRow:
        listed = Listed(s.document_id, s.filename, s.level, s.risk_score or 0.0)
        return cls(listed, listed if s.risk_score is not None else None, s.counterparty, s.contract_type, s.our_role,
                   s.term, Due(s.deadline_on, s.deadline_kind or "") if s.deadline_on else None, list(s.top_issues))


@pages.get("/contracts")
def contracts_page(request: Request, user: User, filters: Annotated[ContractFilters, Query()]) -> Response:
    """The triage table: level, counterparty, type, our role, term in force, next deadline, top issues."""
    settings, today = request.app.state.settings, date.today()
    refresh_portfolio(settings.effective_database_url, settings.analysers, today)
    keyset = filters.after is not None or filters.before is not None
    with session_scope(settings.effective_database_url, write=False) as session:
        shown, found = repository.triage(session, filters.conditions(today), PER_PAGE, filters.after, filters.before,
                                         0 if keyset else (filters.page - 1) * PER_PAGE)
        counts = repository.level_counts(session)
    pages_count = max(1, -(-found // PER_PAGE))
    by_level = {level: counts.get(level, 0) for level in reversed(RISK_LEVELS)}

    def page_url(page: int) -> str:
        return keyset_url(request, page, filters.page, [s.document_id for s in shown])

    return render(request, "contracts.html", {"rows": [TriageRow.of(s) for s in shown], "f": filters,
                                              "total": sum(counts.values()), "found": found, "by_level": by_level,
                                              "pages": pages_count, "page_url": page_url,
                                              "levels": list(reversed(RISK_LEVELS))})


@pages.get("/contracts/{document_id}")
def contract_page(request: Request, user: User,
                  document_id: Annotated[int, PathParam(ge=1, le=2**31 - 1)]) -> Response:
    """One contract: its issues, key terms with their evidence, deadlines, findings, and its
    review items with where each stands."""
    settings = request.app.state.settings
    refresh_portfolio(settings.effective_database_url, settings.analysers, date.today())
    with session_scope(settings.effective_database_url, write=False) as session:
        if repository.summary_of(session, document_id) is None:
            raise HTTPException(status_code=404, detail=f"No contract {document_id} in the portfolio: it may have "
                                                        "been audited again since (a later audit replaces it here).")
        doc, assessment = load_documents(session, [document_id], settings.analysers)[0]
        c = contract_view(doc, assessment, date.today())
        items = list(session.execute(select(ReviewItem.id, ReviewItem.category, ReviewItem.reason, ReviewItem.status)
                                     .where(ReviewItem.document_id == document_id)
                                     .order_by(ReviewItem.priority.desc(), ReviewItem.id)))
        batch = session.scalar(select(Document.batch_id).where(Document.id == document_id))
    return render(request, "contract_page.html", {"c": c, "items": items, "batch": batch,
                                                  "downloads": [name for name, _ in DOWNLOADS.values()]})
