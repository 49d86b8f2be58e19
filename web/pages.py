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
from web.auth import csrf_token
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
