"""The headers every answer of the review app carries, and the nonce its inline code is let run by.

The pages show contract text from untrusted files.  It is escaped (autoescaping, web/pages.py),
and the Content-Security-Policy is the second wall behind that: only this site's own resources
load, and only the inline <script> and <style> elements that carry this response's nonce run,
a fresh random value per request that a page's content cannot guess.  The templates write it
with the `nonce()` global (pipelines/reports/html_report.py), from the `csp_nonce` web/pages.py
passes; report.html written to a file has no policy and no nonce.

Besides: no other site may frame the app (a hidden frame over the decision buttons), the
browser never sniffs a type (a page image is never read as a page), a form posts only here,
and a link leaving the app sends no address (a queue filter's query names a contract).

A plain ASGI middleware, not BaseHTTPMiddleware: it only adds headers, so it never buffers a
response, and it wraps the others (web/app.py adds it last), so the gate's own refusals carry
the headers too.
"""
from __future__ import annotations

import secrets

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

NONCE = "csp_nonce"
"""The request state's key, and the template variable, for this response's nonce."""
FIXED_HEADERS = {
    "X-Frame-Options": "DENY",  # frame-ancestors 'none' for browsers older than CSP level 2
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def content_security_policy(nonce: str) -> str:
    """The policy for a response whose inline scripts and styles carry `nonce`.  Images are the
    app's own (page PNGs); the item page's script fetches only /api on this site."""
    return "; ".join((
        "default-src 'self'",
        f"script-src 'nonce-{nonce}'",
        f"style-src 'nonce-{nonce}'",
        "img-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ))


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        nonce = secrets.token_urlsafe(18)
        scope.setdefault("state", {})[NONCE] = nonce

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = content_security_policy(nonce)
                for name, value in FIXED_HEADERS.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


def nonce_of(request: Request) -> str:
    """This request's nonce ("" outside the middleware, where no policy asks for one)."""
    return getattr(request.state, NONCE, "")
