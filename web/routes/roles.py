"""The portfolio cut to two readers' roles (the reviewer's desk is the queue, web/routes/queue.py):

- /summary, the general counsel's: contracts per level, the ones most at risk, the deadlines of
  the next 30, 60 and 90 days, and the review backlog;
- /renegotiate, a business owner's: each contract our playbook rates high or critical, the
  soonest deadline first, with what to ask the counterparty for in plain words, without the
  quotes and confidences a lawyer checks them by (those are on the contract's page).

Both read the contract summaries (pipelines/reported.refresh_portfolio), so they cost the same
at 100,000 contracts as at ten.
"""
from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from pipelines.deadlines import HORIZONS, KIND_TITLES
from pipelines.playbook.severity import RISK_LEVELS
from pipelines.reported import refresh_portfolio
from storage import repository
from storage.database import session_scope
from storage.schema import ContractSummary, utcnow
from web.dependencies import User
from web.pages import render
from web.routes.contracts import TriageRow

pages = APIRouter(include_in_schema=False)
AT_RISK = 10
STAKES = ("critical", "high", "medium", "low")
PER_PAGE = 50
WORST = -RISK_LEVELS.index("high")
"""The summaries' level order of "high": high and critical contracts are the ones to renegotiate."""


@pages.get("/summary")
def summary_page(request: Request, user: User) -> Response:
    """The general counsel's page: where the portfolio stands, in one screen."""
    settings, today = request.app.state.settings, date.today()
    refresh_portfolio(settings.effective_database_url, settings.analysers, today)
    with session_scope(settings.effective_database_url, write=False) as session:
        counts = repository.level_counts(session)
        at_risk, risky = repository.triage(session, [ContractSummary.level_order <= WORST], AT_RISK)
        ahead = repository.events_counted(session, today, [today + timedelta(days=d) for d in HORIZONS])
        coming = repository.events_between(session, today, today + timedelta(days=HORIZONS[-1]), AT_RISK)
        backlog = repository.review_backlog(session, utcnow())
    waiting = (utcnow() - backlog.oldest_open).days if backlog.oldest_open else None
    return render(request, "summary.html", {
        "today": today, "total": sum(counts.values()), "by_level": {level: counts.get(level, 0) for level in reversed(RISK_LEVELS)},
        "at_risk": [TriageRow.of(s) for s in at_risk], "risky": risky,
        "ahead": [(days, ahead[today + timedelta(days=days)]) for days in HORIZONS], "coming": coming,
        "kind_titles": KIND_TITLES, "backlog": backlog, "waiting": waiting,
        "stakes": sorted(backlog.open_by_severity, key=lambda s: (STAKES.index(s) if s in STAKES else len(STAKES), s))})


@pages.get("/renegotiate")
def renegotiate_page(request: Request, user: User, page: Annotated[int, Query(ge=1, le=100_000)] = 1) -> Response:
    """A business owner's list: what to ask each counterparty for, and by when."""
    settings, today = request.app.state.settings, date.today()
    refresh_portfolio(settings.effective_database_url, settings.analysers, today)
    with session_scope(settings.effective_database_url, write=False) as session:
        rows, found = repository.renegotiation(session, WORST, PER_PAGE, (page - 1) * PER_PAGE)
    pages_count = max(1, -(-found // PER_PAGE))
    return render(request, "renegotiate.html", {
        "rows": rows, "found": found, "today": today, "kind_titles": KIND_TITLES, "page": page,
        "pages": pages_count, "page_url": lambda n: str(request.url.include_query_params(page=n))})
