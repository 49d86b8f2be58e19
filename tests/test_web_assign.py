"""Assigning work and double review in the app, against a real `clausemill serve` on SQLite and
on PostgreSQL: only admins assign (reviewers 403), every assignment carries the CSRF token,
the queue page's form and POST /api/items/assign, and two reviewers on a double-reviewed
item through the API, then the admins' agreement page."""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest
from sqlalchemy import select

from conftest import base_env, postgres_database, run_cli
from storage import schema
from storage.database import session_scope
from test_web_auth import Server, csrf_of, post_form, start_server
from test_web_queue import ITEMS, seed

USERS = {"alice": "admin", "bob": "reviewer", "carol": "reviewer", "zed": "reviewer"}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp(f"assign-{request.param}")
    env = base_env(folder / "data")
    with ExitStack() as stack:
        if request.param == "postgresql":
            env["CLAUSEMILL_DATABASE_URL"] = stack.enter_context(postgres_database())
        served = start_server(stack, folder, env, USERS)
        disabled = run_cli(["users", "disable", "zed"], env, timeout=60)
        assert disabled.returncode == 0, disabled.stderr
        yield served


def api(client: httpx.Client) -> dict[str, str]:
    return {"X-CSRF-Token": csrf_of(client, "/")}


def assignees(server: Server, batch: str) -> dict[tuple[str, str], str | None]:
    with session_scope(server.database_url, write=False) as session:
        rows = session.execute(select(schema.Document.filename, schema.ReviewItem.category, schema.ReviewItem.assignee)
                               .join(schema.Document).where(schema.Document.batch_id == batch))
        return {(filename, category): assignee for filename, category, assignee in rows}


def test_only_admins_assign_and_only_with_the_csrf_token(server: Server) -> None:
    batch = seed(server.database_url)
    before = assignees(server, batch)
    body = {"to": "bob", "batch": batch}
    with server.login("bob") as reviewer:
        refused = reviewer.post("/api/items/assign", headers=api(reviewer), json=body)
        assert refused.status_code == 403 and refused.json()["detail"] == "only admins may do this"
        form = post_form(reviewer, "/assign", {"action": "assign", "scope": "filtered", "to": "bob", "batch": batch},
                         page="/")
        assert form.status_code == 403
        page = reviewer.get("/", params={"batch": batch}).text
        assert 'id="assign"' not in page and 'name="item"' not in page
        assert reviewer.get("/agreement").status_code == 403
    with server.login("alice") as admin:
        assert admin.post("/api/items/assign", json=body).status_code == 403
        assert admin.post("/api/items/assign", json=body, headers={"X-CSRF-Token": "forged"}).status_code == 403
        assert admin.post("/assign", data={"action": "assign", "scope": "filtered", "to": "bob",
                                           "batch": batch}).status_code == 403
    assert assignees(server, batch) == before


def test_the_api_assigns_by_filter_and_by_id_and_refuses_who_cannot_work(server: Server) -> None:
    batch = seed(server.database_url)
    with server.login("alice") as admin:
        headers = api(admin)
        done = admin.post("/api/items/assign", headers=headers,
                          json={"to": "carol", "batch": batch, "category": "Cap On Liability"})
        assert done.status_code == 200 and done.json() == {"assigned": 3, "to": "carol"}
        listed = admin.get("/api/items", params={"batch": batch, "assignee": "carol"}).json()
        assert listed["total"] == 3 and {i["category"] for i in listed["items"]} == {"Cap On Liability"}
        one = listed["items"][0]["id"]
        assert admin.post("/api/items/assign", headers=headers, json={"to": "bob", "item_ids": [one]}).json() == \
            {"assigned": 1, "to": "bob"}
        unknown = admin.post("/api/items/assign", headers=headers, json={"to": "nobody", "batch": batch})
        assert unknown.status_code == 400 and "no user named 'nobody'" in unknown.json()["detail"]
        disabled = admin.post("/api/items/assign", headers=headers, json={"to": "zed", "batch": batch})
        assert disabled.status_code == 400 and "zed is disabled" in disabled.json()["detail"]
        assert admin.post("/api/items/assign", headers=headers, json={"batch": batch}).status_code == 422  # `to` is required
        assert admin.post("/api/items/assign", headers=headers,
                          json={"to": "bob", "severity": "urgent"}).status_code == 422
        schema_paths = admin.get("/api/openapi.json").json()["paths"]
        assert "requestBody" in schema_paths["/api/items/assign"]["post"]
    with server.login("bob") as bob:
        assert bob.get("/api/items", params={"batch": batch}).json()["total"] == 4  # nobody's 3 and his 1
    with server.login("carol") as carol:
        assert carol.get("/api/items", params={"batch": batch}).json()["total"] == 5  # nobody's 3 and her 2
        with server.login("alice") as admin:
            back = admin.post("/api/items/assign", headers=api(admin), json={"to": None, "batch": batch})
            assert back.json() == {"assigned": 6, "to": None}
        assert carol.get("/api/items", params={"batch": batch}).json()["total"] == 6
    assert set(assignees(server, batch).values()) == {None}


def test_the_queue_page_assigns_the_ticked_or_all_matching_items(server: Server) -> None:
    batch = seed(server.database_url)
    with server.login("alice") as admin:
        page = admin.get("/", params={"batch": batch}).text
        assert 'action="/assign"' in page and "all 6 open items matching the filters" in page
        offered = re.findall(r"<option>([^<]+)</option>", page.split('name="to"')[1].split("</select>")[0])
        assert offered == ["alice", "bob", "carol"]  # zed is disabled
        ticked = re.findall(r'name="item" value="(\d+)"', page)[:2]
        assert len(ticked) == 2
        done = post_form(admin, "/assign", {"action": "assign", "scope": "selected", "to": "bob", "item": ticked,
                                            "batch": batch}, page="/")  # type: ignore[dict-item]
        assert done.status_code == 303 and done.headers["location"] == f"/?batch={batch}"
        shown = admin.get(done.headers["location"]).text
        assert "Assigned 2 open item(s) to bob." in shown
        assert "Assigned 2 open item(s)" not in admin.get(done.headers["location"]).text  # said once
        matching = post_form(admin, "/assign", {"action": "assign", "scope": "filtered", "to": "carol", "batch": batch,
                                                "severity": "medium"}, page="/")
        assert matching.status_code == 303 and "severity=medium" in matching.headers["location"]
        assert "Assigned 2 open item(s) to carol." in admin.get(matching.headers["location"]).text
        nothing = post_form(admin, "/assign", {"action": "assign", "scope": "selected", "to": "bob", "batch": batch},
                            page="/")
        assert nothing.status_code == 400 and "No item was ticked" in nothing.text
        nobody = post_form(admin, "/assign", {"action": "assign", "scope": "filtered", "batch": batch}, page="/")
        assert nobody.status_code == 400 and "Choose whom" in nobody.text
        unassigned = post_form(admin, "/assign", {"action": "unassign", "scope": "filtered", "batch": batch}, page="/")
        assert "Unassigned 6 open item(s)" in admin.get(unassigned.headers["location"]).text
    assert set(assignees(server, batch).values()) == {None}


def test_two_reviewers_decide_a_double_reviewed_item_and_the_admin_reads_their_agreement(server: Server) -> None:
    batch = seed(server.database_url, ITEMS[:1])
    with session_scope(server.database_url) as session:
        item = session.scalars(select(schema.ReviewItem).join(schema.Document)
                               .where(schema.Document.batch_id == batch)).one()
        item.evidence = {**item.evidence, "reviews_needed": 2}
    with server.login("bob") as bob, server.login("carol") as carol:
        mine = bob.post(f"/api/items/next?batch={batch}", headers=api(bob)).json()
        assert mine["reviews_needed"] == 2 and "double review" in bob.get(f"/items/{mine['id']}").text
        first = bob.post(f"/api/items/{mine['id']}/decision", headers=api(bob),
                         json={"action": "accept", "version": mine["version"]})
        assert first.status_code == 200 and first.json()["status"] == "open"
        assert bob.post(f"/api/items/next?batch={batch}", headers=api(bob)).status_code == 204
        again = bob.post(f"/api/items/{mine['id']}/lease", headers=api(bob))
        assert again.status_code == 409 and "another reviewer" in again.json()["detail"]
        theirs = carol.post(f"/api/items/next?batch={batch}", headers=api(carol)).json()
        assert theirs["id"] == mine["id"] and theirs["trail"] == []  # independent: bob's decision is not shown
        second = carol.post(f"/api/items/{mine['id']}/decision", headers=api(carol),
                            json={"action": "reject", "version": theirs["version"], "reason": "not_a_clause"})
        assert second.status_code == 200 and second.json()["status"] == "decided"
    with server.login("alice") as admin:
        assert [t["reviewer"] for t in admin.get(f"/api/items/{mine['id']}").json()["trail"]] == ["bob", "carol"]
        page = admin.get("/agreement", params={"batch": batch})
        assert page.status_code == 200
        [row] = [r for r in re.findall(r"<tr>(.*?)</tr>", page.text, flags=re.DOTALL) if "Cap On Liability" in r]
        assert re.findall(r"<td>(.*?)</td>", row, flags=re.DOTALL)[1:] == ["1", "0 (0%)", "0.00"]
        empty = admin.get("/agreement", params={"batch": "no-such-batch"}).text
        assert "n/a" in empty and "0 double-reviewed item(s) wait" in empty
