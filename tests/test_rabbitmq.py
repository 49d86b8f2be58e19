"""RabbitMQ as a first-class broker: quorum queues, per-consumer prefetch, the result backend in
PostgreSQL, and a broker restart mid-batch that loses and duplicates nothing.

Each test gets a virtual host of its own on this machine's RabbitMQ (127.0.0.1:5672), removed
when it ends; `rabbitmqctl` makes it, as an operator would."""
from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import expected_outcomes, run_cli, wait_until
from test_dag_embedded import assert_no_duplicate_findings, load_batch
from test_dag_server import batch_done, ocr_under_way
from test_recovery import recovery_count


def rabbitmqctl(*args: str) -> str:
    return subprocess.run(["rabbitmqctl", "-q", *args], check=True, capture_output=True, text=True, timeout=120).stdout


@pytest.fixture()
def rabbitmq_env(server_env: dict[str, str]) -> Iterator[dict[str, str]]:
    """server_env with the broker on a fresh RabbitMQ virtual host and no result backend named
    (so the chords' results go to PostgreSQL, as they do on RabbitMQ by default)."""
    if shutil.which("rabbitmqctl") is None:
        pytest.skip("no rabbitmqctl here (Debian rabbitmq-server)")
    try:
        rabbitmqctl("status")
    except subprocess.CalledProcessError as error:
        pytest.skip(f"RabbitMQ is not running on this machine: {error.stderr.strip()[:200]}")
    vhost = f"clausemill-test-{uuid.uuid4().hex[:8]}"
    rabbitmqctl("add_vhost", vhost)
    rabbitmqctl("set_permissions", "-p", vhost, "guest", ".*", ".*", ".*")
    try:
        env = {k: v for k, v in server_env.items() if k != "CLAUSEMILL_RESULT_BACKEND"}
        yield {**env, "CLAUSEMILL_BROKER_URL": f"amqp://guest:guest@127.0.0.1:5672/{vhost}",
               "CLAUSEMILL_MODEL_ENABLED": "false", "RABBITMQ_VHOST_UNDER_TEST": vhost}
    finally:
        rabbitmqctl("delete_vhost", vhost)


def queue_types(vhost: str) -> dict[str, str]:
    rows = rabbitmqctl("list_queues", "-p", vhost, "name", "type").splitlines()
    return dict(line.split("\t")[:2] for line in rows if "\t" in line and not line.startswith("name\t"))


def test_a_batch_runs_on_rabbitmq_quorum_queues(sample_dir: Path, rabbitmq_env: dict[str, str], start_worker) -> None:
    worker = start_worker(rabbitmq_env, "cpu", 2)
    submitted = run_cli(["audit", str(sample_dir), "--no-wait", "--batch-id", "rabbit"], rabbitmq_env)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    url = rabbitmq_env["CLAUSEMILL_DATABASE_URL"]
    wait_until(lambda: batch_done(url, "rabbit"), timeout=300, message="the batch to finish on RabbitMQ")
    batch = load_batch(url, "rabbit")
    assert {d.filename: d.status for d in batch.documents} == expected_outcomes(sample_dir)
    assert_no_duplicate_findings(url, "rabbit")
    types = queue_types(rabbitmq_env["RABBITMQ_VHOST_UNDER_TEST"])
    assert types["cpu"] == "quorum", types  # gpu: declared by its first consumer or message (the model is off here)
    # Quorum queues refuse a global prefetch limit: the worker must have chosen per-consumer QoS.
    assert "Global QoS is disabled" in worker.log.read_text(errors="replace")
    status = run_cli(["status", "rabbit"], rabbitmq_env)
    assert "rabbit: done" in status.stdout


def test_a_rabbitmq_restart_mid_batch_loses_and_duplicates_nothing(
        sample_dir: Path, rabbitmq_env: dict[str, str], start_worker) -> None:
    """The broker's application stopped and started mid-batch (every connection cut): quorum
    queues keep their messages, the worker reconnects, and what it held unacknowledged is
    delivered again; the ledger keeps the outcome once."""
    worker = start_worker(rabbitmq_env, "cpu", 2)
    submitted = run_cli(["audit", str(sample_dir), "--no-wait", "--batch-id", "rabbit-restart"], rabbitmq_env)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    url = rabbitmq_env["CLAUSEMILL_DATABASE_URL"]
    wait_until(lambda: ocr_under_way(url, "rabbit-restart") or batch_done(url, "rabbit-restart"), timeout=120,
               message="OCR to start")
    rabbitmqctl("stop_app")
    try:
        time.sleep(2)
    finally:
        rabbitmqctl("start_app")
    restarted = time.monotonic()
    wait_until(lambda: batch_done(url, "rabbit-restart"), timeout=120,
               message="the batch to finish within 2 minutes of the restart")
    print(f"batch done {time.monotonic() - restarted:.0f} s after the RabbitMQ restart "
          f"({recovery_count(url, 'rabbit-restart')} re-sent by the sweep)")
    batch = load_batch(url, "rabbit-restart")
    assert {d.filename: d.status for d in batch.documents} == expected_outcomes(sample_dir)
    assert_no_duplicate_findings(url, "rabbit-restart")
    assert "Connection to broker lost" in worker.log.read_text(errors="replace"), "the restart did not reach the worker"
