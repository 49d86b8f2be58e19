"""Each user's secret for subscribing to the deadlines calendar.  Plain functions on a Session.

A calendar app (Outlook, Google Calendar) fetches an .ics URL on its own schedule and cannot
log in, so the URL itself carries the secret: whoever holds it reads the portfolio's deadlines.
Hence:

  - The token is stored as its sha256 only: a copy of the database gives no working URL, and
    the page can show the URL only once, right after it is made.
  - A user has one live token at a time: making a new one revokes the earlier, so a link
    pasted somewhere it should not be is undone by making another or by revoking it.
  - A token is looked up by its hash, never compared with stored tokens one by one, so the
    time a guess takes tells nothing about how close it was; a revoked token, an unknown one
    and a disabled user's all read alike: no calendar.
"""
from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from pipelines.review.users import Account, active_user
from storage.schema import CalendarToken, User, utcnow

TOKEN_BYTES = 32
"""Random bytes in a token (secrets.token_urlsafe): 256 bits, never guessed."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_token(session: Session, user_id: int) -> str:
    """A new token for `user_id`, returned this once (only its hash is kept); the user's
    earlier tokens stop working."""
    revoke_tokens(session, user_id)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    session.add(CalendarToken(user_id=user_id, token_hash=_digest(token)))
    session.flush()
    return token


def revoke_tokens(session: Session, user_id: int) -> int:
    """Stop every live token of `user_id` from working; how many there were."""
    result = session.execute(update(CalendarToken)
                             .where(CalendarToken.user_id == user_id, CalendarToken.revoked_at.is_(None))
                             .values(revoked_at=utcnow()))
    return result.rowcount


def live_token_created(session: Session, user_id: int) -> datetime | None:
    """When the user's live token was made (naive UTC), or None without one: what the page can
    say of a link whose token it no longer knows."""
    return session.scalar(select(CalendarToken.created_at)
                          .where(CalendarToken.user_id == user_id, CalendarToken.revoked_at.is_(None))
                          .order_by(CalendarToken.id.desc()).limit(1))


def user_for_token(session: Session, token: str) -> Account | None:
    """The user a live token belongs to, unless disabled; None for a revoked or unknown token."""
    user = session.scalar(select(User).join(CalendarToken, CalendarToken.user_id == User.id)
                          .where(CalendarToken.token_hash == _digest(token), CalendarToken.revoked_at.is_(None)))
    return active_user(session, user.id, user.session_version) if user is not None else None
