"""Logging in and out."""
from __future__ import annotations

import math
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from pipelines.review.users import Account, authenticate, end_sessions
from storage.database import session_scope
from web.auth import local_target, start_session
from web.dependencies import User
from web.login_throttle import ServerBusy
from web.pages import render

pages = APIRouter(include_in_schema=False)
BUSY_RETRY_S = 5
"""What a login refused for a full queue of password checks is told to wait (the queue drains
in about two seconds: web/login_throttle.py)."""


@pages.get("/login")
def login_page(request: Request, next: str = "/") -> Response:
    return render(request, "login.html", {"error": "", "name": "", "next": local_target(next)})


@pages.post("/login")
async def login(request: Request, name: Annotated[str, Form()], password: Annotated[str, Form()],
                next: Annotated[str, Form()] = "/") -> Response:
    """Log in, unless this name has failed too often from this address lately (429), or more
    logins wait for their password check than the server lets queue (503)."""
    throttle, checks = request.app.state.throttle, request.app.state.password_checks
    address = request.client.host if request.client else ""
    form = {"name": name, "next": local_target(next)}
    wait_s = throttle.reserve(name, address)
    if wait_s > 0:
        minutes = math.ceil(wait_s / 60)
        return render(request, "login.html", {**form, "error": f"Too many failed logins for {name} from this address: "
                                              f"try again in {minutes} minute{'s' if minutes != 1 else ''}."},
                      status_code=429, headers={"Retry-After": str(math.ceil(wait_s))})
    try:
        account = await checks.run(_authenticate, request.app.state.settings.effective_database_url, name, password)
    except ServerBusy:
        throttle.withdraw(name, address)
        return render(request, "login.html", {**form, "error": "The server is checking many logins just now: "
                                              f"try again in {BUSY_RETRY_S} seconds."},
                      status_code=503, headers={"Retry-After": str(BUSY_RETRY_S)})
    if account is None:
        return render(request, "login.html", {**form, "error": "Wrong name or password, or the user is disabled."},
                      status_code=401)
    throttle.succeeded(name, address)
    start_session(request.session, account)
    return RedirectResponse(form["next"], status_code=303)


def _authenticate(database_url: str, name: str, password: str) -> Account | None:
    with session_scope(database_url, write=False) as session:
        return authenticate(session, name, password)


@pages.post("/logout")
def logout(request: Request, user: User) -> Response:
    """Log out everywhere: every session this user has open ends, not only this cookie, since
    a cookie copied before logout would otherwise work until it expired."""
    with session_scope(request.app.state.settings.effective_database_url) as session:
        end_sessions(session, user.id)
    request.session.clear()
    return RedirectResponse("/login", status_code=303)
