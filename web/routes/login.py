"""Logging in and out."""
from __future__ import annotations

import math
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from storage.database import session_scope
from web.auth import local_target, start_session
from web.pages import render
from web.users import Account, authenticate

router = APIRouter(include_in_schema=False)  # pages and probes, not API


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, next: str = "/") -> Response:
    return render(request, "login.html", {"error": "", "name": "", "next": local_target(next)})


@router.post("/login", response_class=HTMLResponse)
async def login(request: Request, name: Annotated[str, Form()], password: Annotated[str, Form()],
                next: Annotated[str, Form()] = "/") -> Response:
    """Log in, unless this name has failed too often from this address lately (429)."""
    throttle = request.app.state.throttle
    address = request.client.host if request.client else ""
    form = {"name": name, "next": local_target(next)}
    wait_s = throttle.retry_after_s(name, address)
    if wait_s > 0:
        minutes = math.ceil(wait_s / 60)
        return render(request, "login.html", {**form, "error": f"Too many failed logins for {name} from this address: "
                                              f"try again in {minutes} minute{'s' if minutes != 1 else ''}."},
                      status_code=429, headers={"Retry-After": str(math.ceil(wait_s))})
    account = await run_in_threadpool(_authenticate, request.app.state.settings.effective_database_url, name, password)
    if account is None:
        throttle.failed(name, address)
        return render(request, "login.html", {**form, "error": "Wrong name or password, or the user is disabled."},
                      status_code=401)
    throttle.succeeded(name, address)
    start_session(request.session, account)
    return RedirectResponse(form["next"], status_code=303)


def _authenticate(database_url: str, name: str, password: str) -> Account | None:
    with session_scope(database_url, write=False) as session:
        return authenticate(session, name, password)


@router.post("/logout")
def logout(request: Request) -> Response:
    request.session.clear()
    return RedirectResponse("/login", status_code=303)
