"""Reviewers and admins: create, list, disable, authenticate.  Plain functions on a Session.

Passwords are hashed with argon2 (pwdlib).  Users are disabled, never deleted: the audit
trail names them, and a name must not come back as somebody else.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from pwdlib import PasswordHash
from sqlalchemy import select
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
    return Account(user.id, user.name, user.role, user.disabled, user.created_at)


def create_user(session: Session, name: str, role: str, password: str) -> Account:
    """Add a user; raises UserError for a bad name or role, an empty password or a name taken."""
    if not NAME.fullmatch(name):
        raise UserError(f"a user name is 1 to {MAX_NAME} letters, digits or . _ @ + -, starting with a letter "
                        f"or digit, not {name!r}")
    if role not in ROLES:
        raise UserError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    if not password:
        raise UserError("the password is empty")
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
    return _account(user)


def active_user(session: Session, user_id: int) -> Account | None:
    """The user a session names, if it still exists and is not disabled."""
    user = session.get(User, user_id)
    return _account(user) if user is not None and not user.disabled else None


def authenticate(session: Session, name: str, password: str) -> Account | None:
    """The user whose name and password these are, unless disabled; None otherwise."""
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        verify_password(password, _decoy_hash())
        return None
    if not verify_password(password, user.password_hash) or user.disabled:
        return None
    return _account(user)
