"""Monitoring: Flower behind basic auth, clausemill's Prometheus metrics, the alert rules.

Flower and `/metrics` run as the real `clausemill flower` / `clausemill metrics` processes
against real workers; promtool (Debian `prometheus`) checks the exposition and the rules, and
headless Chromium (Debian `chromium`) loads Flower's page.
"""
from __future__ import annotations

import base64
import fcntl
import importlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from wsgiref.util import setup_testing_defaults

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import REPO, WorkerProcess, base_env, free_port, run_cli, sqlite_url, wait_until
from pipelines.dag import SPECS, STAGES, Queue, Stage
from pipelines.datamodel import BatchStatus, DocumentStatus, IntakeState, RunState
from pipelines.settings import Settings
from storage import schema
from storage.database import session_scope
from storage.metrics_queries import batch_label
from storage.schema import utcnow
from workers import metrics as metrics_module

OPS = REPO / "ops" / "prometheus"
CREDENTIALS = ("auditor", "correct-horse-battery")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def need(tool: str) -> str:
    """The tool's path; CI must have it (ops/install-system-deps.sh --test), elsewhere skip."""
    path = shutil.which(tool)
    if path is None:
        message = f"{tool} not installed (ops/install-system-deps.sh --test installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def need_module(name: str):  # type: ignore[no-untyped-def]
    """A test-extra module; CI must have it (`pip install -e '.[test]'`), elsewhere skip."""
    try:
        return importlib.import_module(name)
    except ImportError:
        message = f"{name} not installed (pip install -e '.[test]')"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def promtool(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([need("promtool"), *args], input=stdin, capture_output=True, text=True, timeout=60, cwd=REPO,
                          check=False)



def get(url: str, auth: tuple[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url)
    if auth:
        request.add_header("Authorization", "Basic " + base64.b64encode(":".join(auth).encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def answers(url: str) -> bool:
    try:
        return get(url)[0] < 500
    except OSError:
        return False


class Service:
    """A long-running `clausemill` command in its own process group, output to a log file."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        with open(log, "wb") as out:
            self.process = subprocess.Popen([sys.executable, "-m", "pipelines.cli", *args], env=env, cwd=REPO,
                                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


@pytest.fixture()
def serve(tmp_path: Path) -> Iterator:
    started: list[Service] = []

    def start(args: list[str], env: dict[str, str]) -> Service:
        service = Service(args, env, tmp_path / f"{args[0]}-{len(started)}.log")
        started.append(service)
        return service

    yield start
    for service in started:
        service.stop()


def metrics_url(service: Service) -> str:
    """Where `clausemill metrics --port 0` says it listens."""
    found: list[str] = []

    def announced() -> bool:
        assert service.process.poll() is None, service.output()
        found[:] = re.findall(r"Metrics on (http://\S+/metrics)", service.output())
        return bool(found)

    wait_until(announced, timeout=60, message="`clausemill metrics` to listen")
    return found[0]


Samples = dict[str, dict[tuple[tuple[str, str], ...], float]]


def parse(exposition: str) -> Samples:
    """Sample name -> its sorted labels -> value."""
    samples: Samples = {}
    for family in text_string_to_metric_families(exposition):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def scrape(url: str) -> tuple[str, Samples]:
    status, text = get(url)
    assert status == 200, text
    return text, parse(text)


def by_label(samples: dict[tuple[tuple[str, str], ...], float], label: str, **where: str) -> dict[str, float]:
    """Values summed per value of `label`, over the samples matching `where`."""
    sums: dict[str, float] = {}
    for labels, value in samples.items():
        labels_dict = dict(labels)
        if all(labels_dict.get(k) == v for k, v in where.items()):
            sums[labels_dict[label]] = sums.get(labels_dict[label], 0.0) + value
    return sums


def assert_promtool_accepts(exposition: str) -> None:
    checked = promtool("check", "metrics", stdin=exposition)
    assert checked.returncode == 0 and not (checked.stdout + checked.stderr).strip(), checked.stdout + checked.stderr


@pytest.fixture()
def small_batch(sample_dir: Path, tmp_path: Path) -> tuple[Path, dict[str, DocumentStatus]]:
    """Three files that end two ways: a text file and a PDF analysed, a broken file failed."""
    expected = {"msa-meridian-granite.txt": DocumentStatus.DONE, "license-granite-meridian.pdf": DocumentStatus.DONE,
                "not-a-pdf.pdf": DocumentStatus.FAILED}
    folder = tmp_path / "inbox"
    folder.mkdir()
    for name in expected:
        shutil.copy(sample_dir / name, folder / name)
    return folder, expected


def assert_documents_match(samples: Samples, batch_id: str, expected: dict[str, DocumentStatus], url: str) -> None:
    """The metrics' document counts are those of the batch in the database."""
    with session_scope(url, write=False) as session:
        documents = session.query(schema.Document).filter_by(batch_id=batch_id).all()
        assert {d.filename: d.status for d in documents} == expected
        stored = {status: sum(1 for d in documents if d.status == status) for status in DocumentStatus}
        timed = {stage: sum(1 for d in documents if stage in (d.timings or {})) for stage in Stage}
    shown = by_label(samples["clausemill_documents"], "status", batch=batch_label(batch_id))
    assert shown == {status: float(n) for status, n in stored.items() if n}
    assert by_label(samples["clausemill_documents"], "stage", batch=batch_label(batch_id), status="done") == {
        "persist": float(stored[DocumentStatus.DONE])}
    ended = by_label(samples["clausemill_documents_ended_total"], "status")
    assert ended == {status: float(stored[DocumentStatus(status)]) for status in ("done", "failed", "duplicate")}
    counts = by_label(samples["clausemill_stage_duration_seconds_count"], "stage")
    assert counts == {str(spec.stage): float(timed[spec.stage]) for spec in STAGES}
    assert by_label(samples["clausemill_batches"], "status") == {"done": 1.0}


# --- Flower -------------------------------------------------------------------------------

def test_flower_refuses_to_start_without_credentials(tmp_path: Path) -> None:
    embedded = run_cli(["flower"], base_env(tmp_path / "data"), timeout=60)
    assert embedded.returncode == 2 and "server mode" in embedded.stderr and "CLAUSEMILL_BROKER_URL" in embedded.stderr

    server = {**base_env(tmp_path / "data"), "CLAUSEMILL_BROKER_URL": "redis://127.0.0.1:6379/13"}
    missing = run_cli(["flower"], server, timeout=60)
    assert missing.returncode == 2, missing.stdout + missing.stderr
    assert "CLAUSEMILL_FLOWER_BASIC_AUTH" in missing.stderr and "--no-auth" in missing.stderr

    malformed = run_cli(["flower"], {**server, "CLAUSEMILL_FLOWER_BASIC_AUTH": "auditor:long-enough-secret,nopassword"},
                        timeout=60)
    assert malformed.returncode == 2 and "entry 2" in malformed.stderr and "user:password" in malformed.stderr
    assert "secret" not in malformed.stderr  # a password is never echoed

    short = run_cli(["flower"], {**server, "CLAUSEMILL_FLOWER_BASIC_AUTH": "auditor:x"}, timeout=60)
    assert short.returncode == 2 and "entry 1" in short.stderr and "at least 15 characters" in short.stderr


def test_flower_shows_both_workers_and_their_tasks_behind_basic_auth(small_batch, server_env: dict[str, str],
                                                                     start_worker, serve, tmp_path: Path) -> None:
    playwright = need_module("playwright.sync_api")
    chromium = need("chromium")
    start_worker(server_env, "cpu", 1)
    start_worker(server_env, "gpu", 2)
    port = free_port()
    env = {**server_env, "CLAUSEMILL_FLOWER_BASIC_AUTH": ":".join(CREDENTIALS)}
    flower = serve(["flower", "--port", str(port), "--address", "127.0.0.1"], env)
    base = f"http://127.0.0.1:{port}"
    wait_until(lambda: flower.process.poll() is None and answers(f"{base}/healthcheck"), timeout=60,
               message=f"Flower to answer; its log:\n{flower.output()}")
    assert ":".join(CREDENTIALS) not in " ".join(flower.process.args)  # not in the process list

    folder, _ = small_batch
    audit = run_cli(["audit", str(folder), "--out", str(tmp_path / "out"), "--batch-id", "watched"], server_env, timeout=300)
    assert audit.returncode == 0, audit.stdout + audit.stderr

    assert get(f"{base}/api/workers")[0] == 401
    assert get(f"{base}/workers")[0] == 401
    assert get(f"{base}/api/workers", ("auditor", "wrong"))[0] == 401

    workers: dict = {}

    def both_listed() -> bool:
        status, body = get(f"{base}/api/workers", CREDENTIALS)  # a plain request: no ?refresh=1
        workers.clear()
        workers.update(json.loads(body) if status == 200 else {})
        queues = {q["name"] for info in workers.values() for q in info.get("active_queues", [])}
        return queues >= {str(Queue.CPU), str(Queue.GPU)}

    wait_until(both_listed, timeout=30, message="Flower's API to list the cpu and gpu workers")
    names = {name.partition("-")[0]: name for name in workers}
    assert set(names) == {"cpu", "gpu"}

    status, body = get(f"{base}/api/tasks", CREDENTIALS)
    assert status == 200
    task_names = {task["name"] for task in json.loads(body).values()}
    used = {SPECS[stage].task_name for stage in (Stage.INGEST, Stage.EXTRACT, Stage.SEGMENT, Stage.ANALYSE_RULES,
                                                 Stage.ANALYSE_MODEL, Stage.AGGREGATE, Stage.PERSIST)}
    assert used <= task_names, task_names

    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(http_credentials={"username": CREDENTIALS[0], "password": CREDENTIALS[1]}).new_page()
            page.goto(f"{base}/workers")
            table = page.locator("#workers-table tbody")
            for name in names.values():
                playwright.expect(table).to_contain_text(name, timeout=15_000)
            playwright.expect(page.locator("#workers-online")).to_have_text("2", timeout=15_000)
            page.screenshot(path=str(tmp_path / "flower-workers.png"))
        finally:
            browser.close()


def ready_at(worker: WorkerProcess) -> float | None:
    """When the worker logged that it is ready (Celery's `NAME ready.` line), as a Unix time."""
    found = re.search(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): INFO/MainProcess\] \S+ ready\.$",
                      worker.log.read_text(errors="replace"), re.MULTILINE)
    return datetime.strptime(found[1], "%Y-%m-%d %H:%M:%S,%f").timestamp() if found else None


def test_flower_lists_workers_started_after_it_on_a_busy_machine(server_env: dict[str, str], start_worker, serve) -> None:
    """Flower first, then the workers, every core busy: a plain GET of `/api/workers` (no
    `?refresh=1`) and the dashboard's list (`/workers?json=1`, what its table reloads) name each
    worker within 10 s of the line in which the worker logs that it is ready."""
    env = {**server_env, "CLAUSEMILL_MODEL_ENABLED": "false", "CLAUSEMILL_FLOWER_BASIC_AUTH": ":".join(CREDENTIALS)}
    port = free_port()
    flower = serve(["flower", "--port", str(port)], env)
    base = f"http://127.0.0.1:{port}"
    wait_until(lambda: flower.process.poll() is None and answers(f"{base}/healthcheck"), timeout=60,
               message=f"Flower to answer; its log:\n{flower.output()}")
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in os.sched_getaffinity(0)]
    try:
        started: dict[str, float] = {}
        workers: dict[str, WorkerProcess] = {}
        for queue in (str(Queue.CPU), str(Queue.GPU)):
            started[queue] = time.time()
            workers[queue] = start_worker(env, queue, 1)
        node = {f"{queue}-{worker.process.pid}@": queue for queue, worker in workers.items()}  # ROLE-PID@HOST
        api: dict[str, float] = {}
        dashboard: dict[str, float] = {}

        def seen(names: list[str], when: dict[str, float]) -> None:
            for prefix, queue in node.items():
                if any(name.startswith(prefix) for name in names):
                    when.setdefault(queue, time.time())

        def both_listed() -> bool:
            status, body = get(f"{base}/api/workers", CREDENTIALS)
            assert status == 200, body
            seen([name for name, info in json.loads(body).items() if info.get("active_queues")], api)
            status, body = get(f"{base}/workers?json=1", CREDENTIALS)
            assert status == 200, body
            seen([info["hostname"] for info in json.loads(body)["data"] if info["status"]], dashboard)
            return len(api) == len(dashboard) == len(workers)

        wait_until(both_listed, timeout=40, interval=0.25, message="both workers in /api/workers and /workers")
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    for queue, worker in workers.items():
        ready = ready_at(worker)
        assert ready is not None, worker.log.read_text(errors="replace")
        print(f"{queue}: ready {ready - started[queue]:.1f} s after its start; listed by /api/workers "
              f"{api[queue] - ready:.1f} s and by /workers {dashboard[queue] - ready:.1f} s after it was ready")
        assert api[queue] - ready <= 10 and dashboard[queue] - ready <= 10, (queue, ready, api, dashboard)


# --- /metrics -----------------------------------------------------------------------------

def test_metrics_match_a_batch_just_run_on_server_workers(small_batch, server_env: dict[str, str], start_worker,
                                                          serve, tmp_path: Path) -> None:
    start_worker(server_env, "cpu", 1)
    start_worker(server_env, "gpu", 2)
    folder, expected = small_batch
    audit = run_cli(["audit", str(folder), "--out", str(tmp_path / "out"), "--batch-id", "measured"], server_env, timeout=300)
    assert audit.returncode == 0, audit.stdout + audit.stderr

    url = metrics_url(serve(["metrics", "--port", "0", "--address", "127.0.0.1"], server_env))
    exposition, samples = scrape(url)
    assert_promtool_accepts(exposition)
    assert_documents_match(samples, "measured", expected, server_env["CLAUSEMILL_DATABASE_URL"])
    assert by_label(samples["clausemill_workers_online"], "queue") == {"cpu": 1.0, "gpu": 1.0, "other": 0.0}
    assert by_label(samples["clausemill_queue_messages"], "queue") == {"cpu": 0.0, "gpu": 0.0}
    assert set(by_label(samples["clausemill_metrics_source_up"], "source").values()) == {1.0}
    assert get(url.replace("/metrics", "/healthz")) == (200, "ok\n")
    assert get(url.replace("/metrics", "/elsewhere"))[0] == 404


def test_metrics_of_an_embedded_run_leave_the_broker_folder_alone(small_batch, embedded_env: dict[str, str],
                                                                   serve, tmp_path: Path) -> None:
    env = {**embedded_env, "CLAUSEMILL_MODEL_ENABLED": "false"}
    folder, expected = small_batch
    audit = run_cli(["audit", str(folder), "--out", str(tmp_path / "out"), "--batch-id", "local"], env, timeout=300)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    broker = Path(env["CLAUSEMILL_DATA_DIR"]) / "broker"
    before = sorted(p.relative_to(broker) for p in broker.rglob("*"))

    url = metrics_url(serve(["metrics", "--port", "0"], env))
    assert url.startswith("http://127.0.0.1:")  # this machine only, unless --address says otherwise
    exposition, samples = scrape(url)
    scrape(url)
    assert_promtool_accepts(exposition)
    database = sqlite_url(env)
    assert_documents_match(samples, "local", expected, database)
    status = run_cli(["status", "local"], env, timeout=60)  # how an operator finds the batch's label
    assert f'batch="{batch_label("local")}"' in status.stdout, status.stdout + status.stderr
    # No audit runs, so no embedded worker does: zero, and nothing broadcast to the queues of
    # the workers that are gone.
    assert by_label(samples["clausemill_workers_online"], "queue") == {"cpu": 0.0, "gpu": 0.0, "other": 0.0}
    assert sorted(p.relative_to(broker) for p in broker.rglob("*")) == before


def call(wsgi, path: str) -> tuple[str, str]:
    environ: dict = {"PATH_INFO": path}
    setup_testing_defaults(environ)
    status: list[str] = []
    body = b"".join(wsgi(environ, lambda s, headers: status.append(s)))
    return status[0], body.decode()


def test_operations_tables_become_metrics(tmp_path: Path) -> None:
    """Intake, recovery and schedule rows, and the bound on the batch label (one function, no workers)."""
    from workers.celery_app import create_app

    settings = Settings(data_dir=tmp_path / "data", broker_url="", database_url="", nightly_paths="")
    url = settings.effective_database_url
    now = utcnow()
    last_success = now - timedelta(hours=3)
    old_batches = [f"old-{n:02d}" for n in range(metrics_module.RECENT_BATCHES + 2)]
    with session_scope(url) as session:
        for n, batch_id in enumerate(old_batches):
            session.add(schema.Batch(id=batch_id, status=BatchStatus.DONE, created_at=now - timedelta(days=30 - n)))
            session.add(schema.Document(batch_id=batch_id, path=f"/in/{batch_id}.pdf", filename=f"{batch_id}.pdf",
                                        status=DocumentStatus.DONE, stage=Stage.PERSIST, timings={"ingest": 0.2}))
        session.add(schema.Batch(id="current", status=BatchStatus.RUNNING))
        waiting = schema.Document(batch_id="current", path="/in/a.pdf", filename="a.pdf", timings={})
        scan = schema.Document(batch_id="current", path="/in/b.pdf", filename="b.pdf", status=DocumentStatus.RUNNING,
                               stage=Stage.EXTRACT, timings={"ingest": 0.05, "extract": 42.0})
        session.add_all([waiting, scan])
        session.flush()
        session.add_all([schema.Recovery(document_id=scan.id, batch_id="current", stage=Stage.SEGMENT, attempt=n)
                         for n in (2, 3)])
        session.add(schema.Recovery(document_id=waiting.id, batch_id="current", stage=Stage.INGEST, attempt=2))
        intake = [(IntakeState.CLAIMED, 3600), (IntakeState.SUBMITTED, 600), (IntakeState.PROCESSED, 9000),
                  (IntakeState.PROCESSED, 8000), (IntakeState.FAILED, 7000), (IntakeState.DUPLICATE, 6000)]
        session.add_all([schema.IntakeFile(inbox="/inbox", name=f"f{n}.pdf", work_path=f"/work/f{n}.pdf", state=state,
                                           claimed_at=now - timedelta(seconds=age))
                         for n, (state, age) in enumerate(intake)])
        runs = [(RunState.DONE, last_success - timedelta(days=1)), (RunState.DONE, last_success),
                (RunState.SKIPPED, None), (RunState.SKIPPED, None), (RunState.SKIPPED, None), (RunState.RUNNING, None)]
        reasons = [None, None, "overlap", "overlap", "the previous run still held the schedule", None]
        session.add_all([schema.ScheduleRun(schedule="nightly", window_start=now - timedelta(days=n), state=state,
                                            reason=reason, finished_at=finished)
                         for n, ((state, finished), reason) in enumerate(zip(runs, reasons))])

    wsgi = metrics_module.metrics_app(settings, create_app(settings))
    status, exposition = call(wsgi, "/metrics")
    assert status.startswith("200")
    assert_promtool_accepts(exposition)
    samples = parse(exposition)

    shown = set(by_label(samples["clausemill_documents"], "batch"))
    assert shown == {batch_label(b) for b in ("current", *old_batches[-metrics_module.RECENT_BATCHES:])}
    assert by_label(samples["clausemill_documents"], "stage", batch=batch_label("current")) == {
        "none": 1.0, "extract": 1.0}
    assert not any(batch_id in exposition for batch_id in ("current", *old_batches))  # ids are free text
    assert by_label(samples["clausemill_documents_ended_total"], "status")["done"] == len(old_batches)
    buckets = by_label(samples["clausemill_stage_duration_seconds_bucket"], "le", stage="extract")
    assert buckets["30.0"] == 0 and buckets["60.0"] == 1 and buckets["+Inf"] == 1
    assert samples["clausemill_stage_duration_seconds_sum"][(("stage", "extract"),)] == 42.0
    assert by_label(samples["clausemill_stage_duration_seconds_count"], "stage")["ingest"] == len(old_batches) + 1

    assert by_label(samples["clausemill_intake_files_total"], "outcome") == {"processed": 2.0, "failed": 1.0, "duplicate": 1.0}
    assert by_label(samples["clausemill_intake_pending_files"], "state") == {"claimed": 1.0, "submitted": 1.0}
    age = samples["clausemill_intake_oldest_pending_age_seconds"][()]
    assert 3600 <= age < 3600 + 60
    resent = by_label(samples["clausemill_documents_resent_total"], "stage")
    assert resent["segment"] == 2 and resent["ingest"] == 1 and sum(resent.values()) == 3
    assert "ocr" not in resent  # OCR is resumed through segment: no series that can never move
    last = samples["clausemill_nightly_last_success_timestamp_seconds"][()]
    assert last == pytest.approx(last_success.replace(tzinfo=UTC).timestamp())
    assert by_label(samples["clausemill_nightly_runs_skipped_total"], "reason") == {"overlap": 2.0, "other": 1.0}
    assert by_label(samples["clausemill_workers_online"], "queue") == {"cpu": 0.0, "gpu": 0.0, "other": 0.0}
    assert call(wsgi, "/healthz") == ("200 OK", "ok\n")


def test_an_unreadable_database_is_reported_not_zeroed(tmp_path: Path) -> None:
    from workers.celery_app import create_app

    settings = Settings(data_dir=tmp_path / "data", broker_url="",
                        database_url="postgresql+psycopg2://postgres@127.0.0.1:1/nowhere")
    wsgi = metrics_module.metrics_app(settings, create_app(settings))
    status, exposition = call(wsgi, "/metrics")
    assert status.startswith("200")
    assert_promtool_accepts(exposition)
    assert 'clausemill_metrics_source_up{source="database"} 0.0' in exposition
    assert 'clausemill_metrics_source_up{source="broker"} 1.0' in exposition
    assert "clausemill_documents_ended_total" not in exposition  # missing, not zero
    status, body = call(wsgi, "/healthz")
    assert status.startswith("503") and body.startswith("database: OperationalError")


def test_embedded_audit_is_seen_by_its_lock_without_taking_it(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", broker_url="", database_url="")
    assert not metrics_module.embedded_audit_running(settings)
    settings.data_dir.mkdir(parents=True)
    with open(settings.data_dir / "embedded.lock", "a+") as audit_lock:
        fcntl.flock(audit_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what EmbeddedWorkers holds while it runs
        assert metrics_module.embedded_audit_running(settings)
        fcntl.flock(audit_lock, fcntl.LOCK_UN)
    assert not metrics_module.embedded_audit_running(settings)
    with open(settings.data_dir / "embedded.lock", "a+") as audit_lock:  # the probe left the lock free
        fcntl.flock(audit_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)


# --- alert rules --------------------------------------------------------------------------

def test_alert_rules_pass_promtool() -> None:
    checked = promtool("check", "rules", str(OPS / "alerts.yml"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = promtool("test", "rules", str(OPS / "alerts_test.yml"))
    assert tested.returncode == 0 and "SUCCESS" in tested.stdout, tested.stdout + tested.stderr
