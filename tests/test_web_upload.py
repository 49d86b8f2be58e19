"""Upload in the browser (issue 42, item 5): files sent on /upload land in the inbox a real
`clausemill watch` watches and go through its one intake ledger, each audited once; a form
sent twice places its files once; the same bytes sent again are not audited again; and the
upload route alone takes bodies over max_request_bytes."""
from __future__ import annotations

import io
import re
import uuid
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import httpx
import lxml.html
import pytest
from sqlalchemy import func, select

from pipelines.intake.rules import ignored
from pipelines.intake.upload import STAGING_FOLDER, Receipt, UploadError, receipt_of, receive, waiting
from pipelines.samples.contracts import generate_contract
from pipelines.samples.render import write_txt
from storage import schema
from storage.database import session_scope
from test_watch import FAST, watchers  # noqa: F401  (the fixture)
from test_web_auth import Server, csrf_of, serve_audited
from test_web_items import CHROMIUM, reviewer_page
from conftest import wait_until

USERS = {"uma": "reviewer"}
MAX_MB = 3


# --- the placing, as a plain function ------------------------------------------------------------

def test_an_upload_lands_in_the_users_folder_once_per_key(tmp_path: Path) -> None:
    inbox, key = tmp_path / "in", uuid.uuid4().hex
    inbox.mkdir()
    first = receive(inbox, key, "uma", [("C:\\fakepath\\lease.txt", io.BytesIO(b"one")),
                                        ("lease.txt", io.BytesIO(b"two")), (".hidden.txt", io.BytesIO(b"x"))])
    assert [p.name for p in first.files] == ["lease.txt", "lease (1).txt", ""]  # nothing overwritten
    assert [p.sent_as for p in first.files] == ["C:\\fakepath\\lease.txt", "lease.txt", ".hidden.txt"]
    assert "watcher passes over names like this" in first.files[2].refused
    assert (inbox / "uploads" / "uma" / "lease.txt").read_bytes() == b"one"
    assert first.files[1].size_bytes == 3 and len(first.files[1].sha256) == 64
    again = receive(inbox, key, "uma", [("other.txt", io.BytesIO(b"three"))])  # the same form, sent again
    assert again.repeated and again.files == first.files
    assert not (inbox / "uploads" / "uma" / "other.txt").exists()
    assert receipt_of(inbox, key) == Receipt(key, first.files)
    assert receipt_of(inbox, uuid.uuid4().hex) is None and receipt_of(inbox, "../..") is None
    assert waiting(inbox, "uma") == ["lease (1).txt", "lease.txt"]
    assert ignored(PurePosixPath(STAGING_FOLDER, key, "0.part"))  # the watcher never sees half a file
    with pytest.raises(UploadError, match="out of date"):
        receive(inbox, "../../etc", "uma", [])
    with pytest.raises(UploadError, match="does not exist"):
        receive(tmp_path / "missing", uuid.uuid4().hex, "uma", [])


# --- in the app, with a watcher ------------------------------------------------------------------

@pytest.fixture(scope="module")
def server(audited_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    inbox = tmp_path_factory.mktemp("upload-inbox")
    yield from serve_audited(audited_samples, tmp_path_factory, "upload", USERS,
                             {"CLAUSEMILL_UPLOAD_INBOX": str(inbox), "CLAUSEMILL_UPLOAD_MAX_MB": str(MAX_MB)})


def listed(client: httpx.Client) -> dict[str, str]:
    """The user's uploads as the page lists them: file name -> state."""
    tree = lxml.html.fromstring(client.get("/upload").text)
    return {row.xpath("string(td[1])"): row.get("data-state") for row in tree.xpath('//table[@id="uploads"]/tbody/tr')}


def send(client: httpx.Client, key: str, files: list[tuple[str, bytes]]) -> httpx.Response:
    return client.post("/api/uploads", data={"key": key}, files=[("files", f) for f in files],
                       headers={"X-CSRF-Token": csrf_of(client, "/upload")})


def test_two_files_uploaded_in_chromium_are_audited_once(server: Server, watchers, tmp_path: Path) -> None:  # noqa: F811
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
        page = reviewer_page(browser, server, "uma", "/upload", refused)
        page.keyboard.press("Tab")  # the form is reached and sent from the keyboard
        page.set_input_files("#files", [str(f) for f in files])
        page.focus("#send")
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(r"/upload\?sent=[0-9a-f]{32}$"))
        key = page.url.rsplit("=", 1)[1]
        expect(page.locator("#receipt")).to_contain_text("2 files received")
        expect(page.locator("#receipt")).to_contain_text("upload lease.txt")
        assert refused == []
        with server.login("uma") as uma:
            wait_until(lambda: listed(uma) == {f.name: "processed" for f in files}, timeout=180,
                       message=f"both uploads audited: {listed(uma)}")
            retried = send(uma, key, [("upload lease.txt", files[0].read_bytes())])  # the browser's retry
            assert retried.status_code == 201 and retried.json()["repeated"] is True
            assert [f["name"] for f in retried.json()["files"]] == ["upload lease.txt", "upload supply.txt"]
            again = send(uma, uuid.uuid4().hex, [("lease again.txt", files[0].read_bytes())])  # the same bytes, later
            assert again.status_code == 201 and again.json()["files"][0]["name"] == "lease again.txt"
            wait_until(lambda: listed(uma).get("lease again.txt") == "duplicate", timeout=120,
                       message=f"the repeat ended as a duplicate: {listed(uma)}")
            assert "Not audited again: same content as uploads/uma/upload lease.txt" in uma.get("/upload").text
            # Only the upload route takes more than max_request_bytes (1 MiB), and no more than its own limit.
            big = send(uma, uuid.uuid4().hex, [(".big.txt", b"x" * (2 * 1024 * 1024))])
            assert big.status_code == 201 and "watcher passes over" in big.json()["files"][0]["refused"]
            assert send(uma, uuid.uuid4().hex, [("huge.txt", b"x" * ((MAX_MB + 1) * 1024 * 1024))]).status_code == 413
            assert uma.post("/calendar/token", content=b"x" * (2 * 1024 * 1024),
                            headers={"X-CSRF-Token": csrf_of(uma, "/upload")}).status_code == 413
        with session_scope(server.database_url, write=False) as session:
            names = session.scalars(select(schema.Document.filename).where(
                schema.Document.filename.in_([f.name for f in files] + ["lease again.txt"]))).all()
            assert sorted(names) == sorted(f.name for f in files)  # audited once each; the repeat not at all
            assert session.scalar(select(func.count()).select_from(schema.IntakeFile)) == 3
        page.reload()
        page.locator("#uploads a", has_text="Open").first.click()
        page.wait_for_url(re.compile(r"/contracts/\d+$"))
        expect(page.locator("article.contract h2")).to_contain_text("upload")
        browser.close()


def test_the_page_says_how_to_turn_uploads_on(audited_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    gen = serve_audited(audited_samples, tmp_path_factory, "upload-off", USERS)
    off = next(gen)
    try:
        with off.login("uma") as uma:
            page = uma.get("/upload")
            assert page.status_code == 200 and "CLAUSEMILL_UPLOAD_INBOX" in page.text
            refused = send(uma, uuid.uuid4().hex, [("a.txt", b"a")])
            assert refused.status_code == 503 and "CLAUSEMILL_UPLOAD_INBOX" in refused.json()["detail"]
    finally:
        gen.close()
