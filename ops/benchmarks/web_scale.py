"""Does every page and API call of the review app answer in under 300 ms at p95 with a
portfolio of 100,000 contracts in PostgreSQL (issue 42, item 6)?

Creates a fresh PostgreSQL database (127.0.0.1:5432, user postgres, dropped at the end), runs
the app's migrations, fills it with synthetic rows, starts the real app (`clausemill serve`),
logs in as a reviewer and as an admin, and times each page and API call a user makes.

The rows: N contracts (default 100,000) in batches of 1,000, each one of a few dozen synthetic
contract texts read by the real rule pack and assessed by the real aggregation
(pipelines.aggregate), so the stored assessments are what an audit stores; one page and ten
analyser findings per contract (1,000,000 at 100,000); N review items over them, made by
review_queue.py's row maker (10% decided, 5% assigned).  Rows go in by COPY.

    python ops/benchmarks/web_scale.py                       # 100,000 contracts
    python ops/benchmarks/web_scale.py --contracts 5000 --repeat 10
"""
from __future__ import annotations

import argparse
import io
import json
import os
import platform
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
import psycopg2  # noqa: E402

from pipelines.aggregate import aggregate_document  # noqa: E402
from pipelines.datamodel import Finding, PageText, document_text  # noqa: E402
from pipelines.reported import refresh_portfolio  # noqa: E402
from pipelines.review.users import create_user  # noqa: E402
from pipelines.settings import Settings  # noqa: E402
from pipelines.stages.segment import segment_document  # noqa: E402
from pipelines.steps import playbook_for, rules_analyser  # noqa: E402
from review_queue import review_item_rows  # noqa: E402
from storage.database import session_scope  # noqa: E402
from storage.migrate import upgrade  # noqa: E402

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
BUDGET_MS = 300.0
PER_BATCH = 1_000
FINDINGS_PER_CONTRACT = 10
TEMPLATES = 96
SLOW_S = 10.0
"""A call slower than this once is timed once: repeating it would only take minutes."""
USERS = {"scale-admin": "admin", "scale-reviewer": "reviewer"}
PASSWORD = "scale-benchmark-password"

CONTRACT = """{title}

This {title_case} (the "Agreement") is entered into as of {start:%B %d, %Y} (the "Effective Date") by and between {us}, a Delaware corporation ("Customer"), and {them}, a {state} limited liability company ("Supplier").

1. Term. The initial term of this Agreement shall commence on the Effective Date and continue until {end:%B %d, %Y}.{renewal}
{clauses}
{n}. Governing Law. This Agreement shall be governed by the laws of the State of {law}.

IN WITNESS WHEREOF, the parties have executed this Agreement as of the Effective Date.
{us}   {them}
"""
RENEWAL = (" Thereafter this Agreement shall automatically renew for successive one (1) year periods unless either "
           "party gives written notice of non-renewal at least {days} days prior to the end of the then-current term.")
CLAUSES = (
    "Exclusivity. During the term, Customer shall purchase the Services exclusively from Supplier.",
    "Non-Compete. Supplier shall not, during the term and for two years thereafter, engage in any business that "
    "competes with Customer.",
    "Limitation of Liability. Each party's total liability shall not exceed the fees paid in the twelve months "
    "preceding the claim.",
    "Unlimited Liability. Notwithstanding anything to the contrary, Supplier's liability for breach of its "
    "confidentiality obligations shall be unlimited.",
    "Liquidated Damages. If Customer terminates early it shall pay a termination fee equal to six months of fees as "
    "liquidated damages.",
    "Assignment. Neither party may assign this Agreement without the prior written consent of the other party.",
    "Intellectual Property. All work product shall be the sole property of Customer, and Supplier hereby assigns to "
    "Customer all right, title and interest in it.",
    "Audit. Customer may audit Supplier's books and records once a year on reasonable notice.",
    "Most Favored Nation. Supplier shall offer Customer prices no less favorable than those it offers any other "
    "customer.",
)
NAMES = ("Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Wonka", "Tyrell", "Cyberdyne",
         "Soylent", "Vandelay", "Massive Dynamic", "Gringotts", "Oceanic", "Nakatomi")
LAWS = ("New York", "Delaware", "California", "Texas", "Illinois", "Massachusetts")
TITLES = ("MASTER SERVICES AGREEMENT", "SUPPLY AGREEMENT", "LICENSE AGREEMENT", "DISTRIBUTION AGREEMENT")


@dataclass(frozen=True)
class Template:
    """One synthetic contract, read and assessed by the real code; many documents share it."""

    text: str
    findings: list[Finding]
    assessment: str  # the stored JSON
    risk_score: float
    risk_level: str


def templates(rng: random.Random, count: int, today: date) -> list[Template]:
    """`count` contracts with terms ending from a year ago to two years ahead (some renewing
    by themselves), and a random subset of the clauses above, so levels, deadlines and
    counterparties vary."""
    playbook, made = playbook_for({}), []
    for i in range(count):
        end = today + timedelta(days=rng.randrange(-365, 730))
        chosen = rng.sample(CLAUSES, rng.randrange(1, 5))
        title = TITLES[i % len(TITLES)]
        text = CONTRACT.format(
            title=title, title_case=title.title(), start=end - timedelta(days=730), end=end,
            us=f"{rng.choice(NAMES)} Holdings Inc.", them=f"{rng.choice(NAMES)} Services LLC",
            state=rng.choice(LAWS), law=rng.choice(LAWS),
            renewal=RENEWAL.format(days=rng.choice((30, 60, 90))) if rng.random() < 0.6 else "",
            clauses="\n".join(f"{n}. {clause}\n" for n, clause in enumerate(chosen, start=2)), n=len(chosen) + 2)
        pages = [PageText(1, text)]
        # as sure as when the model agrees with a rule, so the risky clauses raise verified issues
        findings = [replace(f, confidence=max(f.confidence, 0.9))
                    for f in rules_analyser(document_text(pages)[0], segment_document(pages))]
        assessment = aggregate_document(findings, playbook, 1)
        made.append(Template(text, findings, json.dumps(assessment.to_dict()), assessment.risk_score,
                             assessment.risk_level))
    return made


# --- filling the database by COPY -------------------------------------------------------------

def _field(value: object) -> str:
    """A value in COPY's text format."""
    if value is None:
        return "\\N"
    text = value if isinstance(value, str) else json.dumps(value) if isinstance(value, (dict, list)) else str(value)
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def copy_rows(connection, table: str, columns: list[str], rows: Iterable[tuple], chunk: int = 20_000,  # type: ignore[no-untyped-def]
              serial: bool = True) -> int:
    """COPY `rows` into `table` in chunks; returns how many.  `serial`: the table's integer id
    sequence is moved past the ids given."""
    count, buffer = 0, io.StringIO()
    with connection.cursor() as cursor:
        def flush() -> None:
            buffer.seek(0)
            cursor.copy_expert(f"COPY {table} ({', '.join(columns)}) FROM STDIN", buffer)
            buffer.seek(0)
            buffer.truncate()

        for row in rows:
            buffer.write("\t".join(_field(v) for v in row) + "\n")
            count += 1
            if count % chunk == 0:
                flush()
        if buffer.tell():
            flush()
        if serial:  # rows were given their ids: the next insert the app makes must not reuse one
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
    connection.commit()
    return count


def fill(dsn: str, contracts: int, made: list[Template], rng: random.Random) -> dict[str, int]:
    """Batches, documents (each with its template's stored assessment), one page and ten findings
    per document, and as many review items as documents."""
    batches = max(1, -(-contracts // PER_BATCH))
    choice = [rng.randrange(len(made)) for _ in range(contracts)]
    connection = psycopg2.connect(dsn)
    try:
        counts = {"batches": copy_rows(connection, "batches", ["id", "status", "origin", "created_at", "finished_at",
                                                               "options", "summary"],
                                       ((f"scale-{b:04d}", "done", "audit", f"2026-01-01 00:{b // 60 % 60:02d}:{b % 60:02d}",
                                         "2026-01-01 01:00:00", {}, {}) for b in range(batches)), serial=False)}

        def documents() -> Iterator[tuple]:
            for d in range(contracts):
                t = made[choice[d]]
                yield (d + 1, f"scale-{d // PER_BATCH:04d}", f"/contracts/contract-{d:06d}.pdf",
                       f"contract-{d:06d}.pdf", "done", "persist", f"{d:064x}", "pdf", len(t.text), 1, {},
                       t.assessment, t.risk_score, t.risk_level, "2026-01-01 01:00:00", 1)

        counts["documents"] = copy_rows(connection, "documents", [
            "id", "batch_id", "path", "filename", "status", "stage", "sha256", "kind", "size_bytes", "page_count",
            "timings", "assessment", "risk_score", "risk_level", "updated_at", "attempts"], documents(), chunk=5_000)
        counts["pages"] = copy_rows(connection, "pages", ["id", "document_id", "number", "source", "text", "words",
                                                          "width", "height", "seconds"],
                                    ((d + 1, d + 1, 1, "text-layer", made[choice[d]].text, [], 612.0, 792.0, 0.0)
                                     for d in range(contracts)))

        def findings() -> Iterator[tuple]:
            n = 0
            for d in range(contracts):
                for f in made[choice[d]].findings[:FINDINGS_PER_CONTRACT]:
                    n += 1
                    yield (n, d + 1, "rules", f.category, f.text, f.start, f.end, f.page, None, f.confidence,
                           f.source, f.version, f.severity, f.value, f.note, f.detail)

        counts["findings"] = copy_rows(connection, "findings", [
            "id", "document_id", "producer", "category", "text", "start", "\"end\"", "page", "box", "confidence",
            "source", "version", "severity", "value", "note", "detail"], findings(), chunk=50_000)
        counts["review items"] = copy_rows(connection, "review_items", [
            "id", "document_id", "category", "reason", "priority", "severity", "status", "evidence", "created_at",
            "version", "assignee"],
            ((i + 1, r["document_id"], r["category"], r["reason"], r["priority"], r["severity"], r["status"],
              r["evidence"], "2026-01-01 01:00:00", 1, r["assignee"])
             for i, r in enumerate(review_item_rows(rng, contracts, contracts))))
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        connection.commit()
    finally:
        connection.close()
    return counts


# --- the app and the calls timed --------------------------------------------------------------

def start_app(stack: ExitStack, database_url: str, folder: Path) -> str:
    """`clausemill serve` on the database, stopped when `stack` closes; returns its URL."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUSEMILL_")}
    env.update(CLAUSEMILL_DATA_DIR=str(folder / "data"), CLAUSEMILL_DATABASE_URL=database_url, PYTHONPATH=str(REPO))
    log = open(folder / "serve.log", "wb")
    stack.callback(log.close)
    process = subprocess.Popen([sys.executable, "-m", "pipelines.cli", "serve", "--port", str(port)], env=env,
                               cwd=REPO, stdout=log, stderr=subprocess.STDOUT)

    def stop() -> None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    stack.callback(stop)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("clausemill serve exited:\n" + (folder / "serve.log").read_text())
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return url
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"clausemill serve did not answer on {url}")


def logged_in(stack: ExitStack, url: str, name: str) -> httpx.Client:
    client = stack.enter_context(httpx.Client(base_url=url, timeout=600, follow_redirects=False))
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/login").text)
    assert token, "no CSRF token on /login"
    answer = client.post("/login", data={"name": name, "password": PASSWORD, "csrf_token": token.group(1)})
    assert answer.status_code == 303, f"login as {name}: {answer.status_code} {answer.text[:300]}"
    return client


@dataclass
class Timing:
    path: str
    who: str
    ms: list[float]
    status: int

    def p(self, q: float) -> float:
        ordered = sorted(self.ms)
        return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]

    @property
    def passed(self) -> bool:
        return self.status == 200 and self.p(0.95) < BUDGET_MS


def timed(client: httpx.Client, who: str, path: str, repeat: int) -> Timing:
    """One untimed call (it may warm a cache), then `repeat` timed ones; a call over SLOW_S is
    timed once."""
    started = time.perf_counter()
    answer = client.get(path)
    first = (time.perf_counter() - started) * 1000
    if first > SLOW_S * 1000:
        return Timing(path, who, [first], answer.status_code)
    ms = []
    for _ in range(repeat):
        started = time.perf_counter()
        answer = client.get(path)
        ms.append((time.perf_counter() - started) * 1000)
        if answer.status_code != 200:
            break
    return Timing(path, who, ms, answer.status_code)


def deep_links(dsn: str) -> dict[str, str]:
    """Paths whose ids come from the data: the most urgent open unassigned item, a contract, a batch, and
    pages deep in the queue and the contracts as their "next" links reach them, after a row
    (keyset): page 1,000 of the queue at 50 a page, and the contracts' last page; and page
    1,000 of the queue asked for by number (OFFSET)."""
    connection = psycopg2.connect(dsn)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT id FROM review_items WHERE status = 'open' AND assignee IS NULL "
                           "ORDER BY priority DESC, id LIMIT 1")  # one the reviewer may see
            item = cursor.fetchone()[0]
            cursor.execute("SELECT count(*) FROM review_items WHERE status = 'open'")
            open_items = cursor.fetchone()[0]
            deep = min(999, max(1, open_items // 50 - 1))
            cursor.execute("SELECT id FROM review_items WHERE status = 'open' ORDER BY priority DESC, id "
                           "OFFSET %s LIMIT 1", (deep * 50 - 1,))
            queue_after = cursor.fetchone()[0]
            cursor.execute("SELECT count(*) FROM contract_summaries")
            contracts = cursor.fetchone()[0]
            last = max(1, -(-contracts // 50))
            cursor.execute("SELECT document_id FROM contract_summaries ORDER BY level_order, score_order, filename, "
                           "document_id OFFSET %s LIMIT 1", ((last - 1) * 50 - 1,))
            contracts_after = cursor.fetchone()[0]
            cursor.execute("SELECT id, batch_id FROM documents ORDER BY id DESC LIMIT 1")
            document, batch = cursor.fetchone()
    finally:
        connection.close()
    return {"item": f"/items/{item}", "contract": f"/contracts/{document}", "batch": f"/batches/{batch}",
            "queue_deep": f"/api/items?page={deep + 1}&after={queue_after}",
            "queue_page": f"/api/items?page={deep + 1}", "queue_page_html": f"/?page={deep + 1}&after={queue_after}",
            "contracts_deep": f"/contracts?page={last}&after={contracts_after}"}


def calls(links: dict[str, str]) -> list[tuple[str, str]]:
    """(who, path) of every page and API call timed."""
    reviewer, admin = "scale-reviewer", "scale-admin"
    return [
        (reviewer, "/"), (admin, "/"), (reviewer, "/next"), (reviewer, "/api/items"), (admin, "/api/items"),
        (reviewer, links["queue_deep"]), (reviewer, links["queue_page"]), (admin, links["queue_page_html"]),
        (reviewer, links["item"]),
        (reviewer, "/contracts"), (reviewer, "/contracts?level=high"), (reviewer, "/contracts?q=delaware"),
        (reviewer, '/contracts?q="non-compete"+globex'), (reviewer, "/contracts?within=30"),
        (reviewer, links["contracts_deep"]), (reviewer, links["contract"]),
        (reviewer, "/batches"), (reviewer, links["batch"]), (reviewer, "/calendar"),
        (reviewer, "/summary"), (reviewer, "/renegotiate"), (reviewer, "/renegotiate?page=20"),
        (admin, "/users"), (admin, "/agreement"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contracts", type=int, default=100_000, help="Contracts (and review items); 10 findings each.")
    parser.add_argument("--repeat", type=int, default=20, help="Timed calls per path (after one untimed).")
    args = parser.parse_args()
    name = f"clausemill_scale_{os.getpid()}"
    admin = psycopg2.connect(ADMIN_URL)
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {name}")
    dsn = f"postgresql://postgres@127.0.0.1:5432/{name}"
    database_url = f"postgresql+psycopg2://postgres@127.0.0.1:5432/{name}"
    try:
        with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="clausemill-scale-") as folder:
            started = time.perf_counter()
            upgrade(database_url)
            rng = random.Random(42)
            made = templates(rng, TEMPLATES, date.today())
            counts = fill(dsn, args.contracts, made, rng)
            with session_scope(database_url) as session:
                for user, role in USERS.items():
                    create_user(session, user, role, PASSWORD, min_password_length=Settings().password_min_length)
            filled = time.perf_counter() - started
            started = time.perf_counter()  # the one-off summary of every contract, as the first page view would
            refresh_portfolio(database_url, Settings().analysers, date.today())
            summarised = time.perf_counter() - started
            url = start_app(stack, database_url, Path(folder))
            clients = {user: logged_in(stack, url, user) for user in USERS}
            results = [timed(clients[who], who, path, args.repeat) for who, path in calls(deep_links(dsn))]
    finally:
        with admin.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
            cursor.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.close()
    print(f"{', '.join(f'{n:,} {what}' for what, n in counts.items())}; filled in {filled:.0f} s; "
          f"contracts summarised (pipelines.reported.refresh_portfolio, once) in {summarised:.0f} s")
    print(f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, PostgreSQL at 127.0.0.1\n")
    print(f"| path | as | n | p50 ms | p95 ms | max ms | < {BUDGET_MS:.0f} ms |\n| --- | --- | ---: | ---: | ---: | ---: | --- |")
    for t in results:
        verdict = "PASS" if t.passed else f"FAIL{'' if t.status == 200 else f' ({t.status})'}"
        print(f"| {t.path} | {t.who} | {len(t.ms)} | {statistics.median(t.ms):.0f} | {t.p(0.95):.0f} | "
              f"{max(t.ms):.0f} | {verdict} |")
    sys.exit(0 if all(t.passed for t in results) else 1)


if __name__ == "__main__":
    main()
