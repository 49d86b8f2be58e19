"""The admin pages of taught clause types (issue 44) against a real `clausemill serve` on the
session's audited samples: define a type from quotes, add examples picked from a search of the
audited contracts, train it in a process of its own and see its version and quality; admins
only, and every change posts the session's CSRF token."""
from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from conftest import base_env, sqlite_url
from storage import clause_types as store
from storage.database import session_scope
from test_clause_types import FORCE_QUOTES
from test_web_auth import Server, csrf_of, post_form, start_server

USERS = {"ann": "reviewer", "ada": "admin"}
QUOTES = FORCE_QUOTES[:4]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, audited_samples: Path) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("clause-types")
    shutil.copytree(audited_samples / "data", folder / "data")
    with ExitStack() as stack:
        yield start_server(stack, folder, base_env(folder / "data"), USERS)


def test_only_admins_see_clause_types_and_changes_need_the_token(server: Server) -> None:
    with server.login("ann") as reviewer:
        assert reviewer.get("/clause-types").status_code == 403
    with server.login("ada") as admin:
        assert admin.get("/clause-types").status_code == 200
        forged = admin.post("/clause-types", data={"name": "Forged", "description": "No token."})
        assert forged.status_code == 403
        refused = post_form(admin, "/clause-types", {"name": "Non-Compete", "description": "CUAD's own."}, "/clause-types")
        assert refused.status_code == 400 and "one of CUAD&#39;s categories" in refused.text


def test_an_admin_defines_finds_and_trains_a_type(server: Server) -> None:
    with server.login("ada") as admin:
        made = post_form(admin, "/clause-types", {"name": "Acts Beyond Control",
                                                  "description": "Excuses a party while events beyond its control stop it.",
                                                  "quotes": "\n\n".join(QUOTES)}, "/clause-types")
        assert made.status_code == 303
        page = made.headers["location"]
        assert page == "/clause-types/acts-beyond-control"
        found = admin.get(page, params={"q": "force majeure"})
        picks = re.findall(r'name="pick" value="([0-9]+:[0-9]+-[0-9]+)"', found.text)
        assert len(picks) >= 2
        token = csrf_of(admin, page)
        added = admin.post(f"{page}/picks", data={"csrf_token": token, "pick": picks[:2], "label": "example",
                                                  "q": "force majeure"})
        assert added.status_code == 303
        assert admin.get(page, params={"q": "force majeure"}).text.count(">already<") == 2
        assert post_form(admin, f"{page}/train", {}, page).status_code == 303
        deadline = time.monotonic() + 300
        while "Training…" in (body := admin.get(page).text) and time.monotonic() < deadline:
            time.sleep(2)
        assert "Training…" not in body, "the training did not end in 5 minutes"
        assert "The last training failed" not in body, body
        assert re.search(r"v1 <span class=\"muted\">ct-acts-beyond-control-1-[0-9a-f]{8}</span>", body)
        assert "6 example(s)" in body and "young" in body
    with session_scope(sqlite_url(server.env), write=False) as session:
        line = next(t for t in store.list_types(session) if t.name == "Acts Beyond Control")
        assert (line.status, line.trained, line.examples) == ("active", 1, 6)
