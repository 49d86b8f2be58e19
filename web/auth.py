"""The one gate every request passes: who is logged in, and whether a write is forged.

Enforced in a middleware, before routing, so no route can forget it and a path nobody
defined answers like any other (no probing for what exists):

- A path outside PUBLIC_PATHS needs a session naming a user that exists and is not
  disabled, and the user's session version as it was at login, looked up at every request:
  logging out or disabling a user ends every session they have open, copied cookies too.
  Without one, /api paths answer 401 and pages redirect (303) to /login.
- A request whose method is not GET, HEAD or OPTIONS must carry the session's CSRF token, in
  the form field `csrf_token` or the header X-CSRF-Token, else 403.  /login too: a login form
  posted from another site would log the victim into the attacker's account.  A form that
  cannot be read (over Settings.max_request_bytes, too many fields, a broken multipart body)
  is refused here with its reason (413, 400): this middleware runs outside FastAPI's
  exception handlers, where the parser's error would otherwise be a 500.

The session itself is Starlette's SessionMiddleware: a cookie signed with itsdangerous,
HttpOnly, SameSite=Lax, Secure when Settings.secure_cookies says so (web/app.py).
"""
from __future__ import annotations

import secrets
from urllib.parse import quote

from fastapi import HTTPException, Request
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp

from pipelines.review.users import Account, active_user
from storage.database import session_scope
from web.csrf import CSRF_FIELD, CSRF_HEADER, csrf_token
from web.pages import refusal_page

PUBLIC_PATHS = frozenset({"/login", "/healthz", "/metrics", "/calendar.ics"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def is_api(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


def start_session(session: dict, account: Account) -> None:
    """Log `account` in with a fresh session (and CSRF token): nothing carries over from the
    anonymous one, so a token planted before login is worthless after it."""
    session.clear()
    session["uid"], session["sv"] = account.id, account.session_version
    csrf_token(session)


async def _sent_csrf_token(request: Request) -> str:
    """The token a write carries, from its header or its form.  The body read here is cached
    by BaseHTTPMiddleware and handed on to the route.  Raises Starlette's HTTPException (400,
    413) for a form that cannot be read."""
    header = request.headers.get(CSRF_HEADER)
    if header:
        return header
    if request.headers.get("content-type", "").startswith(FORM_TYPES):
        await request.body()
        value = (await request.form()).get(CSRF_FIELD)
        return value if isinstance(value, str) else ""
    return ""


class AuthGate(BaseHTTPMiddleware):
    def __init__(self, app: ASGIApp, database_url: str) -> None:
        super().__init__(app)
        self.database_url = database_url

    def _account(self, user_id: object, session_version: object) -> Account | None:
        if not isinstance(user_id, int) or not isinstance(session_version, int):
            return None
        with session_scope(self.database_url, write=False) as session:
            return active_user(session, user_id, session_version)

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        path, session = request.url.path, request.session
        if path not in PUBLIC_PATHS:
            account = await run_in_threadpool(self._account, session.get("uid"), session.get("sv"))
            if account is None:
                session.pop("uid", None)
                session.pop("sv", None)
                return _not_logged_in(request)
            request.state.user = account
        if request.method not in SAFE_METHODS:
            try:
                sent = await _sent_csrf_token(request)
            except StarletteHTTPException as error:  # what Starlette's body and form readers raise
                return _refused(request, error.detail, error.status_code)
            expected = session.get("csrf") or ""
            if not expected or not secrets.compare_digest(sent.encode(), expected.encode()):
                return _refused(request, f"This request did not carry the session's CSRF token (form field {CSRF_FIELD} "
                                      f"or header {CSRF_HEADER}): reload the page and try again.", 403)
        return await call_next(request)


def _not_logged_in(request: Request) -> Response:
    if is_api(request.url.path):
        return JSONResponse({"detail": "not logged in: POST /login first"}, status_code=401)
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)


def _refused(request: Request, message: str, status_code: int) -> Response:
    if is_api(request.url.path):
        return JSONResponse({"detail": message}, status_code=status_code)
    return refusal_page(request, status_code, message)


def current_user(request: Request) -> Account:
    """The logged-in user (routes' dependency; AuthGate has already refused anyone else)."""
    return request.state.user


def admin_user(request: Request) -> Account:
    """The logged-in user, who must be an admin (403 otherwise)."""
    user = current_user(request)
    if not user.is_admin:
        raise HTTPException(status_code=403, detail="only admins may do this")
    return user


def local_target(target: str | None) -> str:
    """Where to go after login: a path on this site, never another site (`//host`, `/\\host`)."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")):
        return target
    return "/"
