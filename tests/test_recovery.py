"""The recovery sweep: lost messages are sent again from the database, once, a bounded number
of times; and whole batches survive a SIGKILLed embedded worker and a restarted Redis."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from conftest import REPO, expected_outcomes, free_port, run_cli, some_samples, sqlite_url, wait_until
from pipelines import steps
from pipelines.dag import SPECS, Stage, next_stage
from pipelines.datamodel import DocumentStatus
from pipelines.settings import Settings
from storage import repository, schema
from storage.database import session_scope
from storage.schema import utcnow
from test_dag_embedded import assert_no_duplicate_findings, load_batch, processes_using, row_counts
from test_dag_server import batch_done, ocr_under_way
from workers.broker import queue_lengths, waiting
from workers.celery_app import create_app
from workers.heartbeat import Heartbeat
from workers.lifecycle import reset_embedded_broker
from workers.recovery import SweepReport, sweep

# Beats every 2 s, so a document nothing works on is taken for lost after 3 × 2 + 6 s, not 45.
FAST_RECOVERY = {
    "CLAUSEMILL_HEARTBEAT_INTERVAL_S": "2", "CLAUSEMILL_RECOVERY_MARGIN_S": "6", "CLAUSEMILL_RECOVERY_INTERVAL_S": "2",
    "CLAUSEMILL_MODEL_ENABLED": "false",
}


@pytest.mark.parametrize(("completed", "analysers", "expected"), [
    (set(), ("rules", "model"), Stage.INGEST),
    ({"ingest"}, ("rules", "model"), Stage.EXTRACT),
    ({"ingest", "extract"}, ("rules", "model"), Stage.SEGMENT),  # OCR pages are sent by the continuation
    ({"ingest", "extract", "ocr", "segment", "analyse_model"}, ("rules", "model"), Stage.ANALYSE_RULES),
    ({"ingest", "extract", "segment", "analyse_rules"}, ("rules", "model"), Stage.ANALYSE_MODEL),
    ({"ingest", "extract", "segment", "analyse_rules"}, ("rules",), Stage.AGGREGATE),
    ({"ingest", "extract", "segment", "analyse_rules", "aggregate"}, ("rules",), Stage.PERSIST),
])
def test_a_document_resumes_at_its_first_unfinished_stage(completed: set[str], analysers: tuple[str, ...], expected: Stage) -> None:
    assert next_stage(frozenset(completed), analysers) is expected


@pytest.fixture()
def embedded(tmp_path: Path) -> Settings:
    """Embedded settings with an empty broker folder and no worker: what the sweep sends stays queued."""
    settings = Settings(data_dir=tmp_path / "data", model_enabled=False, recovery_margin_s=5, recovery_max_attempts=2,
                        **{f"{kind}_time_limit_s": 30 for kind in ("ingest", "extract", "ocr_page", "analyse")})
    settings.data_dir.mkdir(parents=True)
    reset_embedded_broker(settings)
    return settings


def stalled_batch(settings: Settings, completed: dict[str, float], documents: int = 1, idle_s: float = 600) -> list[int]:
    with session_scope(settings.effective_database_url) as session:
        ids = repository.create_batch(session, "stalled", [Path(f"/contracts/{i}.pdf") for i in range(documents)], {})
        session.execute(update(schema.Document).where(schema.Document.id.in_(ids)).values(
            status=DocumentStatus.RUNNING, timings=completed))
    make_idle(settings, ids, idle_s)
    return ids


def make_idle(settings: Settings, ids: list[int], idle_s: float) -> None:
    with session_scope(settings.effective_database_url) as session:
        session.execute(update(schema.Document).where(schema.Document.id.in_(ids)).values(
            updated_at=utcnow() - timedelta(seconds=idle_s)))


def recoveries(settings: Settings) -> list[tuple[int, Stage, int]]:
    with session_scope(settings.effective_database_url) as session:
        return [tuple(r) for r in session.execute(
            select(schema.Recovery.document_id, schema.Recovery.stage, schema.Recovery.attempt).order_by(schema.Recovery.id))]


def test_two_sweeps_at_once_send_a_stalled_document_once(embedded: Settings) -> None:
    [document] = stalled_batch(embedded, {"ingest": 0.1, "extract": 0.2, "segment": 0.1, "analyse_rules": 0.3})
    reports = []
    barrier = threading.Barrier(2)

    def run() -> None:
        app = create_app(embedded)
        barrier.wait()
        reports.append(sweep(app, embedded))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(len(r.resent) for r in reports) == [0, 1]
    assert recoveries(embedded) == [(document, Stage.AGGREGATE, 2)]
    assert queue_lengths(embedded)["cpu"] == 1  # aggregate, chained to persist
    assert waiting(embedded).documents == {document}


def test_a_document_whose_message_waits_in_the_queue_is_left_alone(embedded: Settings) -> None:
    [document] = stalled_batch(embedded, {"ingest": 0.1})
    app = create_app(embedded)
    assert sweep(app, embedded).resent == {document: Stage.EXTRACT}
    make_idle(embedded, [document], 600)  # the queue is long: the message has not been taken yet
    report = sweep(app, embedded)
    assert report.resent == {} and report.waiting == 1
    assert len(recoveries(embedded)) == 1


def test_a_long_queue_holds_the_sweep_until_it_is_shorter(embedded: Settings) -> None:
    """Above recovery_list_limit queued messages the sweep lists nothing and sends nothing: the
    queue is the work left.  A document lost meanwhile is sent once the queue is short."""
    settings = embedded.model_copy(update={"recovery_list_limit": 1, "recovery_max_attempts": 3})
    queued_ids = stalled_batch(settings, {"ingest": 0.1}, documents=2)
    app = create_app(settings)
    assert sweep(app, settings).resent == {i: Stage.EXTRACT for i in queued_ids}  # two messages now queued
    with session_scope(settings.effective_database_url) as session:
        [lost] = repository.create_batch(session, "lost", [Path("/contracts/lost.pdf")], {})
        session.execute(update(schema.Document).where(schema.Document.id == lost).values(
            status=DocumentStatus.RUNNING, timings={"ingest": 0.1}))
    make_idle(settings, [*queued_ids, lost], 600)
    held = sweep(app, settings)
    assert (held.resent, held.waiting, held.held) == ({}, 0, 2)
    reset_embedded_broker(settings)  # the queue drained (here: emptied) and nothing came back
    assert sweep(app, settings).resent == {i: Stage.EXTRACT for i in [*queued_ids, lost]}


def test_a_document_that_moved_recently_is_not_stalled(embedded: Settings) -> None:
    stalled_batch(embedded, {"ingest": 0.1}, idle_s=20)  # under 3 heartbeats of 10 s + 5 s
    assert sweep(create_app(embedded), embedded).resent == {}


def test_a_document_a_task_works_on_is_never_taken_for_lost_however_long_the_task(embedded: Settings) -> None:
    """The heartbeat tells a long task from a lost message: while a task holds the document its
    clock moves; once it stops, the sweep takes it."""
    settings = embedded.model_copy(update={"heartbeat_interval_s": 0.2, "recovery_margin_s": 0})  # lost after 0.6 s
    [working, lost] = stalled_batch(settings, {"ingest": 0.1}, documents=2)
    app, heartbeat = create_app(settings), Heartbeat(settings)
    with heartbeat.beating(working):
        time.sleep(2)  # ten beats: three times the stall limit
        assert sweep(app, settings).resent == {lost: Stage.EXTRACT}
    time.sleep(1.5)  # the task ended: no more beats
    assert sweep(app, settings).resent == {working: Stage.EXTRACT}


def test_a_task_its_worker_has_taken_but_not_started_is_never_taken_for_lost(
        embedded: Settings, embedded_env: dict[str, str], start_worker) -> None:
    """A message the worker holds is in no queue, and no task beats for it: held until its ETA
    (a retry's countdown), or waiting while no pool process is free.  The worker's main process
    beats for both.  Here the only pool process is stopped (SIGSTOP), so a task the worker
    takes waits in the worker for as long as the test likes."""
    env = {**embedded_env, "CLAUSEMILL_DATA_DIR": str(embedded.data_dir), "CLAUSEMILL_HEARTBEAT_INTERVAL_S": "0.5",
           "CLAUSEMILL_RECOVERY_MARGIN_S": "0", "CLAUSEMILL_MODEL_ENABLED": "false"}
    settings = embedded.model_copy(update={"heartbeat_interval_s": 0.5, "recovery_margin_s": 0})  # lost after 1.5 s
    worker = start_worker(env, "cpu", concurrency=1)
    wait_until(lambda: "ready." in worker.log.read_text(errors="replace"), timeout=60, message="the worker to start")
    [pool] = worker.children()
    os.kill(pool, signal.SIGSTOP)
    try:
        scheduled, waiting_for_pool = stalled_batch(settings, {"ingest": 0.1}, documents=2)
        app = create_app(settings)
        app.tasks[SPECS[Stage.EXTRACT].task_name].apply_async((scheduled,), countdown=600)
        wait_until(lambda: not waiting(settings).documents, timeout=30, message="the worker to take the retry")
        time.sleep(2 * settings.heartbeat_interval_s)
        assert sweep(app, settings).resent == {waiting_for_pool: Stage.EXTRACT}, "a retry the worker holds was taken for lost"
        wait_until(lambda: not waiting(settings).documents, timeout=30, message="the worker to take the message")
        time.sleep(4 * settings.stall_after.total_seconds())
        report = sweep(app, settings)
        assert (report.resent, report.failed, report.waiting) == ({}, {}, 0), "a task the worker holds was taken for lost"
    finally:
        os.kill(pool, signal.SIGCONT)
    assert len(recoveries(settings)) == 1


def test_past_its_attempts_a_document_fails_naming_the_stage_and_the_attempts(embedded: Settings) -> None:
    ids = stalled_batch(embedded, {"ingest": 0.1, "extract": 0.4}, documents=2)
    with session_scope(embedded.effective_database_url) as session:
        session.execute(update(schema.Document).where(schema.Document.id.in_(ids)).values(attempts=2))
    make_idle(embedded, ids, 600)
    report = sweep(create_app(embedded), embedded)
    assert report.resent == {} and set(report.failed) == set(ids)
    batch = load_batch(embedded.effective_database_url, "stalled")
    assert batch.status == "done"
    assert {(d.status, d.stage, d.reason) for d in batch.documents} == {(
        DocumentStatus.FAILED, Stage.SEGMENT,
        "no progress at the segment stage after 2 attempts (the recovery sweep re-sent it 1 times)")}


def cpu_worker_main_pid(audit_pid: int) -> int | None:
    out = subprocess.run(["pgrep", "-P", str(audit_pid), "-f", "worker --queues cpu"], capture_output=True, text=True).stdout
    pids = [int(p) for p in out.split()]
    return pids[0] if pids else None


def recovery_count(url: str, batch_id: str) -> int:
    with session_scope(url) as session:
        return session.scalar(select(func.count()).select_from(schema.Recovery).where(schema.Recovery.batch_id == batch_id))


def test_a_document_that_ends_while_the_sweep_gives_up_on_it_stays_done(embedded: Settings) -> None:
    """The sweep read the document stalled past its attempts; its last stage then ended it
    `done` (a slow machine: the re-sent persist ran just then).  The sweep's give-up is claimed
    like a re-send, so the outcome stays `done` (it was overwritten with `failed` before)."""
    settings = embedded.model_copy(update={"recovery_max_attempts": 1})
    [document] = stalled_batch(settings, {"ingest": 0.1, "extract": 0.1, "segment": 0.1, "analyse_rules": 0.1,
                                          "aggregate": 0.1})
    with session_scope(settings.effective_database_url, write=False) as session:
        [read] = repository.open_documents_idle_since(session, utcnow() - settings.stall_after)
    with session_scope(settings.effective_database_url) as session:
        repository.mark_done(session, document)
    assert not steps.give_up(settings, read, Stage.PERSIST, "no progress")
    assert load_batch(settings.effective_database_url, "stalled").documents[0].status == "done"
    make_idle(settings, [document], 600)  # nothing else: a sweep now finds no open document
    assert sweep(create_app(settings), settings) == SweepReport()


def test_sigkill_of_the_embedded_cpu_worker_mid_batch_loses_nothing(sample_dir: Path, embedded_env: dict[str, str], tmp_path: Path) -> None:
    env = {**embedded_env, **FAST_RECOVERY}
    url = sqlite_url(env)
    audit = subprocess.Popen([sys.executable, "-m", "pipelines.cli", "audit", str(sample_dir), "--out", str(tmp_path / "out"),
                              "--batch-id", "killed"], env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wait_until(lambda: Path(url.split("///")[1]).exists() and ocr_under_way(url, "killed"), timeout=120,
               message="OCR to start")
    victim = cpu_worker_main_pid(audit.pid)
    assert victim, "no embedded cpu worker found"
    subprocess.run(["kill", "-9", str(victim)], check=True)
    output = audit.communicate(timeout=300)[0].decode()
    assert audit.returncode == 0, output
    assert "started again" in output

    batch = load_batch(url, "killed")
    assert {d.filename: d.status for d in batch.documents} == expected_outcomes(sample_dir)
    assert_no_duplicate_findings(url, "killed")
    assert recovery_count(url, "killed") >= 1, "the kill took no message with it: the scenario did not happen"
    assert processes_using(env["CLAUSEMILL_DATA_DIR"]) == []



def start_redis(port: int, folder: Path) -> subprocess.Popen[bytes]:
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                              "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    wait_until(lambda: subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).stdout.strip() == b"PONG",
               timeout=20, message="redis to start")
    return redis


def test_a_channel_closed_after_redis_died_raises_a_connection_error_the_worker_survives(tmp_path: Path) -> None:
    """The way a broker restart stopped a worker for good (tests/test_multihost.py met it): two
    channels hold a message each unacknowledged, Redis dies, and the consumer collects its
    connection.  The first channel's restore fails, kombu releases the transport with the other
    channel still open; closing that one later must fail as a connection error, which Celery
    ignores and reconnects after, not as the AttributeError that ends the worker."""
    port = free_port()
    redis = start_redis(port, tmp_path)
    app = create_app(Settings(data_dir=tmp_path / "data", broker_url=f"redis://127.0.0.1:{port}/0",
                              database_url=f"sqlite:///{tmp_path / 'db.sqlite'}"))
    connection = app.connection_for_read()
    try:
        channels = []
        for queue in ("first", "second"):
            channel = connection.channel()
            channel.queue_declare(queue)
            channel.basic_publish(channel.prepare_message("{}"), "", queue)
            assert channel.basic_get(queue, no_ack=False) is not None
            channels.append(channel)
        redis.kill()
        redis.wait()
        connection.collect()
        assert connection._transport is None, "the collect did not release the transport: the scenario did not happen"
        with pytest.raises(tuple(connection.connection_errors)):
            channels[0].close()
    finally:
        redis.kill()


def test_a_redis_restart_mid_batch_is_repaired_within_two_minutes_with_nobody_waiting(
        sample_dir: Path, server_env: dict[str, str], start_worker, tmp_path: Path) -> None:
    """Issue 43's measurement, at default recovery settings: Redis killed mid-batch (every queued
    message lost) and started again.  Sent with --no-wait, so no `audit` sweeps for the batch:
    the worker, on reconnecting, sweeps once the stall limit has passed, and the heartbeats keep
    it from taking the documents its tasks still work on.  The batch ends within 2 minutes of
    the restart (a quarter of an hour before heartbeats: the sweep waited out the longest task)."""
    port = free_port()
    redis = start_redis(port, tmp_path)
    try:
        env = {**server_env, "CLAUSEMILL_MODEL_ENABLED": "false", "CLAUSEMILL_BROKER_URL": f"redis://127.0.0.1:{port}/0",
               "CLAUSEMILL_RESULT_BACKEND": f"redis://127.0.0.1:{port}/1"}
        url = env["CLAUSEMILL_DATABASE_URL"]
        worker = start_worker(env, "cpu", 2)
        submitted = run_cli(["audit", str(sample_dir), "--no-wait", "--batch-id", "restarted"], env)
        assert submitted.returncode == 0, submitted.stdout + submitted.stderr
        wait_until(lambda: ocr_under_way(url, "restarted") or batch_done(url, "restarted"), timeout=120, message="OCR to start")
        redis.send_signal(signal.SIGKILL)  # it keeps nothing on disk: every queued message is gone
        redis.wait()
        redis = start_redis(port, tmp_path)
        restarted = time.monotonic()
        wait_until(lambda: batch_done(url, "restarted"), timeout=120, message="the batch to finish within 2 minutes of the restart")
        print(f"batch done {time.monotonic() - restarted:.0f} s after the Redis restart")
    finally:
        redis.kill()
        redis.wait()
    batch = load_batch(url, "restarted")
    assert {d.filename: d.status for d in batch.documents} == expected_outcomes(sample_dir)
    assert_no_duplicate_findings(url, "restarted")
    assert recovery_count(url, "restarted") >= 1
    assert "reconnected to the broker; sweeping" in worker.log.read_text(errors="replace")
    status = run_cli(["status", "restarted"], env)
    assert "restarted: done" in status.stdout


def ocr_crashes_in_flight(url: str, batch_id: str) -> int:
    """The most deliveries one OCR page of the batch has started without ending."""
    with session_scope(url) as session:
        rows = session.scalars(select(schema.Document.unfinished).where(schema.Document.batch_id == batch_id)).all()
    return max((count for row in rows if row for key, count in row.items() if key.startswith("ocr:")), default=0)


def test_a_file_that_crashes_its_worker_twice_ends_failed_and_the_batch_completes(
        sample_dir: Path, server_env: dict[str, str], start_worker, tmp_path: Path) -> None:
    """A poison pill: each delivery of one OCR page kills the worker process running it (SIGKILL,
    as the OOM killer does).  The third delivery is refused, the rest of the batch completes."""
    folder = some_samples(sample_dir, tmp_path / "in", ("scanned-distribution-agreement.pdf", "msa-meridian-granite.txt"))
    env = {**server_env, "CLAUSEMILL_MODEL_ENABLED": "false"}
    url = env["CLAUSEMILL_DATABASE_URL"]
    worker = start_worker(env, "cpu", 1)
    audit = subprocess.Popen([sys.executable, "-m", "pipelines.cli", "audit", str(folder), "--out", str(tmp_path / "out"),
                              "--batch-id", "poison"], env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for crash in (1, 2):
        wait_until(lambda: ocr_crashes_in_flight(url, "poison") == crash, timeout=120, interval=0.02,
                   message=f"delivery {crash} of an OCR page")
        for child in worker.children():  # the pool process running the page; the worker starts another
            subprocess.run(["kill", "-9", str(child)], check=False)
    output = audit.communicate(timeout=300)[0].decode()
    assert audit.returncode == 0, output
    documents = {d.filename: d for d in load_batch(url, "poison").documents}
    scanned = documents["scanned-distribution-agreement.pdf"]
    assert scanned.status is DocumentStatus.FAILED and scanned.stage is Stage.OCR
    assert "the worker crashed twice while reading a page of this file by OCR" in scanned.reason
    assert documents["msa-meridian-granite.txt"].status is DocumentStatus.DONE


CPU_TASKS = ("ingest", "extract", "ocr_page", "segment", "analyse_rules", "aggregate", "persist")


def test_sigkill_in_each_stage_in_turn_loses_and_duplicates_nothing(
        sample_dir: Path, server_env: dict[str, str], start_worker, tmp_path: Path) -> None:
    """tests/crash_each_stage.py: the first task of every cpu stage kills its pool process as it
    starts, and the next as it ends (writes made, next stage sent, no ack).  Each is delivered
    again, and the batch ends as a batch without kills does, each finding once."""
    folder = some_samples(sample_dir, tmp_path / "in", ("scanned-distribution-agreement.pdf", "msa-meridian-granite.txt", "supply-brightwater-granite.pdf"))
    marks = tmp_path / "crashes"
    marks.mkdir()
    env = {**server_env, "CLAUSEMILL_MODEL_ENABLED": "false", "CLAUSEMILL_TEST_CRASH_MARKS": str(marks)}
    url = env["CLAUSEMILL_DATABASE_URL"]
    start_worker(env, "cpu", 2, program=(str(REPO / "tests" / "crash_each_stage.py"),))
    crashed = run_cli(["audit", str(folder), "--batch-id", "crashed", "--out", str(tmp_path / "out")], env)
    assert crashed.returncode == 0, crashed.stdout + crashed.stderr
    assert sorted(p.name for p in marks.iterdir()) == sorted(
        f"clausemill.cpu.{task}.{moment}" for task in CPU_TASKS for moment in ("start", "end"))

    batch = load_batch(url, "crashed")
    assert {d.filename: d.status for d in batch.documents} == dict.fromkeys(
        (p.name for p in folder.iterdir()), DocumentStatus.DONE)
    assert_no_duplicate_findings(url, "crashed")
    reference = run_cli(["audit", str(folder), "--batch-id", "reference", "--out", str(tmp_path / "ref")], env)
    assert reference.returncode == 0, reference.stdout + reference.stderr
    assert row_counts(url, "crashed") == row_counts(url, "reference")
    assert finding_counts(url, "crashed") == finding_counts(url, "reference")


def finding_counts(url: str, batch_id: str) -> dict[str, int]:
    """Rule findings per file (the model is off, so the runs must agree exactly)."""
    with session_scope(url) as session:
        rows = session.execute(select(schema.Document.filename, func.count(schema.Finding.id))
                               .join(schema.Finding, schema.Finding.document_id == schema.Document.id)
                               .where(schema.Document.batch_id == batch_id).group_by(schema.Document.filename)).all()
    return dict(rows)


class PrivatePostgres:
    """A PostgreSQL server of this test's own (initdb in its folder, run as the postgres user,
    as PostgreSQL refuses root), so it can be crashed and started again mid-batch."""

    def __init__(self) -> None:
        bins = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
        if not bins or shutil.which("runuser") is None:
            pytest.skip("no PostgreSQL server binaries (Debian postgresql) or runuser here")
        folder = Path(tempfile.mkdtemp(prefix="clausemill-pg-"))  # pytest's folders are root's alone
        shutil.chown(folder, "postgres")
        self.bin, self.data, self.port = bins[-1], folder / "pgdata", free_port()
        self._as_postgres("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()
        self._as_postgres("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "clausemill")
        self.url = f"postgresql+psycopg2://postgres@127.0.0.1:{self.port}/clausemill"

    def _as_postgres(self, tool: str, *args: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", str(self.bin / tool), *args], check=True,
                       capture_output=True, timeout=60)

    def start(self) -> None:
        self._as_postgres("pg_ctl", "-D", str(self.data), "-w", "-l", str(self.data.parent / "postgres.log"), "-o",
                          f"-p {self.port} -k {self.data.parent} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def crash(self) -> None:
        """Immediate shutdown: no checkpoint, every connection cut, as a crash leaves it."""
        self._as_postgres("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def stop(self) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", str(self.bin / "pg_ctl"), "-D", str(self.data), "-m",
                        "immediate", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(self.data.parent, ignore_errors=True)


def test_a_postgresql_restart_mid_batch_loses_nothing(sample_dir: Path, server_env: dict[str, str], start_worker,
                                                      tmp_path: Path) -> None:
    postgres = PrivatePostgres()
    try:
        env = {**server_env, **FAST_RECOVERY, "CLAUSEMILL_DATABASE_URL": postgres.url}
        worker = start_worker(env, "cpu", 2)
        audit = subprocess.Popen([sys.executable, "-m", "pipelines.cli", "audit", str(sample_dir), "--out",
                                  str(tmp_path / "out"), "--batch-id", "pg-restart"], env=env, cwd=REPO,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        wait_until(lambda: ocr_under_way(postgres.url, "pg-restart") or batch_done(postgres.url, "pg-restart"),
                   timeout=120, message="OCR to start")
        postgres.crash()
        time.sleep(3)  # tasks meet a database that is gone, and retry
        postgres.start()
        output = audit.communicate(timeout=300)[0].decode()
        assert audit.returncode == 0, output
        batch = load_batch(postgres.url, "pg-restart")
        assert {d.filename: d.status for d in batch.documents} == expected_outcomes(sample_dir)
        assert_no_duplicate_findings(postgres.url, "pg-restart")
        assert '"event": "retrying"' in worker.log.read_text(errors="replace"), "no task met the outage"
    finally:
        postgres.stop()
