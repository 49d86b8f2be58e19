"""Admins assign work: the queue page's form and POST /api/items/assign.

The work is pipelines.review.assignment.assign; this module reads what to assign from a form
or a JSON body and maps an unassignable user (unknown, disabled) to 400.  Reviewers get 403
(web.auth.admin_user), and the gate has already refused a write without the CSRF token.
"""
from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field, ValidationError, field_validator
from starlette.responses import Response

from pipelines.review.assignment import AssignmentError, assign
from pipelines.review.listing import Filters, Selection
from pipelines.review.users import Account
from storage.database import session_scope
from storage.schema import utcnow
from web.api_errors import WRITE, refusals
from web.dependencies import Admin
from web.pages import render

pages = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api")
MAX_IDS = 1000
ItemIdValue = Annotated[int, Field(ge=1, le=2**31 - 1)]


class AssignIn(Filters):
    """The queue's filters (status is always open: only open items move), or ids, and to whom."""

    to: str | None = Field(description="Who gets the items; null gives them back to everyone (unassigns).")
    item_ids: list[ItemIdValue] | None = Field(
        default=None, max_length=MAX_IDS,
        description="Only these items; without them every open item the filters match (all open items without filters).")

    @field_validator("to")
    @classmethod
    def _no_nul(cls, value: str | None) -> str | None:
        if value is not None and "\x00" in value:
            raise ValueError("must not contain a NUL character")
        return value


class Assigned(BaseModel):
    assigned: int
    """How many open items are now assigned to `to`."""
    to: str | None


def _assign(request: Request, selection: Selection, to: str | None, admin: Account) -> int:
    try:
        with session_scope(request.app.state.settings.effective_database_url) as session:
            return assign(session, selection, to, admin.name, utcnow())
    except AssignmentError as error:
        raise HTTPException(status_code=400, detail=str(error)) from error


@api.post("/items/assign", response_model=Assigned,
             responses=refusals(400, *WRITE, _400="The user does not exist or is disabled.",
                                _403="Only admins assign work, and only with the session's CSRF token."))
def assign_api(request: Request, body: AssignIn, admin: Admin) -> Assigned:
    """Assign open items, chosen by id and/or the queue's filters, to a user (or to nobody);
    claims held by anyone else on them are released."""
    selection = body.selection(body.item_ids)
    return Assigned(assigned=_assign(request, selection, body.to, admin), to=body.to)


@pages.post("/assign")
def assign_form(request: Request, admin: Admin, action: Annotated[str, Form()], scope: Annotated[str, Form()],
                to: Annotated[str, Form()] = "", item: Annotated[list[int] | None, Form()] = None,
                batch: Annotated[str, Form()] = "", contract: Annotated[str, Form()] = "",
                category: Annotated[str, Form()] = "", severity: Annotated[str, Form()] = "",
                assignee: Annotated[str, Form()] = "") -> Response:
    """The queue page's form: the ticked items, or every open item its filters match, to the
    chosen user (or to nobody); then back to the same queue, saying how many moved."""
    try:
        filters = Filters(batch=batch, contract=contract, category=category, severity=severity, assignee=assignee)
    except ValidationError as error:
        return _refused(request, "; ".join(e["msg"] for e in error.errors()), {})
    kept = filters.given()
    if action not in ("assign", "unassign") or scope not in ("selected", "filtered"):
        return _refused(request, "Choose to assign or unassign, the ticked items or all matching ones.", kept)
    target = to.strip() or None if action == "assign" else None
    if action == "assign" and target is None:
        return _refused(request, "Choose whom to assign the items to.", kept)
    if scope == "selected" and not item:
        return _refused(request, "No item was ticked: tick the items to assign, or choose all matching items.", kept)
    selection = filters.selection(item if scope == "selected" else None)
    try:
        count = _assign(request, selection, target, admin)
    except HTTPException as error:
        return _refused(request, str(error.detail), kept)
    request.session["notice"] = (f"Assigned {count} open item(s) to {target}." if target else
                                 f"Unassigned {count} open item(s): anyone may take them.")
    return RedirectResponse(_queue_url(kept), status_code=303)


def _queue_url(filters: dict[str, str]) -> str:
    return "/?" + urlencode(filters) if filters else "/"


def _refused(request: Request, message: str, filters: dict[str, str]) -> Response:
    return render(request, "message.html", {"title": "Nothing was assigned", "message": message, "failed": True,
                                            "links": [(_queue_url(filters), "Back to the queue")]}, status_code=400)
