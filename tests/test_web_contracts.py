"""The portfolio in the browser (issue 42, item 5): the contracts' triage table over the audited
samples, its filters and search, a contract's page with its key terms, deadline and review
items, a batch's reports downloaded with the decisions made so far, and a reviewer's answer
moving a contract's level on the page."""
from __future__ import annotations

import io
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import lxml.html
import openpyxl
import pytest
from sqlalchemy import select

from conftest import AUDITED_BATCH
from pipelines.playbook import load_playbook
from pipelines.playbook.severity import RISK_LEVELS, level_for_severity
from pipelines.review.decisions import question_of
from pipelines.review.queue import decide
from storage import schema
from storage.database import session_scope
from test_web_auth import Server, serve_audited

USERS = {"lee": "reviewer"}


@pytest.fixture(scope="module")
def server(audited_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve_audited(audited_samples, tmp_path_factory, "contracts", USERS)


def rows(html: str) -> list[dict[str, str]]:
    """The triage table's rows: the contract's name, its level and the link to its page."""
    tree = lxml.html.fromstring(html)
    return [{"file": row.xpath("string(td[2])").strip(), "level": row.xpath("string(td[1])").strip().split(" ")[0],
             "href": row.xpath("td[2]/a/@href")[0]} for row in tree.xpath('//table[@id="contracts"]/tbody/tr')]


def test_the_triage_table_filters_searches_and_opens_a_contract(server: Server) -> None:
    with session_scope(server.database_url, write=False) as session:
        done = set(session.scalars(select(schema.Document.filename).where(schema.Document.status == "done")))
    with server.login("lee") as lee:
        everything = rows(lee.get("/contracts").text)
        assert {r["file"] for r in everything} == done
        assert [r["level"] for r in everything] == sorted((r["level"] for r in everything),
                                                         key=["critical", "high", "medium", "low"].index)
        critical = rows(lee.get("/contracts", params={"level": "critical"}).text)
        assert critical and all(r["level"] == "critical" for r in critical)
        assert len(critical) == sum(r["level"] == "critical" for r in everything)
        found = rows(lee.get("/contracts", params={"q": '"Governing Law" Delaware'}).text)
        assert found and len(found) < len(everything)
        none = lee.get("/contracts", params={"q": "no-such-word-anywhere"}).text
        assert rows(none) == [] and "No contract matches." in none
        assert lee.get("/contracts", params={"within": "-1"}).status_code == 400  # a page, saying what was wrong
        page = lee.get(critical[0]["href"])
        assert page.status_code == 200
        tree = lxml.html.fromstring(page.text)
        assert tree.xpath('string(//article[@class="contract"]//h2)').startswith(critical[0]["file"])
        assert "Key terms" in page.text and "Issues and what to ask for" in page.text
        links = tree.xpath('//p[@id="downloads"]/a/@href')
        assert f"/batches/{AUDITED_BATCH}/report.xlsx" in links
        xlsx = lee.get(f"/batches/{AUDITED_BATCH}/report.xlsx")
        assert xlsx.status_code == 200 and 'attachment; filename="samples-report.xlsx"' == \
            xlsx.headers["content-disposition"]
        contracts = openpyxl.load_workbook(io.BytesIO(xlsx.content))["Contracts"]
        assert {row[0] for row in contracts.iter_rows(min_row=2, values_only=True)} >= {critical[0]["file"]}
        assert lee.get(f"/batches/{AUDITED_BATCH}/secrets.txt").status_code == 404
        assert lee.get("/contracts/999999").status_code == 404
    with server.client() as anonymous:  # behind the same login as the queue
        assert anonymous.get("/contracts").status_code == 303
        assert anonymous.get(f"/batches/{AUDITED_BATCH}/report.xlsx").status_code == 303


def test_a_reviewers_yes_moves_the_contracts_level_on_the_page(server: Server) -> None:
    risky = {r.category: r.severity for r in load_playbook(None).risky}
    with session_scope(server.database_url) as session:
        found = session.execute(select(schema.ReviewItem, schema.Document).join(schema.Document)
                                .where(schema.ReviewItem.status == "open")
                                .order_by(schema.ReviewItem.priority.desc())).all()
        item, document = next((i, d) for i, d in found if question_of(i.evidence) == "presence" and
                              i.category in risky and i.evidence["confidence"] < 0.5 and d.risk_level != "critical")
        decide(session, item.id, "lee", "accept", item.version, datetime(2026, 12, 7, 9))
        filename, document_id = document.filename, document.id
    with server.login("lee") as lee:
        page = lee.get(f"/contracts/{document_id}").text
        assert re.search(rf"Risky clause: {re.escape(item.category)}", page)
        row = next(r for r in rows(lee.get("/contracts").text) if r["file"] == filename)
        assert RISK_LEVELS.index(row["level"]) >= RISK_LEVELS.index(level_for_severity(risky[item.category]))
        assert row["href"] == f"/contracts/{document_id}"


def test_the_batches_page_shows_progress_failures_and_reports(server: Server) -> None:
    with session_scope(server.database_url, write=False) as session:
        failed = {name: reason for name, reason in session.execute(
            select(schema.Document.filename, schema.Document.reason).where(schema.Document.status == "failed"))}
    assert failed, "the samples hold broken files, which fail with a reason"
    with server.login("lee") as lee:
        listing = lxml.html.fromstring(lee.get("/batches").text)
        assert AUDITED_BATCH in listing.xpath('string(//table[@id="batches"])')
        page = lee.get(f"/batches/{AUDITED_BATCH}")
        assert page.status_code == 200
        tree = lxml.html.fromstring(page.text)
        assert "documents ended" in tree.xpath('string(//p[@id="progress"])')
        shown = {row.xpath("string(td[1])").strip(): row.xpath("string(td[3])").strip()
                 for row in tree.xpath('//table[@id="failures"]/tbody/tr')}
        assert shown == {name: reason or "no reason recorded" for name, reason in failed.items()}
        assert tree.xpath('//p[@id="downloads"]/a/@href') == [
            f"/batches/{AUDITED_BATCH}/{name}" for name in ("report.xlsx", "report.html", "report.json", "findings.csv",
                                                            "deadlines.ics")]
        calendar = lee.get(f"/batches/{AUDITED_BATCH}/deadlines.ics")
        assert calendar.status_code == 200 and calendar.text.startswith("BEGIN:VCALENDAR")
        assert lee.get("/batches/no-such-batch").status_code == 404
        assert lee.get("/batches/no-such-batch/report.json").status_code == 404
