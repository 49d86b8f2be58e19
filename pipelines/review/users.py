"""Reviewers and admins: create, list, disable, authenticate.  Plain functions on a Session.

Passwords are hashed with argon2 (pwdlib).  Users are disabled, never deleted: the audit
trail names them, and a name must not come back as somebody else.  A user's session version
(storage/schema.py) is what makes logging out and disabling end every session already open.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from pwdlib import PasswordHash
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from storage.schema import User

ROLES = ("reviewer", "admin")
MAX_NAME = 80
NAME = re.compile(rf"\w[\w.@+-]{{0,{MAX_NAME - 1}}}")
"""A name that reads the same in a URL path, a log line and the audit trail."""


class UserError(ValueError):
    """A request about users that cannot be honoured; the message says why, for people."""


@dataclass(frozen=True)
class Account:
    """What the app and the CLI show of a user (never the hash)."""

    id: int
    name: str
    role: str
    disabled: bool
    created_at: datetime
    session_version: int

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


@lru_cache(maxsize=1)
def _hasher() -> PasswordHash:
    return PasswordHash.recommended()


@lru_cache(maxsize=1)
def _decoy_hash() -> str:
    """A hash to verify against when the name is unknown, so that a wrong name takes as long
    as a wrong password and the timing does not tell which names exist."""
    return _hasher().hash("clausemill decoy password")


def hash_password(password: str) -> str:
    return _hasher().hash(password)


def verify_password(password: str, password_hash: str) -> bool:
    return _hasher().verify(password, password_hash)


def _account(user: User) -> Account:
    return Account(user.id, user.name, user.role, user.disabled, user.created_at, user.session_version)


def password_problem(password: str, min_length: int) -> str | None:
    """Why `password` may not be set, or None.  Length is the one rule: it is what makes a
    password hard to guess, while rules about digits and symbols only make people write them
    down (NIST SP 800-63B).  Counted in characters, so any alphabet counts alike."""
    if not password:
        return "the password is empty"
    if len(password) < min_length:
        return f"a password needs at least {min_length} characters (CLAUSEMILL_PASSWORD_MIN_LENGTH)"
    return None


def create_user(session: Session, name: str, role: str, password: str, *, min_password_length: int) -> Account:
    """Add a user; raises UserError for a bad name or role, a password password_problem refuses,
    or a name taken."""
    if not NAME.fullmatch(name):
        raise UserError(f"a user name is 1 to {MAX_NAME} letters, digits or . _ @ + -, starting with a letter "
                        f"or digit, not {name!r}")
    if role not in ROLES:
        raise UserError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    if problem := password_problem(password, min_password_length):
        raise UserError(problem)
    if session.scalar(select(User.id).where(User.name == name)) is not None:
        raise UserError(f"a user named {name!r} exists already (disabled users keep their name)")
    user = User(name=name, role=role, password_hash=hash_password(password))
    session.add(user)
    session.flush()
    return _account(user)


def list_users(session: Session) -> list[Account]:
    return [_account(user) for user in session.scalars(select(User).order_by(User.name))]


def disable_user(session: Session, name: str) -> Account:
    """Disable `name`: it can no longer log in, and its open sessions stop working."""
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        raise UserError(f"no user named {name!r}")
    user.disabled = True
    end_sessions(session, user.id)
    return _account(user)


def end_sessions(session: Session, user_id: int) -> None:
    """Make every session `user_id` has open now worthless (logging out, being disabled): a
    copied cookie would otherwise stay good until it expires."""
    session.execute(update(User).where(User.id == user_id).values(session_version=User.session_version + 1))


def active_user(session: Session, user_id: int, session_version: int) -> Account | None:
    """The user a session names, if it still exists, is not disabled and has not logged out
    (or been disabled) since the session began."""
    user = session.get(User, user_id)
    if user is None or user.disabled or user.session_version != session_version:
        return None
    return _account(user)


def authenticate(session: Session, name: str, password: str) -> Account | None:
    """The user whose name and password these are, unless disabled; None otherwise."""
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        verify_password(password, _decoy_hash())
        return None
    if not verify_password(password, user.password_hash) or user.disabled:
        return None
    return _account(user)
