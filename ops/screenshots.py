"""The review app's screenshots in docs/screenshots/: the queue, an item, a value item, the
contracts, a contract's page, the calendar, an upload, the general counsel's summary and the
business owner's list of what to renegotiate, taken in headless Chromium from an audit of
the synthetic samples, so the pictures in the docs are the product as it is.

    python ops/screenshots.py [--out docs/screenshots]

Needs Chromium at /usr/bin/chromium (Debian `chromium`; Playwright cannot download one here).
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
PASSWORD = "screenshots-correct-horse-battery"
PAGES = (("queue.png", "/", False), ("contracts.png", "/contracts", True), ("calendar.png", "/calendar", True),
         ("summary.png", "/summary", True), ("renegotiate.png", "/renegotiate", False))
"""(file, page, whole page or the window): the queue runs to hundreds of rows."""


def _cli(args: list[str], env: dict[str, str], stdin: str | None = None) -> None:
    subprocess.run([sys.executable, "-m", "pipelines.cli", *args], env=env, cwd=REPO, input=stdin, text=True,
                   check=True, capture_output=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="clausemill-shots-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUSEMILL_")}
        env.update(CLAUSEMILL_DATA_DIR=str(Path(tmp) / "data"), PYTHONPATH=str(REPO),
                   CLAUSEMILL_UPLOAD_INBOX=str(Path(tmp) / "inbox"))
        (Path(tmp) / "inbox").mkdir()
        _cli(["samples", str(Path(tmp) / "samples")], env)
        _cli(["audit", str(Path(tmp) / "samples"), "--out", str(Path(tmp) / "report"), "--batch-id", "samples"], env)
        _cli(["users", "add", "lawyer", "--role", "admin"], env, stdin=PASSWORD + "\n")
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        server = subprocess.Popen([sys.executable, "-m", "pipelines.cli", "serve", "--port", str(port)], env=env,
                                  cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(120):
                try:
                    if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.5)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"{url}/login")
                page.fill("input[name=name]", "lawyer")
                page.fill("input[name=password]", PASSWORD)
                page.click("button[type=submit]")
                page.wait_for_load_state()
                for name, path, whole in PAGES:
                    page.goto(url + path)
                    page.screenshot(path=str(args.out / name), full_page=whole)
                    print(args.out / name)
                page.goto(f"{url}/contracts?level=critical")
                page.click("#contracts tbody a")
                page.screenshot(path=str(args.out / "contract.png"), full_page=False)
                print(args.out / "contract.png")
                page.goto(f"{url}/upload")  # two samples sent; no watcher runs here, so they wait for one
                page.set_input_files("#files", sorted(str(f) for f in (Path(tmp) / "samples").iterdir() if f.suffix in (".pdf", ".txt"))[:2])
                page.click("#send")
                page.wait_for_url("**/upload?sent=*")
                page.screenshot(path=str(args.out / "upload.png"), full_page=False)
                print(args.out / "upload.png")
                page.goto(f"{url}/")
                wanted = {"item.png": False, "value-item.png": True}  # a clause item and a value item
                for href in [link.get_attribute("href") for link in page.locator("a.open-item").all()]:
                    page.goto(url + str(href))
                    shot = next((n for n, value in wanted.items() if value == (page.locator("#value-read").count() > 0)),
                                None)
                    if shot is not None:
                        page.screenshot(path=str(args.out / shot), full_page=False)
                        print(args.out / shot)
                        del wanted[shot]
                    if not wanted:
                        break
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
