"""Deadlines: the portfolio's coming deadlines as a page, and as an .ics a calendar app
subscribes to with the user's personal link (pipelines/review/calendar_tokens.py keeps the
tokens; pipelines/deadlines.py computes the dates).

/calendar.ics is the one public path that shows contract data: a calendar app cannot log in,
so its token is its login, and without a live one it answers 401 before reading any contract.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from itertools import groupby
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from pipelines.deadlines import KIND_TITLES, CalendarEvent, ics_bytes
from pipelines.reported import refresh_portfolio
from pipelines.review.calendar_tokens import issue_token, live_token_created, revoke_tokens, user_for_token
from pipelines.review.users import Account
from storage import repository
from storage.database import session_scope
from web.dependencies import ReadSession, User
from web.pages import render

pages = APIRouter(include_in_schema=False)

AHEAD = timedelta(days=365)
"""How far ahead the page and the subscription list deadlines: a year, so a calendar shows each
contract's next renewal however long its notice period."""
PER_PAGE = 200
"""Events a page lists; the next page starts after its last (keyset)."""
PRIVATE = {"Cache-Control": "private, no-store"}
FEED_LIMIT = 100_000
"""The most events a subscription carries (the soonest): more than a calendar app keeps in view."""
"""Neither the .ics nor a page holding a new link is kept by a cache or the browser's history."""


@dataclass(frozen=True)
class Event:
    """A stored event of a contract's term (storage.schema.ContractEvent), as the page shows a
    Deadline."""

    date: date
    kind: str
    filename: str
    said: str

    def explanation(self) -> str:
        return self.said


def _page(request: Request, user: Account, new_token: str | None = None, after: int | None = None) -> Response:
    """The calendar page, read after any write the request made: PER_PAGE events from the
    summaries (pipelines.reported.refresh_portfolio), after the event `after`; `new_token` is
    shown this once, right after it was made."""
    settings, today = request.app.state.settings, date.today()
    refresh_portfolio(settings.effective_database_url, settings.analysers, today)
    with session_scope(settings.effective_database_url, write=False) as session:
        created = live_token_created(session, user.id)
        events = repository.events_between(session, today, today + AHEAD, PER_PAGE + 1, after)
    shown = [(e.document_id, Event(e.due, e.kind, e.filename, e.explanation)) for e in events[:PER_PAGE]]
    months = [(month, list(rows)) for month, rows in groupby(shown, key=lambda row: f"{row[1].date:%B %Y}")]
    later = str(request.url_for("calendar_page").include_query_params(after=events[PER_PAGE - 1].id)) \
        if len(events) > PER_PAGE else None
    link = str(request.url_for("calendar_ics").include_query_params(token=new_token)) if new_token else None
    return render(request, "calendar.html", {"months": months, "today": today, "ahead": AHEAD.days, "link": link,
                                             "link_created": created, "notice": request.session.pop("notice", None),
                                             "later": later},
                  headers=PRIVATE if new_token else None)


@pages.get("/calendar", name="calendar_page")
def calendar_page(request: Request, user: User,
                  after: Annotated[int | None, Query(ge=1, le=2**31 - 1, description="The page after this event.")] = None
                  ) -> Response:
    return _page(request, user, after=after)


@pages.post("/calendar/token")
def create_link(request: Request, user: User) -> Response:
    """A new subscription link, shown on the page this answer is (only its hash is stored, so
    no later page can show it again); the user's earlier link stops working."""
    with session_scope(request.app.state.settings.effective_database_url) as session:
        token = issue_token(session, user.id)
    return _page(request, user, new_token=token)


@pages.post("/calendar/token/revoke")
def revoke_link(request: Request, user: User) -> Response:
    with session_scope(request.app.state.settings.effective_database_url) as session:
        revoked = revoke_tokens(session, user.id)
    request.session["notice"] = ("Your calendar link was revoked: calendars subscribed to it get no more updates."
                                 if revoked else "You had no calendar link to revoke.")
    return RedirectResponse("/calendar", status_code=303)


@pages.get("/calendar.ics", name="calendar_ics")
def calendar_ics(request: Request, session: ReadSession, token: str = "") -> Response:
    """The deadlines as iCalendar for a live token's user; 401, reading nothing else, otherwise."""
    if not token or user_for_token(session, token) is None:
        return Response("This calendar link is not valid (revoked or mistyped): make a new one on the Calendar page.\n",
                        status_code=401, media_type="text/plain", headers=PRIVATE)
    settings, today = request.app.state.settings, date.today()
    refresh_portfolio(settings.effective_database_url, settings.analysers, today)
    events = repository.events_between(session, today, today + AHEAD, limit=FEED_LIMIT)
    return Response(ics_bytes([CalendarEvent(e.uid, e.due, e.kind, f"{KIND_TITLES[e.kind]}: {e.contract}", e.description)
                               for e in events], datetime.now(UTC)), media_type="text/calendar", headers=PRIVATE)
