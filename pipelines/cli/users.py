"""`clausemill users`: the people who log in to the review app (pipelines/review/users.py does the work)."""
from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from pipelines.cli.console import console
from pipelines.settings import get_settings

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

users = typer.Typer(help="List users (the default), add one, or disable one.", no_args_is_help=False,
                    invoke_without_command=True, add_completion=False, pretty_exceptions_show_locals=False)


def read_password() -> str:
    """From a prompt with confirmation at a terminal, else the first line of stdin (for scripts:
    `echo "$PASSWORD" | clausemill users add alice --role admin`), never from the command line."""
    if sys.stdin.isatty():
        return typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    return sys.stdin.readline().rstrip("\r\n")


@users.callback()
def list_all(context: typer.Context) -> None:
    """The users: name, role, whether disabled, when created."""
    if context.invoked_subcommand is not None:
        return
    from pipelines.review.users import list_users
    from storage.database import session_scope

    with session_scope(get_settings().effective_database_url, write=False) as session:
        accounts = list_users(session)
    table = Table(title="Users")
    for column in ("Name", "Role", "Disabled", "Created (UTC)"):
        table.add_column(column)
    for account in accounts:
        table.add_row(account.name, account.role, "yes" if account.disabled else "no",
                      account.created_at.strftime("%Y-%m-%d %H:%M"))
    Console().print(table)


@users.command()
def add(
    name: Annotated[str, typer.Argument(help="The login name.")],
    role: Annotated[str, typer.Option(help="reviewer (decides items) or admin (also assigns work and manages users).")] = "reviewer",
) -> None:
    """Add a user; the password (at least CLAUSEMILL_PASSWORD_MIN_LENGTH characters) comes from
    a prompt, or from stdin when it is not a terminal."""
    from pipelines.review.users import UserError, create_user

    min_length = get_settings().password_min_length
    _run(lambda session: create_user(session, name, role, read_password(), min_password_length=min_length),
         UserError, f"Added {name} ({role}).")


@users.command()
def disable(name: Annotated[str, typer.Argument(help="The login name.")]) -> None:
    """Disable a user: no more logins, and their open sessions stop working.  Users are never
    deleted, since the audit trail names them."""
    from pipelines.review.users import UserError, disable_user

    _run(lambda session: disable_user(session, name), UserError, f"Disabled {name}.")


def _run(change: Callable[[Session], object], error_type: type[Exception], done: str) -> None:
    """Apply `change` in one transaction; a domain error is a message and exit 2, not a trace."""
    from storage.database import session_scope

    try:
        with session_scope(get_settings().effective_database_url) as session:
            change(session)
    except error_type as error:
        console.print(f"[red]{error}.[/]")
        raise typer.Exit(2) from None
    console.print(done)
