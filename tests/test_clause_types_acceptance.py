"""Issue 44's acceptance, tried as a new user would in headless Chromium, on a copy of the
session's audited samples served by a real `clausemill serve`: an admin defines "Force Majeure"
from 10 quotes and a search of the audited contracts, and trains it; a new audit finds it; a
reviewer answers its questions; the admin trains it again, and its version and quality change on
its page."""
from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from conftest import TEXT_SAMPLES, run_cli, some_samples
from storage import schema
from storage.database import session_scope
from test_clause_types import FORCE_QUOTES
from test_web_auth import Server, serve_audited
from test_web_items import CHROMIUM, reviewer_page

USERS = {"rae": "reviewer", "ada": "admin"}
TEN_QUOTES = FORCE_QUOTES + (
    "Force Majeure. Delays caused by acts of God, terrorism, pandemics or the acts of any government shall not be "
    "a breach of this Agreement.",
    "No party is responsible for non-performance to the extent caused by circumstances it could not reasonably "
    "foresee or avoid, including storms, earthquakes and power failures.",
    "The obligations of the Licensee, other than the payment of money, are suspended for as long as a force majeure "
    "event prevents their performance.",
    "Any delay in performance resulting from strikes, lockouts, shortages of materials or other causes beyond the "
    "control of the delayed party extends the time for performance by the length of the delay.",
)


@pytest.fixture(scope="module")
def server(audited_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve_audited(audited_samples, tmp_path_factory, "taught", USERS)


def _trained(page, server: Server, slug: str) -> str:  # noqa: ANN001
    """Press the page's train button and wait for the version it makes: the page's body after."""
    page.click("form[action$='/train'] button")
    deadline = time.monotonic() + 300
    while "Training…" in (body := page.inner_text("main")) and time.monotonic() < deadline:
        page.wait_for_timeout(2000)
        page.goto(f"{server.url}/clause-types/{slug}")  # what the meta refresh does, without waiting for it
    assert "Training…" not in body and "The last training failed" not in body, body
    return body


def test_an_admin_teaches_force_majeure_and_a_reviewer_improves_it(server: Server, sample_dir: Path,
                                                                   tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian package `chromium`; Playwright cannot download one here)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        refused: list[str] = []
        admin = reviewer_page(browser, server, "ada", "/clause-types", refused)
        admin.fill("input[name=name]", "Force Majeure")
        admin.fill("textarea[name=description]", "Excuses a party's performance while events beyond its control "
                                                 "(acts of God, war, strikes) prevent it.")
        admin.fill("textarea[name=quotes]", "\n\n".join(TEN_QUOTES))
        admin.click("form[action='/clause-types'] button[type=submit]")
        admin.wait_for_url(f"{server.url}/clause-types/force-majeure")
        admin.fill("input[name=q]", "force majeure")
        admin.keyboard.press("Enter")
        admin.wait_for_url(re.compile(r".*\?q=force\+majeure$"))
        boxes = admin.locator("input[name=pick]")
        assert boxes.count() >= 2
        boxes.nth(0).check()
        boxes.nth(1).check()
        with admin.expect_navigation():
            admin.click("form[action$='/picks'] button[type=submit]")
        counts = re.search(r"(\d+) example\(s\), (\d+) counter-example\(s\)", admin.inner_text("main"))
        assert counts and counts.groups() == ("12", "0"), admin.inner_text("main")[:600]
        first = _trained(admin, server, "force-majeure")
        assert re.search(r"v1 ct-force-majeure-1-[0-9a-f]{8}", first)

        # a new audit finds the type, and the review queue asks about it
        folder = some_samples(sample_dir, tmp_path / "in", TEXT_SAMPLES)
        audited = run_cli(["audit", str(folder), "--out", str(tmp_path / "out"), "--batch-id", "taught"], server.env)
        assert audited.returncode == 0, audited.stdout + audited.stderr
        assert "Force Majeure" in (tmp_path / "out" / "findings.csv").read_text(encoding="utf-8")
        with session_scope(server.database_url, write=False) as session:
            items = session.scalars(select(schema.ReviewItem.id).join(schema.Document)
                                    .where(schema.Document.batch_id == "taught",
                                           schema.ReviewItem.category == "Force Majeure",
                                           schema.ReviewItem.status == "open")).all()
        assert len(items) >= 3, items

        reviewer = reviewer_page(browser, server, "rae", "/", refused)
        for item_id in items[:10]:
            reviewer.goto(f"{server.url}/items/{item_id}")
            with reviewer.expect_navigation():
                reviewer.keyboard.press("a")  # yes, this is the clause
        with session_scope(server.database_url, write=False) as session:
            decided = session.scalars(select(schema.ReviewItem.status).where(schema.ReviewItem.id.in_(items[:10]))).all()
        assert decided == ["decided"] * len(items[:10])

        admin.goto(f"{server.url}/clause-types/force-majeure")
        second = _trained(admin, server, "force-majeure")
        versions = re.findall(r"v(\d) ct-force-majeure-\1-[0-9a-f]{8}\s+(\d+)", second)
        assert [v for v, _ in versions] == ["2", "1"], second  # newest first
        assert int(versions[0][1]) > int(versions[1][1])  # the answers became examples
        browser.close()
    assert refused == []
