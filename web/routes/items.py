"""Working the queue: next item, the item page, its page image, the lease, decisions, undo.

Pages post forms and redirect; /api answers JSON.  The work is done by
pipelines.review.queue (claims, leases, decisions, undo) and pipelines/review/item_view.py (what an item
shows); this module maps their errors to HTTP: ReviewConflict and NotYours 409 with their
message, ValueError 400, LookupError 404.

Only a POST claims an item (next open item, Hold, a decision going on to the next, undo),
and the gate (web/auth.py) wants the session's CSRF token on every POST: a link, an image or
a redirect from another site runs a GET, which only shows.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Literal, TypeVar
from urllib.parse import urlencode

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import RedirectResponse
from pydantic import AwareDatetime, BaseModel
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from pipelines import logs
from pipelines.contract_type import ContractType
from pipelines.parsers.limits import ReadLimits
from pipelines.review.item_view import (
    ItemView,
    PageWords,
    check_visible,
    correction_categories,
    load_item,
    page_words,
)
from pipelines.review.listing import Filters, keep_priorities_current, status_counts
from pipelines.review.queue import (REJECT_REASONS, Decision, NotYours, ReviewConflict, claim_next, hold, reopen,
                                    undo_last)
from pipelines.review.users import Account
from pipelines.review.value_edits import RENEWAL_KIND_WORDS
from pipelines.utc import as_utc
from storage.database import session_scope
from storage.schema import Document, ReviewItem, utcnow
from web.api_errors import WRITE, refusals
from web.deciding import Fields, answered, record
from web.dependencies import User, batch_filter
from web.page_images import PageUnavailable, page_png
from web.pages import refusal_page, render

pages = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api")
ItemId = Annotated[int, PathParam(ge=1, le=2**31 - 1, description="The review item's id.")]
"""Bounded to the id column's range, so PostgreSQL is never asked for an integer it cannot hold."""
T = TypeVar("T")

REASON_LABELS = {"not_a_clause": "it is not a clause of any kind", "duplicate": "it repeats another item",
                 "ocr_error": "the text is garbled (a scan read wrong)", "wrong_category": "it is another clause",
                 "wrong_span": "the words are not the clause's"}
"""What a reject's reason means, as the item page offers it after "No" (the first three; the
others are what "another clause" and "the words are elsewhere" answer)."""
assert set(REASON_LABELS) == set(REJECT_REASONS)
PAGE_CACHE = "page-images"


class Lease(BaseModel):
    item_id: int
    lease_until: AwareDatetime | None
    """When the lease runs out (UTC); None for a decided item, which nobody holds."""


class DecisionIn(BaseModel):
    action: Literal["accept", "correct", "reject"]
    version: int
    category: str | None = None
    start: int | None = None
    end: int | None = None
    value: str | None = None
    """A clause item's corrected normalized value, or a value item's answer as a person types it
    ("March 1, 2021", "90 days", one party per line, "not stated")."""
    reason: Literal["wrong_category", "not_a_clause", "wrong_span", "duplicate", "ocr_error"] | None = None
    comment: str | None = None
    renewal_kind: Literal["automatic", "option", "conditional"] | None = None
    """A Renewal Term answer's kind: renews by itself, at a party's option, or on a condition."""
    renewal_limit: int | None = None
    """A Renewal Term answer's number of renewals allowed; none for no limit."""


def _visible_to(user: Account) -> str | None:
    return None if user.is_admin else user.name


def _settle(request: Request, work: Callable[[Session], T], write: bool = True) -> T:
    """Run `work` in one transaction, its domain errors raised as HTTPExceptions."""
    try:
        with session_scope(request.app.state.settings.effective_database_url, write=write) as session:
            return work(session)
    except (ReviewConflict, NotYours) as error:
        raise HTTPException(status_code=409, detail=str(error)) from error
    except LookupError as error:
        raise HTTPException(status_code=404, detail=str(error).strip("'\"")) from error
    except ValueError as error:
        raise HTTPException(status_code=400, detail=str(error)) from error


def _refused(request: Request, error: HTTPException, item_id: int | None = None) -> Response:
    """An error as a page of the app, with the way back to the item where there is one."""
    links = [(f"/items/{item_id}", "Reload the item")] if item_id is not None and error.status_code != 404 else []
    return refusal_page(request, error.status_code, str(error.detail), links)


def _view(request: Request, item_id: int, user: Account) -> ItemView:
    return _settle(request, lambda s: load_item(s, item_id, _visible_to(user), utcnow()), write=False)


# --- next item ----------------------------------------------------------------------------------

def _claim(request: Request, user: Account, batch: str | None) -> int | None:
    lease_s = request.app.state.settings.review_lease_s
    keep_priorities_current(request.app.state, request.app.state.settings.effective_database_url, date.today())

    def work(session: Session) -> int | None:
        item = claim_next(session, user.name, utcnow(), lease_s, batch_id=batch)
        return None if item is None else item.id
    return _settle(request, work)


def _on_to_next(request: Request, user: Account, batch: str | None) -> Response:
    """Claim the next open item and go to its page; back to the queue, saying so, when none waits."""
    item_id = _claim(request, user, batch)
    if item_id is not None:
        return RedirectResponse(f"/items/{item_id}", status_code=303)
    request.session["notice"] = "No open item is waiting for you" + (f" in batch {batch}" if batch else "") + "."
    return RedirectResponse("/?" + urlencode({"batch": batch}) if batch else "/", status_code=303)


@pages.get("/next")
def next_page(request: Request, user: User, batch: str | None = None) -> Response:
    """The button that claims the next open item: following a link claims nothing."""
    try:
        return render(request, "next.html", {"batch": batch_filter(batch)})
    except HTTPException as error:
        return _refused(request, error)


@pages.post("/next")
def next_form(request: Request, user: User, batch: Annotated[str, Form()] = "") -> Response:
    """Claim the most urgent open item (or the one you hold) and go to its page."""
    try:
        return _on_to_next(request, user, batch_filter(batch))
    except HTTPException as error:
        return _refused(request, error)


@api.post("/items/next", response_model=ItemView,
             responses={204: {"description": "No open item is waiting."}, **refusals(400, *WRITE)})
def api_next(request: Request, user: User, batch: str | None = None) -> ItemView | Response:
    """Claim the most urgent open item (or the one you hold) for a lease; 204 when none waits."""
    item_id = _claim(request, user, batch_filter(batch))
    return Response(status_code=204) if item_id is None else _view(request, item_id, user)


# --- the item -------------------------------------------------------------------------------------

@pages.get("/items/{item_id}")
def item_page(request: Request, item_id: ItemId, user: User) -> Response:
    """The item as it stands; its script renews the lease only on an item the user holds."""
    return _item_page(request, item_id, user)


def _item_page(request: Request, item_id: int, user: Account, error: str | None = None, sent: dict | None = None,
               status_code: int = 200) -> Response:
    """The item page; after a refused answer, with the refusal beside the form and what was sent
    filled back in (a missing reason is asked for there, not on a page of its own)."""
    try:
        view = _view(request, item_id, user)
    except HTTPException as refused:
        return _refused(request, refused)
    renew_ms = max(1, request.app.state.settings.review_lease_s // 3) * 1000
    categories = _settle(request, correction_categories, write=False)
    return render(request, "item.html", {"v": view, "categories": categories, "reasons": list(REASON_LABELS.items()),
                                         "renew_ms": renew_ms, "contract_types": [t.value for t in ContractType],
                                         "renewal_kinds": list(RENEWAL_KIND_WORDS.items()), "error": error,
                                         "sent": sent or {}, "done": request.session.pop("done", None)},
                  status_code=status_code)


@api.get("/items/{item_id}", response_model=ItemView, responses=refusals(401, 404))
def api_item(request: Request, item_id: ItemId, user: User) -> ItemView:
    """The item with its context, the machine's call, the playbook issue and the audit trail."""
    return _view(request, item_id, user)


@pages.get("/items/{item_id}/page.png")
async def page_image(request: Request, item_id: ItemId, user: User,
                     page: Annotated[int | None, Query(ge=1, le=100_000)] = None) -> Response:
    """A page of the item's PDF as PNG: its evidence page (the default) with the evidence boxed,
    or any other page of the document, plain; 404 for a text document or a page it lacks."""
    view = await run_in_threadpool(_view, request, item_id, user)
    number = page or view.page
    if not view.has_image or number is None:
        raise HTTPException(status_code=404, detail=f"{view.filename} has no page image")
    if view.page_count is not None and number > view.page_count:
        raise HTTPException(status_code=404, detail=f"{view.filename} has {view.page_count} pages, not {number}")
    path, sha256 = await run_in_threadpool(_settle, request, lambda s: _file_of(s, view.document_id), False)
    settings = request.app.state.settings
    boxes = view.boxes if number == view.page else []
    try:
        png = await run_in_threadpool(page_png, settings.data_dir / PAGE_CACHE, Path(path), sha256, number,
                                      boxes, limits=ReadLimits.from_settings(settings))
    except PageUnavailable as error:
        # The reviewer learns which page of which document; where the file lies is for the log.
        logs.log("page image unavailable", stage="review", batch_id=view.batch_id, sha256=sha256,
                 document_id=view.document_id, level=logging.WARNING, path=path, page=number, reason=str(error))
        raise HTTPException(status_code=404, detail=f"Page {number} of {view.filename}: {error}") from error
    return Response(png, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})


@api.get("/items/{item_id}/pages/{number}/words", response_model=PageWords, responses=refusals(401, 404))
def words_api(request: Request, item_id: ItemId, number: Annotated[int, PathParam(ge=1, le=100_000)],
              user: User) -> PageWords:
    """A page of the item's document with each word's offsets, box (points) and text: what the
    item page draws over the page image so a reviewer selects words on it."""
    return _settle(request, lambda s: page_words(s, item_id, _visible_to(user), number), write=False)


def _file_of(session: Session, document_id: int) -> tuple[str, str]:
    document = session.get(Document, document_id)
    if document is None or not document.sha256:
        raise LookupError(f"document {document_id} has no file on record")
    return document.path, document.sha256


@api.post("/items/{item_id}/lease", response_model=Lease, responses=refusals(*WRITE, 404, 409))
def lease(request: Request, item_id: ItemId, user: User) -> Lease:
    """Hold the item while you work on it: claims it if nobody holds it, renews your lease if
    you do (your other claims go back to the queue); 409 while someone else holds it."""
    return Lease(item_id=item_id, lease_until=_hold(request, item_id, user))


@pages.post("/items/{item_id}/hold")
def hold_form(request: Request, item_id: ItemId, user: User) -> Response:
    """The item page's Hold button: the item is yours until you decide or the lease runs out."""
    try:
        _hold(request, item_id, user)
    except HTTPException as error:
        return _refused(request, error, item_id)
    return RedirectResponse(f"/items/{item_id}", status_code=303)


def _hold(request: Request, item_id: int, user: Account) -> datetime | None:
    lease_s = request.app.state.settings.review_lease_s
    until = _settle(request, lambda s: _hold_visible(s, item_id, user, lease_s))
    return None if until is None else as_utc(until)


def _hold_visible(session: Session, item_id: int, user: Account, lease_s: int) -> datetime | None:
    now = utcnow()
    check_visible(session, item_id, _visible_to(user))  # 404 for an item this user may not see
    return hold(session, item_id, user.name, now, lease_s)


# --- decisions ------------------------------------------------------------------------------------

def _decide(request: Request, item_id: int, user: Account, action: str, version: int, fields: Fields) -> Decision:
    return _settle(request, lambda s: record(s, item_id, user.name, _visible_to(user), action, version, fields,
                                             utcnow()))


@pages.post("/items/{item_id}/decision")
def decide_form(request: Request, item_id: ItemId, user: User, version: Annotated[int, Form()],
                answer: Annotated[str, Form()] = "", action: Annotated[str, Form()] = "",
                category: Annotated[str, Form()] = "", start: Annotated[str, Form()] = "",
                end: Annotated[str, Form()] = "", value: Annotated[str, Form()] = "",
                reason: Annotated[str, Form()] = "", comment: Annotated[str, Form()] = "",
                renewal_kind: Annotated[str, Form()] = "", renewal_limit: Annotated[str, Form()] = "") -> Response:
    """Answer from the item page (a numbered answer, or an action as the API names it), then go
    on to the next open item, claimed, with what was done and how to undo it on top."""
    fields = Fields(category, start, end, value, reason, comment, renewal_kind or None, renewal_limit)
    try:
        if answer:
            action, fields = answered(answer, fields)
        decision = _decide(request, item_id, user, action, version, fields)
    except (ValueError, HTTPException) as error:
        if isinstance(error, HTTPException) and error.status_code != 400:
            return _refused(request, error, item_id)
        detail = str(error.detail) if isinstance(error, HTTPException) else str(error)
        sent = {"answer": answer, "category": category, "start": start, "end": end, "value": value, "reason": reason,
                "comment": comment, "renewal_kind": renewal_kind, "renewal_limit": renewal_limit}
        return _item_page(request, item_id, user, error=detail, sent=sent, status_code=400)
    request.session["done"] = _what_was_done(request, decision, user)
    return _on_to_next(request, user, None)


def _what_was_done(request: Request, decision: Decision, user: Account) -> dict:
    """The confirmation the next page shows: what was decided on which item, whether it waits
    for a second reviewer, and where the reviewer stands in the item's batch."""
    def work(session: Session) -> dict:
        item = session.get(ReviewItem, decision.item_id)
        document = session.get(Document, item.document_id) if item is not None else None
        if item is None or document is None:
            return {}
        counts = status_counts(session, Filters(batch=document.batch_id), _visible_to(user))
        return {"item_id": item.id, "action": decision.action, "category": item.category,
                "filename": document.filename, "batch": document.batch_id, "waiting": decision.status == "open",
                "decided": counts.get("decided", 0), "total": sum(counts.values())}
    return _settle(request, work, write=False)


@api.post("/items/{item_id}/decision", response_model=Decision, responses=refusals(
    400, *WRITE, 404, 409, _400="The decision is incomplete or does not fit the item (a reason, a span, a category).",
    _409="The item moved past `version`, or someone else holds it: the detail says who decided it first."))
def decide_api(request: Request, item_id: ItemId, body: DecisionIn, user: User) -> Decision:
    """Accept, correct or reject the item as of `version` (the version your copy shows)."""
    fields = Fields(body.category, body.start, body.end, body.value, body.reason, body.comment, body.renewal_kind,
                    body.renewal_limit)
    return _decide(request, item_id, user, body.action, body.version, fields)


class Reopen(BaseModel):
    version: int
    """The item version your copy shows (a decided item's)."""


def _reopen(request: Request, item_id: int, user: Account, version: int) -> Decision:
    lease_s = request.app.state.settings.review_lease_s

    def work(session: Session) -> Decision:
        check_visible(session, item_id, _visible_to(user))
        return reopen(session, item_id, user.name, version, utcnow(), lease_s)
    return _settle(request, work)


@pages.post("/items/{item_id}/reopen")
def reopen_form(request: Request, item_id: ItemId, user: User, version: Annotated[int, Form()]) -> Response:
    """Re-open a decided item (its page is read-only until then): back to its page, open, held by you."""
    try:
        _reopen(request, item_id, user, version)
    except HTTPException as error:
        return _refused(request, error, item_id)
    return RedirectResponse(f"/items/{item_id}", status_code=303)


@api.post("/items/{item_id}/reopen", response_model=Decision, responses=refusals(
    400, *WRITE, 404, 409, _400="The item is open: there is no decision to re-open.",
    _409="The item moved past `version`: the detail says who decided it last."))
def reopen_api(request: Request, item_id: ItemId, body: Reopen, user: User) -> Decision:
    """Re-open a decided item: a "reopen" row joins the trail, the decision that stood no longer
    does, and the item is open again, held by you."""
    return _reopen(request, item_id, user, body.version)


def _undo(request: Request, user: Account) -> Decision:
    lease_s = request.app.state.settings.review_lease_s
    decision = _settle(request, lambda s: undo_last(s, user.name, utcnow(), lease_s))
    if decision is None:
        raise HTTPException(status_code=404, detail="You have no decision to undo.")
    return decision


@pages.post("/undo")
def undo_form(request: Request, user: User) -> Response:
    """Take back your last decision and return to its item, open again and held by you."""
    try:
        decision = _undo(request, user)
    except HTTPException as error:
        return _refused(request, error)
    return RedirectResponse(f"/items/{decision.item_id}", status_code=303)


@api.post("/undo", response_model=Decision, responses=refusals(
    *WRITE, 404, 409, _404="You have no decision to undo.",
    _409="The item was decided again since your decision, which can no longer be taken back."))
def undo_api(request: Request, user: User) -> Decision:
    """Take back your last decision (an "undo" row joins the trail); 404 when there is none."""
    return _undo(request, user)

