"""The session's CSRF token: made once per session, put in every page's forms, and checked by
the gate (web/auth.py) on every write."""
from __future__ import annotations

import secrets

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"


def csrf_token(session: dict) -> str:
    """The session's CSRF token, made the first time a page needs one."""
    if not session.get("csrf"):
        session["csrf"] = secrets.token_urlsafe(32)
    return session["csrf"]
