"""Working the queue against a real `clausemill serve` on an audited batch of the samples (on
SQLite and on PostgreSQL): next item claims (by POST only), two reviewers never share one, a
stale version is 409 with who decided first, the trail after accept / correct / reject / undo,
the page image, the export, names shown isolated, the security headers; and in real headless
Chromium, the item page worked with the keyboard under the Content-Security-Policy.

Each test works as reviewers of its own, so the tests share one audited batch and one server
per database without seeing each other's claims."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path

import httpx
import lxml.html
import pytest
from PIL import Image
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen.canvas import Canvas
from sqlalchemy import select

from conftest import AUDITED_BATCH, base_env, copy_database, postgres_database, run_cli, sqlite_url
from pipelines.parsers.pdf import PdfParser
from storage import schema
from storage.database import session_scope
from test_web_auth import Server, csrf_of, password_of, post_form, start_server
from test_web_queue import seed
from web.page_images import SCALE, PageUnavailable, page_png

USERS = {"ann": "reviewer", "ben": "reviewer", "cy": "reviewer", "dee": "reviewer", "eve": "reviewer",
         "fay": "reviewer", "gus": "reviewer", "hal": "reviewer", "ivy": "reviewer", "ada": "admin"}
BATCH = AUDITED_BATCH
CHROMIUM = Path("/usr/bin/chromium")
SPOOFED = "invoice-\u202efdp.txt"
"""A text file whose name reads "invoice-txt.pdf" wherever the right-to-left override is obeyed."""
MISSING = "moved-away.pdf"
"""A PDF whose file is gone from the server, at HIDDEN_PATH."""
HIDDEN_PATH = "/srv/private-contracts/2026/moved-away.pdf"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The session's audit of the samples (conftest), served from this database: on SQLite a
    copy of its data folder, on PostgreSQL its rows copied in."""
    folder = tmp_path_factory.mktemp(f"items-{request.param}")
    env = base_env(folder / "data")
    audited = request.getfixturevalue("audited_samples") / "data"
    with ExitStack() as stack:
        if request.param == "postgresql":
            env["CLAUSEMILL_DATABASE_URL"] = stack.enter_context(postgres_database())
            copy_database(sqlite_url(base_env(audited)), env["CLAUSEMILL_DATABASE_URL"])
        else:
            shutil.copytree(audited, folder / "data")
        yield start_server(stack, folder, env, USERS)


@pytest.fixture(scope="module")
def hals_items(server: Server) -> dict[str, int]:
    """Two items assigned to hal, which no other reviewer's "next" hands out: the one on SPOOFED
    and the one on MISSING, a PDF whose file is not where the database says.  Name -> item id."""
    batch = seed(server.database_url, [(SPOOFED, "Cap On Liability", "critical", 0.5, "open", "hal"),
                                       (MISSING, "Governing Law", "low", 0.5, "open", "hal")])
    with session_scope(server.database_url) as session:
        rows = session.execute(select(schema.Document, schema.ReviewItem.id).join(schema.ReviewItem)
                               .where(schema.Document.batch_id == batch)).all()
        for document, _ in rows:
            if document.filename == MISSING:
                document.kind, document.sha256, document.path = "pdf", "0" * 64, HIDDEN_PATH
        return {document.filename: item_id for document, item_id in rows}


def api(client: httpx.Client) -> dict[str, str]:
    """The headers a script's API call carries: the session's CSRF token."""
    return {"X-CSRF-Token": csrf_of(client, "/")}


def claim(client: httpx.Client) -> dict:
    response = client.post("/api/items/next", headers=api(client))
    assert response.status_code == 200, response.text
    return response.json()


def claim_clause(client: httpx.Client) -> dict:
    """The next open clause item: value items met on the way (they ask for a key term's value,
    tested in test_web_values.py) are confirmed as read."""
    item = claim(client)
    while item["question"] == "value":
        assert decide(client, item, "accept").status_code == 200
        item = claim(client)
    return item


def decide(client: httpx.Client, item: dict, action: str, **fields: object) -> httpx.Response:
    return client.post(f"/api/items/{item['id']}/decision", headers=api(client),
                       json={"action": action, "version": item["version"], **fields})


def test_next_claims_an_item_and_two_reviewers_never_get_the_same(server: Server) -> None:
    with server.login("ann") as ann, server.login("ben") as ben:
        with ThreadPoolExecutor(2) as pool:
            items = list(pool.map(claim, [ann, ben]))
        assert items[0]["id"] != items[1]["id"]
        assert [i["claimed_by"] for i in items] == ["ann", "ben"]
        again = post_form(ann, "/next", {}, page="/next")  # the page's button: the item ann holds, not a second one
        assert again.status_code == 303 and again.headers["location"] == f"/items/{items[0]['id']}"
        taken = ben.post(f"/api/items/{items[0]['id']}/lease", headers=api(ben))
        assert taken.status_code == 409 and "claimed by ann" in taken.json()["detail"]
        renewed = ann.post(f"/api/items/{items[0]['id']}/lease", headers=api(ann))
        assert renewed.status_code == 200 and renewed.json()["lease_until"] > items[0]["lease_until"]
        assert ann.post("/api/items/next?batch=no-such-batch", headers=api(ann)).status_code == 204
        empty = post_form(ann, "/next", {"batch": "no-such-batch"}, page="/next?batch=no-such-batch")
        assert empty.status_code == 303 and empty.headers["location"] == "/?batch=no-such-batch"
        assert "No open item is waiting for you in batch no-such-batch" in ann.get(empty.headers["location"]).text


def test_only_a_post_with_the_token_claims_an_item(server: Server, hals_items: dict[str, int]) -> None:
    """A link from another site runs a GET, and a form posted from there has no CSRF token:
    neither /next nor an item's page claims anything; the page's Hold button does."""
    item = hals_items[MISSING]

    def claimed_by(client: httpx.Client) -> str | None:
        return client.get(f"/api/items/{item}").json()["claimed_by"]

    with server.login("hal") as hal:
        shown = hal.get("/next")
        assert shown.status_code == 200 and '<form method="post" action="/next" id="claim">' in shown.text
        page = hal.get(f"/items/{item}").text
        assert 'data-held="no"' in page and f'action="/items/{item}/hold"' in page
        assert hal.post("/next").status_code == 403 and hal.post(f"/items/{item}/hold").status_code == 403
        assert claimed_by(hal) is None
        held = post_form(hal, f"/items/{item}/hold", {}, page=f"/items/{item}")
        assert held.status_code == 303 and held.headers["location"] == f"/items/{item}"
        assert claimed_by(hal) == "hal" and 'data-held="yes"' in hal.get(f"/items/{item}").text
        lease = hal.post(f"/api/items/{item}/lease", headers=api(hal)).json()["lease_until"]
        assert datetime.fromisoformat(lease).utcoffset() is not None  # the API's times say their zone
        with server.login("ann") as ann:
            assert post_form(ann, f"/items/{item}/hold", {}, page="/").status_code == 404  # hal's, not hers


def test_file_names_are_isolated_with_their_direction_controls_shown(server: Server,
                                                                      hals_items: dict[str, int]) -> None:
    """Where the name is shown it reads as the text file it is; the quote below it is the
    contract's text, shown as the contract has it (this one's quote names the file too)."""
    with server.login("hal") as hal:
        batch = hal.get(f"/api/items/{hals_items[SPOOFED]}").json()["batch_id"]
        queue = lxml.html.fromstring(hal.get("/", params={"batch": batch}).text)
        item = lxml.html.fromstring(hal.get(f"/items/{hals_items[SPOOFED]}").text)
    [listed] = [td for td in queue.xpath("//td[@class='file']") if "invoice" in td.text_content()]
    for names in (listed, item.xpath("//p[@class='meta']")[0]):
        assert "invoice-[U+202E]fdp.txt" in [bdi.text_content() for bdi in names.xpath(".//bdi")]
        assert "\u202e" not in names.text_content()
    assert "hal" in [bdi.text_content() for bdi in item.xpath("//p[@class='meta']//bdi")]  # assigned to: user names too


def test_a_missing_page_image_names_the_document_and_page_not_where_it_lay(server: Server,
                                                                           hals_items: dict[str, int]) -> None:
    with server.login("hal") as hal:
        response = hal.get(f"/items/{hals_items[MISSING]}/page.png")
    assert response.status_code == 404  # a page of the app, as every refusal on a page path
    assert f"Page 2 of {MISSING}: the contract file cannot be read (No such file or directory)" in response.text
    assert "/srv" not in response.text


def test_every_answer_carries_the_security_headers_and_a_fresh_nonce(server: Server) -> None:
    with server.login("ann") as ann:
        pages = [ann.get("/"), ann.get("/next")]
    with server.client() as anonymous:
        refused = [anonymous.get("/"), anonymous.get("/api/items")]  # the gate's 303 and 401
    nonces = []
    for response in pages + refused:
        headers = response.headers
        assert (headers["x-frame-options"], headers["x-content-type-options"], headers["referrer-policy"]) == \
            ("DENY", "nosniff", "same-origin")
        policy = dict(part.strip().split(" ", 1) for part in headers["content-security-policy"].split(";"))
        assert policy["default-src"] == "'self'" and policy["frame-ancestors"] == "'none'"
        assert policy["base-uri"] == "'none'" and policy["form-action"] == "'self'" and policy["img-src"] == "'self'"
        nonce = re.fullmatch(r"'nonce-([\w-]+)'", policy["script-src"]).group(1)  # type: ignore[union-attr]
        assert policy["style-src"] == policy["script-src"]
        nonces.append(nonce)
    for response, nonce in zip(pages, nonces):  # the page's own <style> and <script> carry its response's nonce
        assert set(re.findall(r"<(?:script|style)\b([^>]*)>", response.text)) == {f' nonce="{nonce}"'}
    assert len(set(nonces)) == len(nonces)


def test_a_decided_item_is_read_only_until_reopened_and_refusals_are_pages(server: Server) -> None:
    with server.login("ivy") as ivy:
        item = claim(ivy)
        page = f"/items/{item['id']}"
        # An answer without what it needs: the item page again, saying what is missing, nothing decided.
        incomplete = post_form(ivy, f"{page}/decision", {"answer": "other", "version": str(item["version"])}, page=page)
        assert incomplete.status_code == 400
        assert "say which clause it is" in incomplete.text and 'id="decide"' in incomplete.text
        assert post_form(ivy, f"{page}/decision", {"answer": "yes", "version": str(item["version"])},
                         page=page).status_code == 303
        decided = ivy.get(page).text
        assert 'id="decided"' in decided and 'id="decide"' not in decided  # no live buttons on a decided item
        again = post_form(ivy, f"{page}/decision", {"answer": "no", "reason": "duplicate", "version": str(item["version"])},
                          page=page)
        assert again.status_code == 409 and "Someone got there first" in again.text  # a stale page, as a page
        assert post_form(ivy, f"{page}/reopen", {"version": str(item["version"] + 1)}, page=page).status_code == 303
        reopened = ivy.get(page).text
        assert 'id="decide"' in reopened and "re-opened the item: the accept decision no longer stands" in reopened
        trail = ivy.get(f"/api{page}").json()
        assert trail["status"] == "open" and [t["action"] for t in trail["trail"]] == ["accept", "reopen"]
        # A reviewer on an admin page, and a path nobody defined: pages of the app, not JSON.
        for path, status, title in (("/users", 403, "Not allowed"), ("/no-such-page", 404, "Not found")):
            answer = ivy.get(path)
            assert answer.status_code == status and answer.headers["content-type"].startswith("text/html")
            assert title in answer.text and 'id="fix"' in answer.text


def test_a_stale_version_is_409_with_who_decided_first(server: Server) -> None:
    with server.login("cy") as cy, server.login("ada") as ada:
        item = claim(cy)
        assert decide(cy, item, "accept").status_code == 200
        stale = decide(ada, item, "reject", reason="not_a_clause")
        assert stale.status_code == 409
        assert re.search(r"version 2, not the one on your page: cy decided it at \d{4}-\d\d-\d\d \d\d:\d\d UTC",
                         stale.json()["detail"])
        form = post_form(ada, f"/items/{item['id']}/decision", {"action": "accept", "version": "1"}, page="/")
        assert form.status_code == 409 and "cy decided it at" in form.text and "Reload the item" in form.text


def test_the_trail_after_accept_correct_reject_and_undo(server: Server) -> None:
    with server.login("dee") as dee:
        accepted = claim_clause(dee)
        assert decide(dee, accepted, "accept", comment="reads right").status_code == 200
        corrected = claim_clause(dee)
        start, end = corrected["start"] + 1, corrected["end"] - 1
        category = "Non-Compete" if corrected["category"] == "Exclusivity" else "Exclusivity"
        assert decide(dee, corrected, "correct", category=category, start=start, end=end).status_code == 200
        rejected = claim_clause(dee)
        assert decide(dee, rejected, "reject", reason="duplicate", comment="see above").status_code == 200
        undone = dee.post("/api/undo", headers=api(dee))
        assert undone.status_code == 200 and undone.json() == {"item_id": rejected["id"], "reviewer": "dee",
                                                              "action": "undo", "version": 3, "status": "open"}
        trails = {name: dee.get(f"/api/items/{i['id']}").json() for name, i in
                  (("accepted", accepted), ("corrected", corrected), ("rejected", rejected))}
    rows = {name: [(t["reviewer"], t["action"], t["item_version"], t["reason"], t["comment"]) for t in view["trail"]]
            for name, view in trails.items()}
    assert rows == {"accepted": [("dee", "accept", 1, None, "reads right")],
                    "corrected": [("dee", "correct", 1, None, None)],
                    "rejected": [("dee", "reject", 1, "duplicate", "see above"), ("dee", "undo", 2, None, None)]}
    change = trails["corrected"]["trail"][0]["new"]
    assert change == {"category": category, "start": start, "end": end, "text": corrected["quote"][1:-1]}
    assert trails["corrected"]["trail"][0]["previous"]["category"] == corrected["category"]
    reopened = trails["rejected"]
    assert (reopened["status"], reopened["version"], reopened["claimed_by"]) == ("open", 3, "dee")
    times = [reopened["lease_until"], *(t["at"] for view in trails.values() for t in view["trail"])]
    assert all(datetime.fromisoformat(t).utcoffset() is not None for t in times), times  # UTC, and saying so


def test_the_page_image_is_a_png_with_the_evidence_boxed_and_needs_login(server: Server) -> None:
    with server.login("eve") as eve:
        item = claim(eve)
        while item["kind"] != "pdf":  # the samples hold .txt and .docx contracts too
            assert decide(eve, item, "accept").status_code == 200
            item = claim(eve)
        path = f"/items/{item['id']}/page.png"
        response = eve.get(path)
        assert response.status_code == 200 and response.headers["content-type"] == "image/png"
        image = Image.open(io.BytesIO(response.content)).convert("RGB")
        x0, top, x1, bottom = item["boxes"][0]
        inside = [image.getpixel((int(x * SCALE), int((top + bottom) / 2 * SCALE))) for x in (x0 + 1, (x0 + x1) / 2)]
        assert any(r - b > 40 for r, _, b in inside), inside  # the yellow highlight over the page's grey
        assert eve.get(path).content == response.content  # the cached page, boxed the same way
    with server.client() as anonymous:
        refused = anonymous.get(path)
        assert refused.status_code == 303 and refused.headers["location"].startswith("/login?next=")


def test_export_writes_the_whole_trail_as_csv_and_jsonl(server: Server, tmp_path: Path) -> None:
    with server.login("gus") as gus:
        item = claim(gus)
        assert decide(gus, item, "reject", reason="ocr_error", comment="export me").status_code == 200
    for name in ("decisions.csv", "decisions.jsonl"):
        result = run_cli(["review", "export", "--out", str(tmp_path / name)], server.env, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
    text = (tmp_path / "decisions.csv").read_text()
    table = list(csv.DictReader(io.StringIO(text)))
    lines = [json.loads(line) for line in (tmp_path / "decisions.jsonl").read_text().splitlines()]
    assert len(table) == len(lines) >= 1 and [int(r["decision_id"]) for r in table] == [r["decision_id"] for r in lines]
    [mine] = [r for r in lines if r["comment"] == "export me"]
    assert {k: mine[k] for k in ("reviewer", "action", "reason", "item_id", "item_version", "batch_id", "category")} \
        == {"reviewer": "gus", "action": "reject", "reason": "ocr_error", "item_id": item["id"], "item_version": 1,
            "batch_id": BATCH, "category": item["category"]}
    assert mine["filename"] == item["filename"] and mine["previous"]["evidence"]["start"] == item["start"]
    [row] = [r for r in table if r["comment"] == "export me"]
    assert json.loads(row["previous"]) == mine["previous"] and row["at"] == mine["at"]
    bad = run_cli(["review", "export", "--out", str(tmp_path / "decisions.txt")], server.env, timeout=60)
    assert bad.returncode == 2 and ".csv or .jsonl" in bad.stdout + bad.stderr


def test_a_box_from_the_text_layer_lands_on_its_word_in_the_image(tmp_path: Path) -> None:
    """PDF space starts bottom-left; the parser's boxes and the image start top-left."""
    pdf = tmp_path / "one-word.pdf"
    canvas = Canvas(str(pdf), pagesize=letter)
    canvas.setFont("Helvetica", 24)
    canvas.drawString(400, 100, "TARGET")  # near the bottom right, in PDF's bottom-up space
    canvas.save()
    [page] = PdfParser().extract(pdf)
    [word] = [w for w in page.words if w.text == "TARGET"]
    digest = hashlib.sha256(pdf.read_bytes()).hexdigest()
    plain = Image.open(io.BytesIO(page_png(tmp_path / "cache", pdf, digest, 1, []))).convert("L")
    ink = plain.point(lambda v: 255 if v < 128 else 0).getbbox()
    assert ink is not None
    expected = tuple(v * SCALE for v in word.box)
    assert all(abs(a - b) <= 4 for a, b in zip(ink, expected)), (ink, expected)
    assert ink[1] > plain.height * 0.8  # the word is at the bottom of the image, as on paper


def test_a_page_over_the_pixel_cap_is_unavailable_with_the_reason(tmp_path: Path) -> None:
    """The review app draws pages of untrusted files as OCR does, in a child process with the
    parse limits, after the page-pixel check: a page too big to draw is refused with the cap
    named, nothing is cached for it, and an ordinary page still draws."""
    huge = tmp_path / "huge-page.pdf"
    canvas = Canvas(str(huge), pagesize=(200 * 72, 200 * 72))  # 200 x 200 inches: 466 megapixels here
    canvas.drawString(72, 72, "A very large page")
    canvas.save()
    digest = hashlib.sha256(huge.read_bytes()).hexdigest()
    with pytest.raises(PageUnavailable, match="page 1 cannot be drawn: .*megapixel"):
        page_png(tmp_path / "cache", huge, digest, 1, [])
    assert not list(tmp_path.glob("cache/*.png"))

    letter_page = tmp_path / "letter.pdf"
    canvas = Canvas(str(letter_page), pagesize=letter)
    canvas.drawString(72, 72, "An ordinary page")
    canvas.save()
    digest = hashlib.sha256(letter_page.read_bytes()).hexdigest()
    assert page_png(tmp_path / "cache", letter_page, digest, 1, [], scale=1).startswith(b"\x89PNG")


def test_an_unavailable_page_says_why_but_not_where_the_file_lies(tmp_path: Path) -> None:
    """The reason reaches the reviewer (the route adds the document's name and the page); the
    server's folders do not."""
    folder = tmp_path / "private-contracts"
    folder.mkdir()
    junk = folder / "junk.pdf"
    junk.write_bytes(b"%PDF-1.4\nnot a PDF after all\n")
    digest = hashlib.sha256(junk.read_bytes()).hexdigest()
    reasons = []
    for pdf, sha256 in ((folder / "gone.pdf", digest), (junk, "0" * 64), (junk, digest)):
        with pytest.raises(PageUnavailable) as unavailable:
            page_png(tmp_path / "cache", pdf, sha256, 1, [])
        reasons.append(str(unavailable.value))
    assert reasons[:2] == ["the contract file cannot be read (No such file or directory)",
                           "the contract file changed since it was audited"]
    assert reasons[2].startswith("page 1 cannot be drawn: PDF is corrupt or truncated")
    assert not [r for r in reasons if "private-contracts" in r]


def reviewer_page(browser, server: Server, name: str, path: str, refused: list[str]):  # noqa: ANN001, ANN201
    """A Chromium page of `browser` on `path`, logged in as `name` on the way there; what the
    Content-Security-Policy blocked, as Chromium reports it, and any script error go to `refused`."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda e: refused.append(str(e)))
    page.goto(f"{server.url}{path}")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password_of(name))
    page.click("button[type=submit]")
    page.wait_for_url(f"{server.url}{path}")  # back where the login began
    return page


def test_the_item_page_worked_with_the_keyboard_in_chromium(server: Server, tmp_path: Path) -> None:
    if server.database_url.startswith("postgresql"):
        pytest.skip("the browser test runs once, on SQLite: the page is the same on both databases")
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian package `chromium`; Playwright cannot download one here)")
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        refused: list[str] = []
        page = reviewer_page(browser, server, "fay", "/next", refused)  # a button: nothing claimed yet
        page.click("#claim button")
        page.wait_for_url(re.compile(r"/items/\d+$"))
        expect(page.locator("#lease")).to_contain_text("held by you")  # the page's script ran

        def current() -> int:
            return int(page.url.rsplit("/", 1)[1])

        def moved_on(item_id: int) -> None:
            page.wait_for_url(lambda url: re.search(r"/items/\d+$", url) is not None and not url.endswith(f"/{item_id}"))

        def at_a_clause() -> None:
            """Confirm value items (test_web_values.py works them) until a clause item is on the page."""
            while page.locator("#answers").count() == 0:
                shown = current()
                page.keyboard.press("a")
                moved_on(shown)

        at_a_clause()
        first = current()
        page.keyboard.press("j")
        moved_on(first)
        page.keyboard.press("k")
        page.wait_for_url(f"**/items/{first}")

        page.keyboard.press("a")  # yes, saved at once: on to the next open item, saying so
        moved_on(first)
        expect(page.locator("#done")).to_contain_text(f"item {first}")
        expect(page.locator("#done")).to_contain_text("Press u to undo it.")
        expect(page.locator("#done")).to_contain_text(re.compile(r"\d+ of \d+ decided in batch"))
        at_a_clause()
        second = current()
        page.keyboard.press("3")  # it's another clause: the picker takes the keyboard
        assert page.evaluate("document.activeElement.id") == "category"
        corrected_to = "Non-Compete" if "Exclusivity" in page.inner_text("h1") else "Exclusivity"
        page.keyboard.type(corrected_to)
        page.keyboard.press("Enter")
        moved_on(second)
        at_a_clause()
        third = current()
        page.keyboard.press("2")  # no, and why
        assert page.evaluate("document.activeElement.id") == "reason"
        page.select_option("#reason", "duplicate")
        page.fill("#comment", "the same words as the item before")
        page.focus("#reason")
        page.keyboard.press("Enter")
        moved_on(third)
        page.keyboard.press("u")  # undo the reject: back on its item, open again
        page.wait_for_url(f"**/items/{third}")
        rows = page.locator("#trail tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_contain_text("reject")
        expect(rows.nth(0)).to_contain_text("duplicate")
        expect(rows.nth(0)).to_contain_text("the same words as the item before")
        expect(rows.nth(1)).to_contain_text("took back the reject decision")
        expect(page.locator("#lease")).to_contain_text("held by you")
        if page.locator("#words").count():  # a PDF: words selected on the page image are the span
            page.wait_for_function("document.querySelectorAll('#words span').length > 5")
            shown = page.get_attribute("#page", "data-page")
            words = page.request.get(f"{server.url}/api/items/{third}/pages/{shown}/words").json()["words"]
            spans = page.locator("#words span")
            # three words of one line in the page's upper half (the running footer comes first in the layer)
            i = next(i for i in range(len(words) - 3) if words[i]["top"] < 400 and words[i + 3]["top"] == words[i]["top"])
            a, b = spans.nth(i).bounding_box(), spans.nth(i + 2).bounding_box()
            page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
            page.mouse.down()
            page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=4)
            page.mouse.up()
            assert (int(page.input_value("#start")), int(page.input_value("#end"))) == (words[i]["start"], words[i + 2]["end"])
            assert page.is_checked("#answer-4")
            page.keyboard.press("Shift+ArrowRight")  # the word layer has the keyboard now: one word more
            assert int(page.input_value("#end")) == words[i + 3]["end"]
            page.keyboard.press("Escape")
            page.keyboard.press("+")
            expect(page.locator("#zoom-at")).to_have_text("150%")
            step = 1 if int(shown) < int(page.get_attribute("#page", "data-pages")) else -1
            page.keyboard.press("]" if step > 0 else "[")
            expect(page.locator("#page-at")).to_contain_text(f"page {int(shown) + step} of")
            page.keyboard.press("[" if step > 0 else "]")
        page.screenshot(path=str(tmp_path / "item-page.png"), full_page=True)
        # select part of the quote with the mouse's selection: it becomes the corrected span
        selected = page.evaluate("""() => {
            const mark = document.querySelector('#quote mark'), text = mark.firstChild;
            const range = document.createRange();
            range.setStart(text, 0);
            range.setEnd(text, Math.min(text.length, 40));
            const selection = window.getSelection();
            selection.removeAllRanges();
            selection.addRange(range);
            return {at: Number(mark.dataset.at), text: range.toString()};
        }""")
        expect(page.locator("#span-hint")).to_contain_text("the words you selected")
        assert page.is_checked("#answer-4")  # the selection answers "the words are elsewhere"
        start, end = int(page.input_value("#start")), int(page.input_value("#end"))
        assert start == selected["at"] and end == selected["at"] + len(selected["text"].rstrip())
        page.keyboard.press("4")
        page.keyboard.press("Enter")
        moved_on(third)
        held = current()
        with page.expect_navigation():
            page.keyboard.press("n")  # posts the claim form: the item fay holds, not a second one
        assert current() == held
        expect(page.locator("#lease")).to_contain_text("held by you")
        assert refused == []
        # The policy is in force: an inline script without the nonce does not run, and is reported.
        with page.expect_console_message(lambda m: "Content Security Policy" in m.text) as report:
            ran = page.evaluate("""() => {
                const script = document.createElement('script');
                script.textContent = 'document.body.dataset.injected = "ran"';
                document.body.appendChild(script);
                return document.body.dataset.injected === 'ran';
            }""")
        assert not ran and "script-src" in report.value.text
        trails = {i: page.request.get(f"{server.url}/api/items/{i}").json()["trail"] for i in (first, second, third)}
        browser.close()
    narrowed = trails[third][-1]
    assert narrowed["action"] == "correct" and (narrowed["new"]["start"], narrowed["new"]["end"]) == (start, end)
    assert narrowed["new"]["text"] == selected["text"].rstrip()
    assert [(t["reviewer"], t["action"]) for t in trails[first]] == [("fay", "accept")]
    assert [(t["action"], t["new"].get("category")) for t in trails[second]] == [("correct", corrected_to)]


def test_generated_api_requests_never_meet_a_server_error(server: Server, tmp_path: Path) -> None:
    # Last in the module: schemathesis claims, decides and undoes items on this server.
    schemathesis = Path(sys.executable).parent / "schemathesis"
    if not schemathesis.exists():
        pytest.skip("schemathesis is not installed (pip install -e .[test])")
    with server.login("ada") as client:
        headers = api(client)
        cookie = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
        result = subprocess.run(
            [str(schemathesis), "run", f"{server.url}/api/openapi.json", "--checks",
             "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
             "--max-examples", "30", "--seed", "1", "-H", f"Cookie: {cookie}",
             "-H", f"X-CSRF-Token: {headers['X-CSRF-Token']}", "--report-dir", str(tmp_path)],
            capture_output=True, text=True, timeout=600, cwd=tmp_path)  # its cache folder lands there
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "/api/items" in result.stdout
