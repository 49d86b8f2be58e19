"""Issue 42's acceptance, in one headless Chromium session over the audited samples with a real
`clausemill watch` on the upload inbox:

- a new reviewer, by keyboard alone, logs in, opens the queue, starts reviewing and works ten
  items: one answer is "another clause", one span is set by selecting words on the page image,
  one value is corrected, and one decision is undone; after each answer the page says what
  was done and where the reviewer stands ("N of M decided");
- a legal-ops lead filters the portfolio to critical contracts, opens one and sees its
  deadline, downloads its batch's report.xlsx, fetches the calendar with the personal token
  (the events are there) and without it (401), and uploads two files, which are audited once
  (a retry of the same form places nothing; the same bytes sent again are not audited again).
"""
from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from urllib.parse import quote

import httpx
import lxml.html
import openpyxl
import pytest
from sqlalchemy import func, select

from conftest import AUDITED_BATCH, wait_until
from pipelines.samples.contracts import generate_contract
from pipelines.samples.render import write_txt
from storage import schema
from storage.database import session_scope
from test_watch import FAST, watchers  # noqa: F401  (the fixture)
from test_web_auth import Server, csrf_of, serve_audited, upload
from test_web_items import CHROMIUM, reviewer_page

USERS = {"newbie": "reviewer", "lead": "admin"}
MAX_MB = 3
DECIDED = re.compile(r"(\d+) of (\d+) decided in batch")
DATES = ("Effective Date", "Expiration Date", "Agreement Date")


@pytest.fixture(scope="module")
def server(audited_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    inbox = tmp_path_factory.mktemp("upload-inbox")
    yield from serve_audited(audited_samples, tmp_path_factory, "acceptance", USERS,
                             {"CLAUSEMILL_UPLOAD_INBOX": str(inbox), "CLAUSEMILL_UPLOAD_MAX_MB": str(MAX_MB)})


def uploads_listed(client: httpx.Client) -> dict[str, str]:
    """The user's uploads as /upload lists them: file name -> state."""
    tree = lxml.html.fromstring(client.get("/upload").text)
    return {row.xpath("string(td[1])"): row.get("data-state") for row in tree.xpath('//table[@id="uploads"]/tbody/tr')}


class Desk:
    """A reviewer's Chromium page on the item pages, driven by the keyboard."""

    def __init__(self, page) -> None:  # noqa: ANN001
        self.page = page

    def item(self) -> int:
        return int(self.page.url.rsplit("/", 1)[1])

    def answered(self, item_id: int) -> tuple[int, int]:
        """Wait for the page after the answer to `item_id`; the "N of M decided" it shows."""
        try:
            self.page.wait_for_url(lambda url: re.search(r"/items/\d+$", url) is not None
                                   and not url.endswith(f"/{item_id}"), timeout=15_000)
        except Exception as error:  # the page the answer led to says why
            raise AssertionError(f"answering item {item_id} led to {self.page.url}: "
                                 f"{self.page.inner_text('main')[-2500:]}") from error
        notice = self.page.inner_text("#done")
        assert f"item {item_id}" in notice and "Press u to undo it." in notice, notice
        found = DECIDED.search(notice)
        assert found, notice
        return int(found.group(1)), int(found.group(2))

    def tab_to(self, element_id: str, most: int = 80) -> None:
        """Tab until the keyboard is on `element_id`, as a keyboard user gets there."""
        for _ in range(most):
            if self.page.evaluate("document.activeElement && document.activeElement.id") == element_id:
                return
            self.page.keyboard.press("Tab")
        raise AssertionError(f"Tab never reached #{element_id}")


def dated_value_item(server: Server) -> tuple[int, str]:
    """An open item asking for a date (id, category): the one the reviewer corrects."""
    with session_scope(server.database_url, write=False) as session:
        items = session.scalars(select(schema.ReviewItem).where(
            schema.ReviewItem.status == "open", schema.ReviewItem.category.in_(DATES)).order_by(
            schema.ReviewItem.priority.desc(), schema.ReviewItem.id)).all()
        asked = [(item.id, item.category) for item in items
                 if ((item.evidence or {}).get("priority_parts") or {}).get("question") == "value"]
    assert asked, "the samples' audit asks for no date"
    return asked[0]


def correct_a_date(page) -> None:  # noqa: ANN001
    """On a value item asking for a date: the right one, typed as a lawyer writes it."""
    typed = date.today() + timedelta(days=200)
    page.keyboard.press("c")
    page.keyboard.type(f"{typed:%B} {typed.day}, {typed.year}")
    page.keyboard.press("Enter")


def work_ten_items(page, server: Server) -> list[str]:  # noqa: ANN001
    """Ten answers from the queue on, by keyboard; returns what each one was.  A date is
    corrected where one comes up; else the tenth item is the date the queue, filtered by its
    category, shows."""
    desk, done, items = Desk(page), [], set()
    page.keyboard.press("n")  # the queue page starts reviewing
    page.wait_for_url(re.compile(r"/items/\d+$"))
    decided = None
    while len(items) < 10:
        if len(items) == 9 and "value" not in done:
            value_id, category = dated_value_item(server)
            page.goto(f"{server.url}/?category={quote(category)}")
            page.locator(f'a[href="/items/{value_id}"]').first.focus()
            page.keyboard.press("Enter")
            page.wait_for_url(f"**/items/{value_id}")
        item_id, title = desk.item(), page.inner_text("h1")
        if page.locator("#value-read").count():
            if "Date?" in title and "value" not in done:
                correct_a_date(page)
                done.append("value")
            else:
                page.keyboard.press("a")  # the value as read is right
                done.append("confirm")
        elif "other" not in done:
            page.keyboard.press("3")  # it's another clause: the type-ahead picker has the keyboard
            picked = "Non-Compete" if "Exclusivity" in title else "Exclusivity"
            page.keyboard.type(picked)
            page.keyboard.press("Enter")
            done.append("other")
        elif "span" not in done and page.locator("#words[tabindex]").count():
            page.wait_for_function("document.querySelectorAll('#words span').length > 5")
            desk.tab_to("words")  # the word layer over the page image
            for _ in range(3):
                page.keyboard.press("ArrowRight")
            page.keyboard.press("Shift+ArrowRight")
            page.keyboard.press("Shift+ArrowRight")
            start, end = int(page.input_value("#start")), int(page.input_value("#end"))
            assert end > start and page.is_checked("#answer-4")  # the words are elsewhere: here
            page.keyboard.press("Escape")
            page.keyboard.press("4")
            page.keyboard.press("Enter")
            done.append("span")
        else:
            page.keyboard.press("a")  # yes, this is the clause
            done.append("yes")
        now = desk.answered(item_id)
        assert decided is None or now[0] == decided[0] + 1, (decided, now)
        decided = now
        items.add(item_id)
        if len(items) == 4 and "undone" not in done:
            page.keyboard.press("u")  # take the last answer back: its item is open again
            page.wait_for_url(f"**/items/{item_id}")
            assert "took back" in page.inner_text("#trail")
            done.append("undone")
            page.keyboard.press("n")  # and on again: the item held is the one undone
            page.wait_for_url(f"**/items/{item_id}")
            page.keyboard.press("a")
            done.append("yes")
            assert desk.answered(item_id) == decided  # counted once
    return done


def test_a_new_reviewer_then_a_legal_ops_lead_in_chromium(server: Server, watchers, tmp_path: Path) -> None:  # noqa: F811
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian package `chromium`; Playwright cannot download one here)")
    from playwright.sync_api import expect, sync_playwright

    inbox = Path(server.env["CLAUSEMILL_UPLOAD_INBOX"])
    watchers({**server.env, **FAST}, inbox, tmp_path / "outbox")
    files = [tmp_path / "upload lease.txt", tmp_path / "upload supply.txt"]
    for seed, path in zip((9101, 9102), files):
        write_txt(generate_contract(seed, short=True), path)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        refused: list[str] = []

        # The new reviewer.
        page = reviewer_page(browser, server, "newbie", "/", refused)
        expect(page.locator("h1")).to_contain_text("Review queue")
        done = work_ten_items(page, server)
        assert {"other", "span", "value", "undone"} <= set(done), done
        assert len(done) == 12  # ten items answered, one of them twice, and the undo
        page.close()

        # The legal-ops lead.
        page = reviewer_page(browser, server, "lead", "/contracts", refused)
        page.select_option("select[name=level]", "critical")
        page.click("form[role=search] button[type=submit]")
        page.wait_for_url(re.compile(r"/contracts\?.*level=critical"))
        levels = page.locator("#contracts tbody tr td:first-child").all_inner_texts()
        assert levels and all(level.lower().startswith("critical") for level in levels), levels
        dated = page.locator("#contracts tbody tr").filter(has_text=re.compile(r"20\d\d")).first  # a deadline ahead
        dated.locator("td:nth-child(2) a").click()
        page.wait_for_url(re.compile(r"/contracts/\d+$"))
        expect(page.locator("article.contract")).to_contain_text("Key terms")
        expect(page.locator("article.contract .contract-deadlines tbody tr").first).to_contain_text(
            re.compile(r"\d{1,2} \w+ 20\d\d"))  # its deadlines, dated, each saying how it was computed
        with page.expect_download() as downloading:
            page.click('#downloads a[href$="/report.xlsx"]')
        assert downloading.value.suggested_filename.endswith("report.xlsx")
        with open(downloading.value.path(), "rb") as saved:
            workbook = openpyxl.load_workbook(saved)
        assert workbook["Contracts"].max_row > 1
        assert f"/batches/{AUDITED_BATCH}/" in downloading.value.url

        page.goto(f"{server.url}/calendar")
        page.click("form[action='/calendar/token'] button")
        link = page.inner_text("#calendar-link code")
        assert "token=" in link
        with httpx.Client() as anyone:  # a calendar app: no session, only the link
            subscribed = anyone.get(link)
            assert subscribed.status_code == 200 and "BEGIN:VEVENT" in subscribed.text
            assert anyone.get(link.split("?", 1)[0]).status_code == 401

        page.goto(f"{server.url}/upload")
        page.set_input_files("#files", [str(f) for f in files])
        page.focus("#send")
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(r"/upload\?sent=[0-9a-f]{32}$"))
        key = page.url.rsplit("=", 1)[1]
        expect(page.locator("#receipt")).to_contain_text("2 files received")
        with server.login("lead") as lead:
            wait_until(lambda: uploads_listed(lead) == {f.name: "processed" for f in files}, timeout=180,
                       message=f"both uploads audited: {uploads_listed(lead)}")
            retried = upload(lead, key, [("upload lease.txt", files[0].read_bytes())])  # the browser's retry
            assert retried.status_code == 201 and retried.json()["repeated"] is True
            again = upload(lead, uuid.uuid4().hex, [("lease again.txt", files[0].read_bytes())])
            assert again.status_code == 201 and again.json()["files"][0]["name"] == "lease again.txt"
            wait_until(lambda: uploads_listed(lead).get("lease again.txt") == "duplicate", timeout=120,
                       message=f"the repeat ended as a duplicate: {uploads_listed(lead)}")
            # Only the upload route takes more than max_request_bytes (1 MiB), and no more than its own limit.
            big = upload(lead, uuid.uuid4().hex, [(".big.txt", b"x" * (2 * 1024 * 1024))])
            assert big.status_code == 201 and "watcher passes over" in big.json()["files"][0]["refused"]
            assert upload(lead, uuid.uuid4().hex, [("huge.txt", b"x" * ((MAX_MB + 1) * 1024 * 1024))]).status_code == 413
            assert lead.post("/calendar/token", content=b"x" * (2 * 1024 * 1024),
                             headers={"X-CSRF-Token": csrf_of(lead, "/upload")}).status_code == 413
        page.reload()
        expect(page.locator("#uploads")).to_contain_text("Not audited again: same content as uploads/lead/upload lease.txt")
        page.locator("#uploads a", has_text="Open").last.click()
        page.wait_for_url(re.compile(r"/contracts/\d+$"))
        expect(page.locator("article.contract h2")).to_contain_text("upload")
        assert refused == []
        browser.close()
    with session_scope(server.database_url, write=False) as session:
        names = session.scalars(select(schema.Document.filename).where(
            schema.Document.filename.in_([f.name for f in files] + ["lease again.txt"]))).all()
        assert sorted(names) == sorted(f.name for f in files)  # audited once each; the repeat not at all
        assert session.scalar(select(func.count()).select_from(schema.IntakeFile)) == 3
        actions = session.scalars(select(schema.ReviewDecision.action)
                                  .where(schema.ReviewDecision.reviewer == "newbie")).all()
    assert len(actions) == 12 and actions.count("undo") == 1  # eleven answers and the undo
