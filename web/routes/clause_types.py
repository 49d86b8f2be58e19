"""Admins teach clause types (issue 44): define one, give it examples (typed, or picked from a
search of the audited contracts), train it, retire it.  storage/clause_types.py does the work;
training runs `clausemill clauses retrain` in a process of its own (the app never loads the model),
one at a time per type, and the type's page follows it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from pipelines.clause_types.examples import Quote, parse_span, read_quotes_file
from pipelines.clause_types.names import ClauseTypeError
from storage import clause_types as store
from storage.database import session_scope
from web.auth import admin_user
from web.dependencies import Admin
from web.pages import refusal_page, render

pages = APIRouter(dependencies=[Depends(admin_user)], include_in_schema=False)
SEARCH_LIMIT = 30
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


@pages.get("/clause-types")
def list_page(request: Request, error: str = "", status_code: int = 200) -> Response:
    with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
        lines = store.list_types(session)
    return render(request, "clause_types.html", {"types": lines, "error": error}, status_code=status_code)


@pages.post("/clause-types")
def define(request: Request, admin: Admin, name: Annotated[str, Form()], description: Annotated[str, Form()],
           quotes: Annotated[str, Form()] = "") -> Response:
    """A new type from its name, description and quotes (a blank line between quotes)."""
    try:
        with session_scope(request.app.state.settings.effective_database_url) as session:
            clause_type, created = store.define_type(session, name, description, admin.name)
            if not created:
                raise ClauseTypeError(f"a clause type named {clause_type.name!r} already exists: add to it on its page")
            store.add_examples(session, clause_type, read_quotes_file(quotes, "the quotes", True), admin.name)
            slug = clause_type.slug
    except ClauseTypeError as error:
        return list_page(request, str(error), status_code=400)
    return RedirectResponse(f"/clause-types/{slug}", status_code=303)


@pages.get("/clause-types/{slug}")
def type_page(request: Request, slug: str, q: Annotated[str, Query(max_length=200)] = "", error: str = "",
              status_code: int = 200) -> Response:
    with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
        clause_type = store.type_by_slug(session, slug)
        if clause_type is None:
            return refusal_page(request, 404, f"There is no clause type {slug!r}.", [("/clause-types", "Clause types")])
        line = next(t for t in store.list_types(session) if t.name == clause_type.name)
        examples = store.examples_of(session, clause_type)
        versions = store.versions_of(session, clause_type)
        hits = store.search_segments(session, q, SEARCH_LIMIT, clause_type) if q.strip() else []
    return render(request, "clause_type.html", {
        "t": line, "slug": slug, "examples": examples, "versions": list(reversed(versions)), "q": q, "hits": hits,
        "error": error, "training": _training(request, slug)}, status_code=status_code)


@pages.post("/clause-types/{slug}/quotes")
def add_quotes(request: Request, slug: str, admin: Admin, quotes: Annotated[str, Form()] = "",
               counters: Annotated[str, Form()] = "", description: Annotated[str, Form()] = "") -> Response:
    """Typed examples and counter-examples, and a new description when one is given."""
    def change(session, clause_type) -> None:  # noqa: ANN001
        if description.strip():
            store.define_type(session, clause_type.name, description, admin.name)
        given = read_quotes_file(quotes, "the examples", True) + read_quotes_file(counters, "the counter-examples", False)
        store.add_examples(session, clause_type, given, admin.name)
    return _change(request, slug, change)


@pages.post("/clause-types/{slug}/picks")
def add_picks(request: Request, slug: str, admin: Admin, pick: Annotated[list[str], Form()],
              label: Annotated[str, Form()] = "example", q: Annotated[str, Form()] = "") -> Response:
    """Segments ticked in a search's hits, as examples (or counter-examples)."""
    def change(session, clause_type) -> None:  # noqa: ANN001
        quotes = []
        for value in pick:
            document_id, start, end = parse_span(value)
            quote = store.span_quote(session, document_id, start, end, label == "example")
            quotes.append(Quote(quote.text, quote.label, "search", quote.path, start, end, document_id))
        store.add_examples(session, clause_type, quotes, admin.name)
    return _change(request, slug, change, f"?q={q}" if q else "")


@pages.post("/clause-types/{slug}/withdraw/{example_id}")
def withdraw(request: Request, slug: str, example_id: int) -> Response:
    return _change(request, slug, lambda session, clause_type: store.withdraw_examples(session, clause_type, [example_id]))


@pages.post("/clause-types/{slug}/retire")
def retire(request: Request, slug: str, undo: Annotated[str, Form()] = "") -> Response:
    return _change(request, slug, lambda session, clause_type: store.set_retired(session, clause_type, not undo))


@pages.post("/clause-types/{slug}/train")
def train(request: Request, slug: str) -> Response:
    """Start `clausemill clauses retrain` for the type (reviewers' answers become examples, then
    it trains), unless it is training already; the page then refreshes until it ends, and shows
    the new version or what went wrong."""
    with session_scope(request.app.state.settings.effective_database_url, write=False) as session:
        clause_type = store.type_by_slug(session, slug)
        if clause_type is None:
            return refusal_page(request, 404, f"There is no clause type {slug!r}.", [("/clause-types", "Clause types")])
        name = clause_type.name
    if _training(request, slug)["running"]:
        return type_page(request, slug, error="It is training already: wait for this run to end.", status_code=409)
    log = _log(request, slug)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as out:
        request.app.state.trainings[slug] = subprocess.Popen(
            [sys.executable, "-m", "pipelines.cli", "clauses", "retrain", name], stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, cwd=PACKAGE_ROOT, start_new_session=True)
    return RedirectResponse(f"/clause-types/{slug}", status_code=303)


def _change(request: Request, slug: str, change, query: str = "") -> Response:  # noqa: ANN001
    """Apply `change(session, type)` in one transaction; a refusal is the page again, saying why."""
    try:
        with session_scope(request.app.state.settings.effective_database_url) as session:
            clause_type = store.type_by_slug(session, slug)
            if clause_type is None:
                return refusal_page(request, 404, f"There is no clause type {slug!r}.", [("/clause-types", "Clause types")])
            change(session, clause_type)
    except ClauseTypeError as error:
        return type_page(request, slug, error=str(error), status_code=400)
    return RedirectResponse(f"/clause-types/{slug}{query}", status_code=303)


def _log(request: Request, slug: str) -> Path:
    return request.app.state.settings.data_dir / "clause_types" / f"{slug}.train.log"


def _training(request: Request, slug: str) -> dict:
    """Whether a training this app started for the type runs, and the last lines it wrote."""
    process = request.app.state.trainings.get(slug)
    running = process is not None and process.poll() is None
    log = _log(request, slug)
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()[-12:] if log.is_file() else []
    failed = process is not None and not running and process.returncode != 0
    return {"running": running, "lines": lines, "failed": failed}
