"""A key-term value item worked in the review app: in real headless Chromium a reviewer corrects
a date the next deadline depends on, and the deadline moves in the report and in
deadlines.ics; through the API, a renewal is given its kind and a value item refuses a reject.

The samples' audit (conftest) asks for the values their deadlines depend on; the server runs
on a copy of it."""
from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from conftest import AUDITED_BATCH, run_cli
from pipelines.terms.durations import as_relativedelta
from storage import schema
from storage.database import session_scope
from test_web_auth import Server, serve_audited
from test_web_items import CHROMIUM, api, reviewer_page

USERS = {"val": "reviewer", "ray": "reviewer"}
AHEAD = timedelta(days=40)
"""Where the corrected term ends: after today, with a 90-day notice window already closed."""
DATES = ("Effective Date", "Expiration Date")


@pytest.fixture(scope="module")
def server(audited_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve_audited(audited_samples, tmp_path_factory, "values", USERS)


def value_items(server: Server) -> list[tuple[int, str, str, dict]]:
    """The open value items, most urgent first, as (id, category, file name, the stored key terms)."""
    with session_scope(server.database_url, write=False) as session:
        rows = session.execute(select(schema.ReviewItem, schema.Document).join(schema.Document)
                               .where(schema.ReviewItem.status == "open")
                               .order_by(schema.ReviewItem.priority.desc(), schema.ReviewItem.id)).all()
        return [(item.id, item.category, document.filename,
                 (document.assessment or {}).get("key_terms") or {})
                for item, document in rows
                if ((item.evidence or {}).get("priority_parts") or {}).get("question") == "value"]


def typed_date(category: str, key_terms: dict, term_end: date) -> date:
    """The date to type so that the term ends on `term_end`: the end itself, or for a start the
    term is computed from, the end less the term."""
    if category == "Expiration Date":
        return term_end
    computed = ((key_terms["Expiration Date"].get("finding") or {}).get("detail") or {}).get("computed_from") or {}
    return term_end - as_relativedelta(computed["term"])


def report(server: Server, out: Path) -> tuple[dict, str]:
    result = run_cli(["report", AUDITED_BATCH, "--out", str(out)], server.env)
    assert result.returncode == 0, result.stdout + result.stderr
    return (json.loads((out / "report.json").read_text(encoding="utf-8")),
            (out / "deadlines.ics").read_text(encoding="utf-8"))


def document(report_json: dict, filename: str) -> dict:
    return next(d for d in report_json["documents"] if d["filename"] == filename)


def test_a_corrected_date_moves_the_deadline_in_the_report_and_the_calendar(server: Server, audited_samples: Path,
                                                                             tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian package `chromium`; Playwright cannot download one here)")
    from playwright.sync_api import expect, sync_playwright

    dated = [i for i in value_items(server) if i[1] in DATES]
    assert dated, "the samples' audit asks for no date a deadline depends on"
    item_id, category, filename, key_terms = dated[0]
    term_end = date.today() + AHEAD
    typed = typed_date(category, key_terms, term_end)
    before = json.loads((audited_samples / "report" / "report.json").read_text(encoding="utf-8"))  # the audit's
    assert term_end.isoformat() not in {d["date"] for d in document(before, filename)["deadlines"]}

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        refused: list[str] = []
        page = reviewer_page(browser, server, "val", f"/items/{item_id}", refused)
        expect(page.locator("h1")).to_contain_text(f"What is the {category}?")
        expect(page.locator("#value-read")).to_contain_text("Read from")  # the quotes the value was read from
        expect(page.locator("#accept")).to_contain_text("Confirm")
        assert page.locator("#reject").count() == 0  # a value is corrected, not rejected
        page.keyboard.press("c")
        assert page.evaluate("document.activeElement.id") == "value"
        page.fill("#value", f"{typed:%B} {typed.day}, {typed.year}")  # as a lawyer writes it
        page.keyboard.press("Enter")
        page.wait_for_url(lambda url: not url.endswith(f"/items/{item_id}"))
        page.goto(f"{server.url}/items/{item_id}")
        expect(page.locator("#trail")).to_contain_text(f"value → {typed.isoformat()}")
        assert refused == []
        browser.close()

    after, calendar = report(server, tmp_path / "after")
    doc = document(after, filename)
    assert doc["assessment"]["key_terms"][category]["value"] == typed.isoformat()
    assert doc["term_in_force"]["end"] == term_end.isoformat()
    assert doc["deadlines"][-1]["date"] == term_end.isoformat()  # the term renews or ends there
    first = date.fromisoformat(doc["deadlines"][0]["date"])  # that, or the last day for notice before it
    assert term_end - timedelta(days=366) < first <= term_end
    assert f"DTSTART;VALUE=DATE:{first:%Y%m%d}" in calendar
    assert "in review" in json.dumps(doc["deadlines"][-1]["computed"])


def test_a_renewal_is_answered_with_its_kind_and_a_value_is_never_rejected(server: Server) -> None:
    renewals = [i for i in value_items(server) if i[1] == "Renewal Term"]
    if not renewals:
        pytest.skip("the samples' audit asks about no renewal term")
    item_id = renewals[0][0]
    with server.login("ray") as client:
        version = client.get(f"/api/items/{item_id}").json()["version"]
        rejected = client.post(f"/api/items/{item_id}/decision", headers=api(client),
                               json={"action": "reject", "version": version, "reason": "not_a_clause"})
        assert rejected.status_code == 400 and "corrected, not rejected" in rejected.json()["detail"]
        kindless = client.post(f"/api/items/{item_id}/decision", headers=api(client),
                               json={"action": "correct", "version": version, "value": "2 years"})
        assert kindless.status_code == 400 and "say how the contract renews" in kindless.json()["detail"]
        answered = client.post(f"/api/items/{item_id}/decision", headers=api(client), json={
            "action": "correct", "version": version, "value": "two (2) years", "renewal_kind": "option",
            "renewal_limit": 1})
        assert answered.status_code == 200, answered.text
        trail = client.get(f"/api/items/{item_id}").json()["trail"]
    assert trail[-1]["new"] == {"value": "P2Y", "detail": {"kind": "option", "automatic": False, "limit": 1,
                                                           "successive": False, "text": "two (2) years"}}
