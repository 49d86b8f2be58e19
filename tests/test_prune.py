"""Retention (issue 43, item 4): `clausemill prune` and the nightly run's own prune keep the last
runs whole, the latest audit of every contract, every decision and what it rests on, and the
record of every audit; older superseded audits lose their details, older runs their report
folders.  Real nightly runs with embedded workers (model on: its ranked tail is what a pruned
assessment loses), a prune killed halfway, the app's pages on a pruned batch; and PostgreSQL."""
from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path

import lxml.html
from sqlalchemy import func, select, text
from sqlalchemy.orm import undefer

from conftest import REPO, run_cli, sqlite_url
from pipelines.assessment import DocumentAssessment
from pipelines.review.queue import decide
from pipelines.samples import generate_contract, write_scanned_pdf, write_txt
from pipelines.settings import Settings
from storage import retention, schema
from storage.database import session_scope
from storage.retention import PRUNED
from test_web_auth import start_server

CONTRACTS = {"a.txt": 6, "b.txt": 10, "c.txt": 14, "d.txt": 36}
"""a: unchanged, a decision on its first audit; b: changed, a decision on its first audit; c:
changed, no decision; d: unchanged until the fourth run.  Plus scan.pdf, unchanged (OCR)."""


def nightly(env: dict[str, str], repo: Path, out: Path) -> subprocess.CompletedProcess[str]:
    done = run_cli(["nightly", str(repo), "--out", str(out), "--as-of", "2026-12-20"], env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def prune(env: dict[str, str], *args: str) -> str:
    done = run_cli(["prune", *args], env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def report(env: dict[str, str], batch_id: str, out: Path) -> dict[str, dict]:
    """`clausemill report` of the batch, as of the nightly runs' day: report.json's documents by file name."""
    done = run_cli(["report", batch_id, "--out", str(out), "--as-of", "2026-12-20"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    return report_documents(out)


def report_documents(folder: Path) -> dict[str, dict]:
    return {d["filename"]: d for d in json.loads((folder / "report.json").read_text())["documents"]}


def batches(url: str) -> list[str]:
    """The nightly runs' batches, oldest first."""
    with session_scope(url, write=False) as session:
        return list(session.scalars(select(schema.ScheduleRun.batch_id).order_by(schema.ScheduleRun.id)))


def documents(url: str) -> dict[tuple[str, str], int]:
    """(batch, file name) -> document id."""
    with session_scope(url, write=False) as session:
        return {(b, f): i for i, b, f in session.execute(
            select(schema.Document.id, schema.Document.batch_id, schema.Document.filename))}


def record(url: str) -> dict[int, tuple]:
    """What an audit leaves as its record: each document's row but its notes, fingerprint and
    assessment, each review item and decision."""
    D = schema.Document
    with session_scope(url, write=False) as session:
        rows = {d.id: (d.batch_id, d.path, d.status, d.stage, d.reason, d.sha256, d.size_bytes, d.page_count,
                       d.risk_score, d.risk_level, d.carried_from, d.updated_at) for d in session.scalars(select(D))}
        items = session.execute(select(schema.ReviewItem.id, schema.ReviewItem.document_id, schema.ReviewItem.status,
                                       schema.ReviewItem.evidence).order_by(schema.ReviewItem.id)).all()
        decisions = session.execute(select(schema.ReviewDecision.id, schema.ReviewDecision.item_id,
                                           schema.ReviewDecision.document_id, schema.ReviewDecision.action,
                                           schema.ReviewDecision.new).order_by(schema.ReviewDecision.id)).all()
    return {"documents": rows, "items": [tuple(i) for i in items], "decisions": [tuple(d) for d in decisions]}


def details(url: str) -> dict[int, dict]:
    """Each document's details: pages, segments, findings rows, stored assessment, notes."""
    D, P, S, F = schema.Document, schema.Page, schema.Segment, schema.Finding
    with session_scope(url, write=False) as session:
        found: dict[int, dict] = {d.id: {"pages": [], "segments": [], "findings": [], "assessment": d.assessment,
                                         "notes": d.notes, "fingerprint": d.fingerprint}
                                  for d in session.scalars(select(D).options(undefer(D.assessment)))}
        for row in session.execute(select(P.document_id, P.number, P.source, P.text, P.words, P.error).order_by(P.id)):
            found[row.document_id]["pages"].append(tuple(row[1:]))
        for row in session.execute(select(S.document_id, S.index, S.text, S.start, S.end, S.page, S.box).order_by(S.id)):
            found[row.document_id]["segments"].append(tuple(row[1:]))
        for row in session.execute(select(F.document_id, F.id, F.producer, F.category, F.start, F.end, F.text,
                                          F.confidence, F.detail).order_by(F.id)):
            found[row.document_id]["findings"].append(tuple(row[1:]))
    return found


def sqlite_in_use(url: str) -> int:
    """Bytes the SQLite database has in use: its pages less the free ones."""
    with sqlite3.connect(url.split("///", 1)[1]) as db:
        (pages,), (free,), (size,) = (db.execute(f"PRAGMA {p}").fetchone() for p in ("page_count", "freelist_count",
                                                                                      "page_size"))
    return (pages - free) * size


def decide_on(url: str, document_id: int) -> tuple[str, int]:
    """A reviewer rejects the document's first open item with a span: (its category, start)."""
    with session_scope(url) as session:
        item = session.scalars(select(schema.ReviewItem).where(
            schema.ReviewItem.document_id == document_id, schema.ReviewItem.status == "open",
            schema.ReviewItem.evidence["start"].as_integer().is_not(None)).order_by(schema.ReviewItem.id)).first()
        assert item is not None, f"document {document_id} has no open item to decide"
        decide(session, item.id, "ann", "reject", item.version, datetime(2026, 12, 20, 9), reason="not_a_clause")
        return item.category, item.evidence["start"]


def assert_pruned(before: dict, after: dict) -> None:
    """A pruned document: no page text or word boxes, no segments or findings rows, its
    assessment's findings those it showed (at or above the floor), said in its notes."""
    assert all(text == "" and words == [] for _, _, text, words, _ in after["pages"])
    assert [(n, s, e) for n, s, _, _, e in after["pages"]] == [(n, s, e) for n, s, _, _, e in before["pages"]]
    assert after["segments"] == [] and after["findings"] == [] and after["fingerprint"] is None
    assert after["notes"][:len(before["notes"] or [])] == (before["notes"] or [])
    assert after["notes"][-1].startswith(PRUNED)
    if before["assessment"]:
        kept, was = DocumentAssessment.from_dict(after["assessment"]), DocumentAssessment.from_dict(before["assessment"])
        assert kept.findings == was.shown() and kept.key_terms == was.key_terms and kept.issues == was.issues
        assert (kept.risk_level, kept.risk_score, kept.review) == (was.risk_level, was.risk_score, was.review)


KILL_AFTER_ONE_CHUNK = textwrap.dedent("""
    import os, signal
    from pipelines.settings import get_settings
    from storage import retention

    retention.CHUNK = 1  # a transaction per document, so the kill falls between two of them
    def killed(pruned):
        if pruned.documents:
            os.kill(os.getpid(), signal.SIGKILL)
    retention.prune(get_settings(), 1, progress=killed)
""")


def test_prune_keeps_latest_audits_and_decisions_and_drops_superseded_details(embedded_env: dict[str, str],
                                                                                 tmp_path: Path) -> None:
    env = {**embedded_env, "CLAUSEMILL_RECOVERY_INTERVAL_S": "5"}
    url, repo, out = sqlite_url(env), tmp_path / "contracts", tmp_path / "nightly"
    repo.mkdir()
    for name, seed in CONTRACTS.items():
        write_txt(generate_contract(seed), repo / name)
    write_scanned_pdf(generate_contract(3, short=True), repo / "scan.pdf")

    nightly(env, repo, out)
    nightly(env, repo, out)
    first, second = batches(url)
    ids = documents(url)
    decided = {name: decide_on(url, ids[first, name]) for name in ("a.txt", "b.txt")}
    write_txt(generate_contract(39), repo / "b.txt")
    write_txt(generate_contract(40), repo / "c.txt")
    nightly(env, repo, out)
    third = batches(url)[-1]
    ids = documents(url)
    folders = sorted(p for p in out.iterdir() if p.name != "latest")
    assert len(folders) == 3, "at the default CLAUSEMILL_KEEP_RUNS (30) a nightly run prunes nothing"
    # What goes: the first audit of c (its only copy is superseded too) and, in the second run,
    # every copy but those of a's and b's audits, which carry a decision.
    expected = {ids[first, "c.txt"]} | {ids[second, n] for n in ("c.txt", "d.txt", "scan.pdf")}

    before, kept_record, in_use = details(url), record(url), sqlite_in_use(url)
    was = report(env, first, tmp_path / "first-before")

    # Off a terminal it will not prune without --yes; on one it asks, and "n" keeps everything.
    refused = run_cli(["prune", "--keep-runs", "1"], env)
    assert refused.returncode == 2 and "add --yes" in refused.stderr
    master, terminal = os.openpty()
    asked = subprocess.Popen([sys.executable, "-m", "pipelines.cli", "prune", "--keep-runs", "1"], env=env, cwd=REPO,
                             stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.close(terminal)
    os.write(master, b"n\n")
    said, _ = asked.communicate(timeout=120)
    os.close(master)
    assert asked.returncode == 1 and "Prune these?" in said and "Nothing pruned." in said
    dry = prune(env, "--keep-runs", "1", "--dry-run")
    assert details(url) == before and record(url) == kept_record and len(list(out.iterdir())) == 4
    assert f"Details of {len(expected)} superseded document(s) in 2 batch(es) would be pruned" in dry
    assert re.search(r"Report folders of older runs that would be deleted: 2 ", dry)

    # Killed after its first transaction: every document whole or pruned, none half; again, and it finishes.
    killed = subprocess.run([sys.executable, "-c", KILL_AFTER_ONE_CHUNK], env=env, cwd=REPO, capture_output=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    halfway = details(url)
    pruned_then = {i for i, d in halfway.items() if d != before[i]}
    assert len(pruned_then) == 1 and pruned_then < expected
    for i in pruned_then:
        assert_pruned(before[i], halfway[i])
    done = prune(env, "--keep-runs", "1", "--yes")
    assert f"Details of {len(expected) - 1} superseded document(s)" in done, done
    for line in ("pages emptied", "segments deleted", "findings rows deleted", "candidates taken"):
        assert re.search(rf"^  {line}.* [\d,]+$", done, re.MULTILINE), done
    after = details(url)
    assert {i for i, d in after.items() if d != before[i]} == expected
    for i in expected:
        assert_pruned(before[i], after[i])
    assert before[ids[first, "c.txt"]]["pages"] and before[ids[first, "c.txt"]]["segments"]
    assert any(len(before[i]["assessment"]["findings"]) > len(after[i]["assessment"]["findings"])
               for i in expected if before[i]["assessment"])  # a carried document stores none of its own
    assert record(url) == kept_record  # rows, statuses, clocks, items and decisions: all as they were
    # c's first audit's pages, segments and findings rows, and the candidates of both: 13% of this
    # small database here (carried documents hold no findings of their own to free).
    assert sqlite_in_use(url) < in_use * 0.92, (in_use, sqlite_in_use(url))
    assert not folders[0].exists() and not folders[1].exists() and folders[2].is_dir()
    assert (out / "latest").resolve() == folders[2].resolve() and (folders[2] / "report.html").exists()
    with session_scope(url, write=False) as session:
        summaries = [r.summary for r in session.scalars(select(schema.ScheduleRun).order_by(schema.ScheduleRun.id))]
    assert [bool(s.get("reports_pruned_on")) for s in summaries] == [True, True, False]

    # The latest audits answer as before, decisions applied; an old batch's report keeps every
    # document, a pruned one with the findings it showed and the note.
    shown = report(env, third, tmp_path / "third-after")
    assert shown == report_documents(folders[2])
    spans = {(m["finding"]["category"], m["finding"]["start"]) for m in shown["a.txt"]["assessment"]["findings"]}
    assert decided["a.txt"] not in spans  # carried since: the decision on its first audit still applies
    now = report(env, first, tmp_path / "first-after")
    assert set(was) == set(now)
    for name in was:
        assert (now[name]["status"], now[name]["risk_level"]) == (was[name]["status"], was[name]["risk_level"])
        threshold = was[name]["assessment"]["thresholds"]["floor"] if was[name]["assessment"] else 0
        if name == "c.txt":
            assert now[name]["notes"][-1].startswith(PRUNED)
            assert now[name]["assessment"]["findings"] == [m for m in was[name]["assessment"]["findings"]
                                                          if m["finding"]["confidence"] >= threshold]
        else:
            assert now[name] == was[name]
    assert PRUNED in (tmp_path / "first-after" / "report.html").read_text()

    # The app: the batch says what was pruned and when; a pruned audit's review item still opens.
    with session_scope(url, write=False) as session:
        item = session.scalars(select(schema.ReviewItem.id).where(schema.ReviewItem.document_id == ids[first, "c.txt"],
                                                                  schema.ReviewItem.status == "open")).first()
    assert item is not None
    with ExitStack() as stack:
        server = start_server(stack, tmp_path, env, {"lee": "reviewer"})
        with server.login("lee") as lee:
            page = lxml.html.fromstring(lee.get(f"/batches/{first}").text)
            notice = page.xpath('string(//p[@id="pruned"])')
            assert re.search(r"Details pruned on \d{4}-\d{2}-\d{2}: 1 of these documents", notice), notice
            assert not lxml.html.fromstring(lee.get(f"/batches/{third}").text).xpath('//p[@id="pruned"]')
            assert lee.get(f"/items/{item}").status_code == 200
            assert PRUNED in lee.get(f"/batches/{first}/report.html").text

    # Nothing left to prune, and nothing changes.
    again = prune(env, "--keep-runs", "1", "--yes")
    assert "Nothing to prune" in again and details(url) == after and record(url) == kept_record

    # The nightly run prunes by itself at CLAUSEMILL_KEEP_RUNS: d changed, so its copy in the
    # third run goes, and its first audit with it (nothing kept carries from it any more).
    write_txt(generate_contract(41), repo / "d.txt")
    nightly({**env, "CLAUSEMILL_KEEP_RUNS": "1"}, repo, out)
    fourth = batches(url)[-1]
    ids = documents(url)
    final = details(url)
    newly = {ids[third, "d.txt"], ids[third, "scan.pdf"], ids[first, "d.txt"]}
    assert {i for i, d in final.items() if i in after and d != after[i]} == newly
    for i in newly:
        assert_pruned(after[i], final[i])
    assert not folders[2].exists() and (out / "latest").resolve().is_dir()
    with session_scope(url, write=False) as session:
        run = session.scalars(select(schema.ScheduleRun).where(schema.ScheduleRun.batch_id == fourth)).one()
    assert run.summary["pruned"]["documents"] == len(newly) and run.summary["pruned"]["keep_runs"] == 1
    assert not any(PRUNED in note for (b, _), i in ids.items() if b == fourth for note in final[i]["notes"] or [])


def test_prune_on_postgresql(server_env: dict[str, str], tmp_path: Path, start_worker) -> None:
    url = server_env["CLAUSEMILL_DATABASE_URL"]
    # Results in PostgreSQL too (a team without a Redis it trusts to keep them): the OCR chord's
    # rows stay there until something deletes them.
    env = {**server_env, "CLAUSEMILL_MODEL_ENABLED": "false", "CLAUSEMILL_RECOVERY_INTERVAL_S": "5",
           "CLAUSEMILL_RESULT_BACKEND": f"db+{url}"}
    repo, out = tmp_path / "contracts", tmp_path / "nightly"
    repo.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        write_txt(generate_contract(CONTRACTS[name]), repo / name)
    write_scanned_pdf(generate_contract(3, short=True), repo / "scan.pdf")
    start_worker(env, "cpu", 2)
    nightly(env, repo, out)
    first = batches(url)[0]
    ids = documents(url)
    with session_scope(url, write=False) as session:  # rules only: not every contract has an item
        with_items = sorted(set(session.scalars(
            select(schema.Document.filename).join(schema.ReviewItem, schema.ReviewItem.document_id == schema.Document.id)
            .where(schema.Document.batch_id == first, schema.Document.filename.in_(("a.txt", "b.txt", "c.txt")),
                   schema.ReviewItem.evidence["start"].as_integer().is_not(None)))))
    assert with_items
    reviewed = with_items[0]
    changed, unchanged = sorted({"a.txt", "b.txt", "c.txt"} - {reviewed})
    decide_on(url, ids[first, reviewed])
    write_txt(generate_contract(39), repo / reviewed)
    write_txt(generate_contract(40), repo / changed)
    nightly(env, repo, out)
    with session_scope(url) as session:  # two days later: the first run's OCR chord results have long expired
        assert session.execute(text("SELECT count(*) FROM celery_taskmeta")).scalar() >= 3
        session.execute(text("UPDATE celery_taskmeta SET date_done = date_done - interval '2 days'"))
    before, kept_record = details(url), record(url)

    def live_bytes() -> int:
        with session_scope(url, write=False) as session:
            return sum(session.scalar(select(func.coalesce(func.sum(func.pg_column_size(column)), 0))) for column in
                       (schema.Page.text, schema.Page.words, schema.Segment.text, schema.Finding.text,
                        schema.Finding.detail, schema.Document.assessment))

    bytes_before = live_bytes()
    settings = Settings(data_dir=tmp_path / "data", database_url=url, broker_url=env["CLAUSEMILL_BROKER_URL"],
                        result_backend=env["CLAUSEMILL_RESULT_BACKEND"])
    stopped = retention.prune(settings, 1, dry_run=True, budget_s=0)  # a nightly run's prune stops at its budget
    assert not stopped.finished and stopped.documents == 0
    assert retention.prune(settings, 1, dry_run=True).documents == 1
    done = prune(env, "--keep-runs", "1", "--yes")
    assert "Details of 1 superseded document(s) in 1 batch(es) were pruned" in done, done
    assert re.search(r"Expired result-backend rows were deleted: [1-9]", done), done
    with session_scope(url, write=False) as session:
        assert session.execute(text("SELECT count(*) FROM celery_taskmeta")).scalar() == 0
    after = details(url)
    # The unchanged contract's first audit is the root its copy carries from; the reviewed one's
    # carries a decision; the other changed one's goes.
    assert {i for i, d in after.items() if d != before[i]} == {ids[first, changed]}
    assert_pruned(before[ids[first, changed]], after[ids[first, changed]])
    assert after[ids[first, unchanged]] == before[ids[first, unchanged]]
    assert record(url) == kept_record and live_bytes() < bytes_before
    with session_scope(url, write=False) as session:
        count, days = retention.pruned_documents(session, first)
    assert count == 1 and len(days) == 1
    assert "Nothing to prune" in prune(env, "--keep-runs", "1", "--yes") and details(url) == after
