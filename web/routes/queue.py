"""The queue: the page reviewers start from, and the same listing as JSON under /api."""
from __future__ import annotations

from dataclasses import asdict
from datetime import date
from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel
from starlette.responses import Response

from pipelines.playbook.severity import WEIGHTS
from pipelines.review.double_review import reviews_needed
from pipelines.review.listing import STATUSES, QueueFilters, QueuePage, keep_priorities_current, list_queue
from pipelines.review.users import Account, list_users
from storage.database import session_scope
from web.api_errors import refusals
from web.dependencies import User
from web.pages import render

pages = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api")

Filters = Annotated[QueueFilters, Query()]


class Item(BaseModel):
    id: int
    document_id: int
    batch_id: str
    filename: str
    category: str
    severity: str | None
    reason: str
    priority: float
    priority_parts: dict
    status: str
    assignee: str | None
    claimed_by: str | None
    quote: str
    page: int | None
    reviews_needed: int
    """2 for an item in its batch's double-review share: two reviewers decide it independently."""


class Items(BaseModel):
    items: list[Item]
    total: int
    by_status: dict[str, int]
    page: int
    per_page: int
    pages: int


def _queue(request: Request, filters: QueueFilters, user: Account) -> QueuePage:
    """The listing this user may see: an admin everyone's, a reviewer their own and nobody's."""
    keep_priorities_current(request.app.state, request.app.state.settings.effective_database_url, date.today())
    with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
        return list_queue(session, filters, visible_to=None if user.is_admin else user.name)


@pages.get("/")
def queue_page(request: Request, filters: Filters, user: User) -> Response:
    q = _queue(request, filters, user)

    def page_url(page: int) -> str:
        return keyset_url(request, page, q.page, [r.id for r in q.rows])

    return render(request, "queue.html", {"q": q, "f": filters, "severities": list(WEIGHTS),
                                          "statuses": STATUSES, "page_url": page_url,
                                          "assignable": _assignable(request) if user.is_admin else [],
                                          "notice": request.session.pop("notice", None),
                                          "done": request.session.pop("done", None)})


def keyset_url(request: Request, page: int, current: int, ids: list[int]) -> str:
    """A listing's link to `page`, next to the `current` page showing the rows `ids`: after its
    last row or before its first (keyset), the first page by neither."""
    url = request.url.remove_query_params(["after", "before"]).include_query_params(page=page)
    if page == 1 or not ids:
        return str(url)
    return str(url.include_query_params(**({"after": ids[-1]} if page > current else {"before": ids[0]})))


def _assignable(request: Request) -> list[str]:
    """Whom the admin's assignment form offers: every user who is not disabled."""
    with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
        return [account.name for account in list_users(session) if not account.disabled]


@api.get("/items", response_model=Items, responses=refusals(401))
def api_items(request: Request, filters: Filters, user: User) -> Items:
    """The queue as JSON, most urgent first: the page's items, the total and the count per status."""
    q = _queue(request, filters, user)
    items = [Item(**{k: v for k, v in asdict(r).items() if k != "evidence"}, severity=r.severity,
                  priority_parts=r.priority_parts, quote=str(r.evidence.get("text", "")), page=_page_number(r.evidence),
                  reviews_needed=reviews_needed(r.evidence))
             for r in q.rows]
    return Items(items=items, total=q.total, by_status=q.by_status, page=q.page, per_page=q.per_page, pages=q.pages)


def _page_number(evidence: dict) -> int | None:
    page = evidence.get("page")
    return page if isinstance(page, int) else None
