"""What a route asks for, FastAPI's way: the logged-in user, an admin, a read of the database,
and the batch a page is narrowed to.  Written once here, so every route gets them alike.

The gate (web/auth.py) has already refused anyone not logged in before a route runs; these only
hand on what it found.  Writes keep their own transaction in the route (`session_scope(...,
write=True)` around the domain call), where a domain error becomes the answer.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy.orm import Session

from pipelines.review.users import Account
from storage.database import session_scope
from web.auth import admin_user, current_user

User = Annotated[Account, Depends(current_user)]
Admin = Annotated[Account, Depends(admin_user)]


def read_session(request: Request) -> Iterator[Session]:
    """A read-only session for the request, closed when the route returns."""
    with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
        yield session


ReadSession = Annotated[Session, Depends(read_session)]


def batch_filter(batch: str | None) -> str | None:
    """A batch a page or the API is narrowed to, as sent: blank means every batch, and a NUL
    (which no batch id holds, and PostgreSQL refuses in a query) is a 400."""
    if batch is not None and "\x00" in batch:
        raise HTTPException(status_code=400, detail="batch must not contain a NUL character")
    return (batch or "").strip() or None
