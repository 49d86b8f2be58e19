"""The real DAG with real worker processes in the embedded mode (filesystem broker + SQLite)."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
from html import escape
from pathlib import Path

import openpyxl
import pytest
from sqlalchemy import func, select

from conftest import AUDITED_BATCH, REPO, base_env, expected_outcomes, processes_using, run_cli, sqlite_url, wait_until
from pipelines.datamodel import BatchResult
from pipelines.settings import Settings
from storage import repository, schema
from storage.database import session_scope
from workers.lifecycle import model_processes


def load_batch(url: str, batch_id: str) -> BatchResult:
    with session_scope(url) as session:
        return repository.load_batch_result(session, batch_id)


def row_counts(url: str, batch_id: str) -> dict[str, dict[str, int]]:
    """Per document file name: how many pages, segments and rule findings storage holds.

    Model findings are left out: the model's scores move in the last digits with the other
    documents that share its batch (padding changes float sums), so a borderline candidate may
    come and go between runs.  assert_no_duplicate_findings covers every producer.
    """
    counts: dict[str, dict[str, int]] = {}
    with session_scope(url) as session:
        documents = session.scalars(select(schema.Document).where(schema.Document.batch_id == batch_id)).all()
        for d in documents:
            counts[d.filename] = {
                table.__tablename__: session.scalar(select(func.count()).select_from(table).where(table.document_id == d.id))
                for table in (schema.Page, schema.Segment)
            }
            counts[d.filename]["rule findings"] = session.scalar(select(func.count()).select_from(schema.Finding).where(
                schema.Finding.document_id == d.id, schema.Finding.producer == "rules"))
    return counts


def assert_no_duplicate_findings(url: str, batch_id: str) -> None:
    with session_scope(url) as session:
        rows = session.execute(
            select(schema.Finding.document_id, schema.Finding.producer, schema.Finding.category,
                   schema.Finding.start, schema.Finding.end, schema.Finding.source, func.count())
            .join(schema.Document, schema.Document.id == schema.Finding.document_id)
            .where(schema.Document.batch_id == batch_id)
            .group_by(schema.Finding.document_id, schema.Finding.producer, schema.Finding.category,
                      schema.Finding.start, schema.Finding.end, schema.Finding.source)
        ).all()
    assert rows and all(row[-1] == 1 for row in rows), [row for row in rows if row[-1] > 1]


def assert_reports_cover_the_batch(out: Path, batch: BatchResult) -> None:
    """Every output names the batch's documents: all of them in the HTML, xlsx and JSON, the
    analysed ones in the findings and predictions."""
    names = {d.filename for d in batch.documents}
    analysed = {d.filename for d in batch.documents if d.status == "done" and not d.duplicate_of}
    report = json.loads((out / "report.json").read_text())
    assert {d["filename"] for d in report["documents"]} == names
    html = (out / "report.html").read_text()
    assert "Batch summary" in html and all(escape(name) in html for name in names)
    with (out / "findings.csv").open(newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert rows and analysed <= {row["File"] for row in rows}
    predictions = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert predictions and {p["document"] for p in predictions} <= names
    assert all(p["text"] and 0 <= p["probability"] <= 1 for p in predictions)
    rows = list(openpyxl.load_workbook(out / "report.xlsx", read_only=True)["Documents"].iter_rows(values_only=True))
    file_column = rows[0].index("File")
    assert {row[file_column] for row in rows[1:]} == names


def test_audit_of_the_samples_ends_every_document_as_expected(sample_dir: Path, audited_samples: Path) -> None:
    env = base_env(audited_samples / "data")  # the session's audit (conftest), run as a user runs it
    batch = load_batch(sqlite_url(env), AUDITED_BATCH)
    assert batch.status == "done"
    assert {d.filename: d.status for d in batch.documents} == expected_outcomes(sample_dir)
    for document in batch.documents:
        if document.status == "failed":
            assert document.stage and document.reason, document
        if document.status == "done":
            assert document.findings, f"{document.filename} has no findings"
            assert {"ingest", "extract", "segment", "analyse_rules", "aggregate"} <= set(document.timings)
    scans = [d for d in batch.documents if d.ocr_pages]
    assert scans and all(d.status == "done" for d in scans), "the scanned sample must be OCRed and analysed"

    assert_reports_cover_the_batch(audited_samples / "report", batch)
    assert processes_using(env["CLAUSEMILL_DATA_DIR"]) == [], "embedded workers outlived the audit"

    # The gpu role ran as as many processes as the launcher chose, each with the model loaded
    # once and its share of the cores (on a machine with no GPU driver: one per core, up to 4).
    processes = model_processes(Settings(data_dir=Path(env["CLAUSEMILL_DATA_DIR"])))
    logs = sorted(Path(env["CLAUSEMILL_DATA_DIR"], "logs").glob("gpu*-worker.log"))
    assert {log.name for log in logs} == {"gpu-worker.log"} | {f"gpu-{i}-worker.log" for i in range(2, processes + 1)}
    for log in logs:
        loaded = [json.loads(line[line.index("{"):]) for line in log.read_text().splitlines() if "\"model loaded\"" in line]
        assert len(loaded) == 1, log.name
        if processes > 1 and loaded[0]["device"] == "cpu":
            assert loaded[0]["threads"] == max(1, len(os.sched_getaffinity(0)) // processes)


def test_rerunning_a_batch_is_idempotent(sample_dir: Path, audited_env: dict[str, str], tmp_path: Path) -> None:
    url = sqlite_url(audited_env)
    before = row_counts(url, AUDITED_BATCH)
    result = run_cli(["audit", str(sample_dir), "--out", str(tmp_path / "again"), "--batch-id", AUDITED_BATCH], audited_env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert row_counts(url, AUDITED_BATCH) == before
    assert len(before) == len(expected_outcomes(sample_dir))
    assert_no_duplicate_findings(url, AUDITED_BATCH)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_stops_the_embedded_workers(stop: signal.Signals, sample_dir: Path,
                                                      embedded_env: dict[str, str], tmp_path: Path) -> None:
    """Ctrl-C, or SIGTERM as `timeout`, systemd or docker send it to the audit process alone."""
    # SIGINT as a terminal delivers it: a shell's background job (`make test &`) starts its
    # children with SIGINT ignored, which Python then keeps.
    audit = subprocess.Popen([sys.executable, "-m", "pipelines.cli", "audit", str(sample_dir), "--out", str(tmp_path / "o")],
                             env=embedded_env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    data_dir = embedded_env["CLAUSEMILL_DATA_DIR"]
    wait_until(lambda: len(processes_using(data_dir)) >= 3, timeout=60, message="embedded workers to start")
    audit.send_signal(stop)
    output = audit.communicate(timeout=60)[0].decode()
    assert audit.returncode == 128 + stop, output
    assert "Interrupted" in output
    wait_until(lambda: not processes_using(data_dir), timeout=10, message="workers to exit")


def test_audit_explains_bad_arguments(embedded_env: dict[str, str], tmp_path: Path) -> None:
    missing = run_cli(["audit", str(tmp_path / "nowhere")], embedded_env)
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    (tmp_path / "empty").mkdir()
    empty = run_cli(["audit", str(tmp_path / "empty")], embedded_env)
    assert empty.returncode == 2 and "No .pdf, .txt or .docx files" in empty.stderr


def test_a_model_past_its_time_limit_leaves_a_rules_only_audit(embedded_env: dict[str, str], tmp_path: Path) -> None:
    """A document the model cannot finish within the analyse limit (here 6 s, so the gpu task
    waits 1 s for a file of 6,000 segments) is audited by the rules alone, and the report says so.
    The segments are distinct: the model scores a repeated one once, and generated contracts
    repeat their boilerplate (ten of them made 540 distinct segments, which a fast day's CPU
    scored in 0.5 s); 5,000 numbered delivery clauses take it several seconds."""
    from pipelines.samples import generate_contract

    folder = tmp_path / "in"
    folder.mkdir()
    contracts = [generate_contract(seed).text for seed in range(10)]  # what the rules find
    deliveries = [f"{i + 1}. The Supplier shall deliver {i + 3} units of the product numbered {7 * i + 11} to "
                  f"warehouse {13 * i + 5} of the Customer within {i % 29 + 2} days of each purchase order."
                  for i in range(5000)]
    (folder / "long.txt").write_text("\n\n".join(contracts + deliveries))
    env = {**embedded_env, "CLAUSEMILL_ANALYSE_TIME_LIMIT_S": "6"}
    result = run_cli(["audit", str(folder), "--out", str(tmp_path / "out")], env)
    assert result.returncode == 0, result.stdout + result.stderr
    [document] = json.loads((tmp_path / "out" / "report.json").read_text())["documents"]
    assert document["status"] == "done"
    assert any(n.startswith("rules only: the model did not finish this file within its 1 s") for n in document["notes"])
    assert document["assessment"]["findings"], "the rules' findings are there"
    assert not any("model" in m["finding"]["source"] for m in document["assessment"]["findings"])

