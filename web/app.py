"""`create_app(settings)`: the reviewers' web app, assembled from the router table (web/routes) and the auth gate."""
from __future__ import annotations

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.sessions import SessionMiddleware

from pipelines.settings import Settings
from web.api_errors import refused, validation_failed
from web.auth import AuthGate
from web.login_throttle import LoginThrottle, PasswordChecks
from web.pages import templates
from web.routes import ROUTERS, UPLOADS, ops
from web.secret_key import session_secret
from web.security_headers import SecurityHeaders

SESSION_COOKIE = "clausemill_session"


def create_app(settings: Settings) -> FastAPI:
    """The app.  The interactive API docs are off: they load their scripts from a CDN, and the
    schema itself is at /api/openapi.json (behind login, like the rest of /api).  A request body over
    Settings.max_request_bytes is refused (413) by FastAPI's limit, which sits outside every
    middleware added here: a Content-Length over it before a byte is read, a chunked body once
    it passes it."""
    app = FastAPI(title="clausemill review", openapi_url="/api/openapi.json", docs_url=None, redoc_url=None,
                  max_body_size=settings.max_request_bytes)
    app.add_exception_handler(RequestValidationError, validation_failed)
    app.add_exception_handler(StarletteHTTPException, refused)
    app.state.settings = settings
    app.state.templates = templates()
    app.state.throttle = LoginThrottle(settings.login_max_failures, settings.login_window_s)
    app.state.password_checks = PasswordChecks()
    app.state.metrics = ops.metrics_registry(settings)
    app.state.trainings = {}  # clause type slug -> the `clausemill clauses train` process this app started
    upload_limit = int(settings.upload_max_mb * 1024 * 1024)
    for router in ROUTERS:
        app.include_router(router, max_body_size=upload_limit if router in UPLOADS else None)
    # The last middleware added runs first: the session is read before the gate looks at it.
    app.add_middleware(AuthGate, database_url=settings.effective_database_url)
    app.add_middleware(SessionMiddleware, secret_key=session_secret(settings), session_cookie=SESSION_COOKIE,
                       max_age=settings.session_lifetime_s, same_site="lax", https_only=settings.secure_cookies)
    app.add_middleware(SecurityHeaders)  # outermost of these: even the gate's refusals carry the headers
    return app
