"""The same DAG on Redis + PostgreSQL with separately started `clausemill worker` processes:
failure isolation, duplicate delivery and workers killed with SIGKILL mid-batch."""
from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from sqlalchemy import func, select

from conftest import AUDITED_BATCH, REPO, base_env, expected_outcomes, run_cli, some_samples, sqlite_url, wait_until
from storage import repository, schema
from storage.database import session_scope
from test_dag_embedded import assert_no_duplicate_findings, assert_reports_cover_the_batch, load_batch, row_counts


def batch_done(url: str, batch_id: str) -> bool:
    with session_scope(url) as session:
        return repository.batch_status(session, batch_id) == "done"


def ocr_under_way(url: str, batch_id: str) -> bool:
    """Some page of the batch has been OCRed, and some document still runs."""
    with session_scope(url) as session:
        running = session.scalar(select(func.count()).select_from(schema.Document).where(
            schema.Document.batch_id == batch_id, schema.Document.status == "running"))
        ocr_pages = session.scalar(select(func.count()).select_from(schema.Page).join(schema.Document).where(
            schema.Document.batch_id == batch_id, schema.Page.source == "ocr"))
    return bool(running and ocr_pages)


def broker_drained(broker_url: str) -> bool:
    """No task waits in a queue or runs unacknowledged: the second deliveries have all run."""
    client = redis.Redis.from_url(broker_url)
    return client.llen("cpu") == 0 and client.llen("gpu") == 0 and client.hlen("unacked") == 0


@pytest.fixture(scope="module")
def reference_counts(audited_samples: Path) -> dict[str, dict[str, int]]:
    """Pages, segments and rule findings per sample as the session's embedded audit stored
    them: what a batch that was killed or delivered twice must end with."""
    return row_counts(sqlite_url(base_env(audited_samples / "data")), AUDITED_BATCH)


def test_server_mode_runs_the_batch_on_separate_workers(sample_dir: Path, server_env: dict[str, str], start_worker, tmp_path: Path) -> None:
    start_worker(server_env, "cpu", 2)
    start_worker(server_env, "gpu", 4)
    submitted = run_cli(["audit", str(sample_dir), "--no-wait", "--batch-id", "nightly"], server_env)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    assert submitted.stdout.strip().splitlines()[-1] == "nightly"

    url = server_env["CLAUSEMILL_DATABASE_URL"]
    wait_until(lambda: batch_done(url, "nightly"), timeout=300, message="the batch to finish")
    status = run_cli(["status", "nightly"], server_env)
    assert "nightly: done" in status.stdout

    report = run_cli(["report", "nightly", "--out", str(tmp_path / "out")], server_env)
    assert report.returncode == 0, report.stdout + report.stderr
    batch = load_batch(url, "nightly")
    assert_reports_cover_the_batch(tmp_path / "out", batch)
    assert {d.filename: d.status for d in batch.documents} == expected_outcomes(sample_dir)
    assert all(d.reason for d in batch.documents if d.status == "failed")


DUPLICATE_DELIVERY = """
import sys
from pathlib import Path
from pipelines.producer import document_canvas, submit_batch
from pipelines.settings import get_settings
from storage import repository, schema
from storage.database import session_scope
from sqlalchemy import select
from workers.celery_app import create_app

settings = get_settings()
app = create_app(settings)
batch_id = submit_batch(app, settings, sorted(Path(sys.argv[1]).iterdir()), batch_id="twice")
with session_scope(settings.effective_database_url) as session:
    ids = session.scalars(select(schema.Document.id).where(schema.Document.batch_id == batch_id)).all()
for document_id in ids:  # every document's chain delivered a second time
    document_canvas(app, document_id).apply_async()
"""


def test_tasks_delivered_twice_duplicate_nothing(sample_dir: Path, server_env: dict[str, str], start_worker, tmp_path: Path,
                                                 reference_counts: dict[str, dict[str, int]]) -> None:
    start_worker(server_env, "cpu", 2)
    start_worker(server_env, "gpu", 4)
    url = server_env["CLAUSEMILL_DATABASE_URL"]
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for path in sample_dir.iterdir():
        if path.suffix.lower() in {".pdf", ".txt", ".docx"}:
            (inputs / path.name).write_bytes(path.read_bytes())
    subprocess.run([sys.executable, "-c", DUPLICATE_DELIVERY, str(inputs)], env=server_env, cwd=REPO, check=True)
    wait_until(lambda: batch_done(url, "twice"), timeout=300, message="the doubly delivered batch to finish")
    # let the second deliveries drain before counting
    wait_until(lambda: broker_drained(server_env["CLAUSEMILL_BROKER_URL"]), timeout=120, message="the queues to drain")

    assert row_counts(url, "twice") == reference_counts
    assert_no_duplicate_findings(url, "twice")


def test_sigkill_of_worker_processes_mid_batch_loses_and_duplicates_nothing(
        sample_dir: Path, server_env: dict[str, str], start_worker, reference_counts: dict[str, dict[str, int]]) -> None:
    # Two kills in a row may both land on one OCR page: that is not a poison pill here.  The
    # cpu worker is what is killed, so the model (and the gpu worker) stays out of it.
    server_env = {**server_env, "CLAUSEMILL_MAX_WORKER_CRASHES": "3", "CLAUSEMILL_MODEL_ENABLED": "false"}
    url = server_env["CLAUSEMILL_DATABASE_URL"]
    cpu = start_worker(server_env, "cpu", 2)
    submitted = run_cli(["audit", str(sample_dir), "--no-wait", "--batch-id", "killed"], server_env)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr

    # A pool process dies mid-task (OOM killer, segfault in a PDF library): its task is requeued.
    wait_until(lambda: ocr_under_way(url, "killed") or batch_done(url, "killed"), timeout=120, message="OCR to start")
    for pid in cpu.children():
        subprocess.run(["kill", "-9", str(pid)], check=False)
    # The whole worker dies (machine lost): another worker gets its unacked tasks back after
    # the visibility timeout.
    cpu.kill(signal.SIGKILL)
    start_worker(server_env, "cpu", 2)
    wait_until(lambda: batch_done(url, "killed"), timeout=420, message="the batch to finish after the kills")

    batch = load_batch(url, "killed")
    assert {d.filename: d.status for d in batch.documents} == expected_outcomes(sample_dir)
    assert_no_duplicate_findings(url, "killed")
    assert row_counts(url, "killed") == reference_counts


def model_in_flight(url: str, batch_id: str) -> bool:
    with session_scope(url) as session:
        rows = session.scalars(select(schema.Document.unfinished).where(schema.Document.batch_id == batch_id)).all()
    return any(row and row.get("analyse_model") for row in rows)


def test_sigkill_of_the_gpu_worker_mid_batch_loses_nothing(sample_dir: Path, server_env: dict[str, str], start_worker,
                                                           tmp_path: Path) -> None:
    """The gpu worker dies while the model runs (the OOM killer, a driver crash): a new one gets
    the unacknowledged documents back after the visibility timeout, and each is analysed once."""
    folder = some_samples(sample_dir, tmp_path / "in", ("msa-meridian-granite.txt", "supply-brightwater-granite.pdf", "license-granite-meridian.pdf"))
    url = server_env["CLAUSEMILL_DATABASE_URL"]
    start_worker(server_env, "cpu", 2)
    gpu = start_worker(server_env, "gpu", 4)
    submitted = run_cli(["audit", str(folder), "--no-wait", "--batch-id", "gpu-killed"], server_env)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    wait_until(lambda: model_in_flight(url, "gpu-killed"), timeout=180, interval=0.05, message="the model to start")
    gpu.kill(signal.SIGKILL)
    start_worker(server_env, "gpu", 4)
    wait_until(lambda: batch_done(url, "gpu-killed"), timeout=300, message="the batch to finish after the kill")
    batch = load_batch(url, "gpu-killed")
    assert {d.filename: d.status for d in batch.documents} == {name: "done" for name in (p.name for p in folder.iterdir())}
    assert all(d.timings.get("analyse_model") for d in batch.documents)
    assert_no_duplicate_findings(url, "gpu-killed")


def test_a_pool_process_is_replaced_after_its_task_allowance(sample_dir: Path, server_env: dict[str, str], start_worker,
                                                             tmp_path: Path) -> None:
    """CLAUSEMILL_WORKER_MAX_TASKS: a pool process that ran its share of tasks is replaced, so
    whatever it accumulated (caches, fragmentation) goes with it; the batch does not notice."""
    env = {**server_env, "CLAUSEMILL_MODEL_ENABLED": "false", "CLAUSEMILL_WORKER_MAX_TASKS": "2"}
    worker = start_worker(env, "cpu", 1)
    wait_until(lambda: len(worker.children()) == 1, timeout=60, message="the pool process to start")
    first = worker.children()
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "msa.txt").symlink_to(sample_dir / "msa-meridian-granite.txt")
    done = run_cli(["audit", str(folder), "--out", str(tmp_path / "out"), "--timeout", "120"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    wait_until(lambda: len(worker.children()) == 1 and worker.children() != first, timeout=30,
               message="the pool process to be replaced")

