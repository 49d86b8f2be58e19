"""Server-rendered pages, from the report's own Jinja2 environment.

One environment for report.html and the app: the same layout (base.html), stylesheet,
filters and autoescaping.  web/templates comes first in the loader, so the app's pages are
found there and the layout they extend in pipelines/reports/templates.
"""
from __future__ import annotations

from pathlib import Path

import jinja2
from fastapi import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from pipelines.reports.html_report import environment
from web.csrf import csrf_token
from web.security_headers import NONCE, nonce_of

TEMPLATES = Path(__file__).parent / "templates"


def templates() -> Jinja2Templates:
    """The report's environment overlaid with web/templates: its filters, globals and escaping,
    without changing the one report.html is rendered from."""
    report = environment()
    return Jinja2Templates(env=report.overlay(loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(TEMPLATES),
                                                                          report.loader])))


def render(request: Request, name: str, context: dict | None = None, status_code: int = 200,
           headers: dict[str, str] | None = None) -> Response:
    """Render a page with what every page's header needs: the user (None on /login), the
    CSRF token its forms post back and the nonce its inline script and style run by."""
    page = {"user": getattr(request.state, "user", None), "csrf_token": csrf_token(request.session),
            NONCE: nonce_of(request), **(context or {})}
    return request.app.state.templates.TemplateResponse(request, name, page, status_code=status_code, headers=headers)


REFUSALS: dict[int, tuple[str, str]] = {
    400: ("That request is incomplete", "Go back, fill in what is missing, and send it again."),
    403: ("Not allowed", "This page is for admins, or your form was too old: reload the page and try again; "
                         "ask an admin if you need access."),
    404: ("Not found", "It may have been removed, or it is assigned to someone else: go back to the queue."),
    409: ("Someone got there first", "Reload the page to see what changed, then decide again if you need to."),
    413: ("Too large", "Send less at once."),
}


def refusal_page(request: Request, status_code: int, message: str, links: list[tuple[str, str]] | None = None) -> Response:
    """A refusal as a page of the app: what happened, in the refusal's words, and what to do
    about it, with the ways back; every page path's 400, 403, 404, 409 and 413 reads so."""
    title, fix = REFUSALS.get(status_code, ("Refused", "Go back and try again."))
    ways = [*(links or []), ("/next", "Next open item"), ("/", "The queue")]
    return render(request, "message.html", {"title": title, "message": message, "fix": fix, "failed": True,
                                            "links": ways}, status_code=status_code)
