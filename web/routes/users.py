"""Admins manage users: list, add, disable (pipelines/review/users.py does the work)."""
from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from pipelines.review.users import ROLES, UserError, create_user, disable_user, list_users
from storage.database import session_scope
from web.auth import admin_user
from web.dependencies import Admin
from web.pages import render

pages = APIRouter(dependencies=[Depends(admin_user)], include_in_schema=False)


def _page(request: Request, error: str = "", status_code: int = 200) -> Response:
    with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
        users = list_users(session)
    return render(request, "users.html", {"users": users, "roles": ROLES, "error": error}, status_code=status_code)


@pages.get("/users")
def users_page(request: Request) -> Response:
    return _page(request)


@pages.post("/users")
def add_user(request: Request, name: Annotated[str, Form()], role: Annotated[str, Form()],
             password: Annotated[str, Form()]) -> Response:
    settings = request.app.state.settings
    try:
        with session_scope(settings.effective_database_url) as session:
            create_user(session, name, role, password, min_password_length=settings.password_min_length)
    except UserError as error:
        return _page(request, str(error), status_code=400)
    return RedirectResponse("/users", status_code=303)


@pages.post("/users/{name}/disable")
def disable(request: Request, name: str, admin: Admin) -> Response:
    """Disable a user; not oneself, so the last admin cannot lock everyone out by a slip."""
    if name == admin.name:
        return _page(request, "You cannot disable yourself; ask another admin.", status_code=400)
    try:
        with session_scope(request.app.state.settings.effective_database_url) as session:
            disable_user(session, name)
    except UserError as error:
        return _page(request, str(error), status_code=404)
    return RedirectResponse("/users", status_code=303)
