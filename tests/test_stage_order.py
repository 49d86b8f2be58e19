"""A worker takes a document's later stages before other documents' earlier ones, on each broker
(pipelines/dag.py StageSpec.turn), so documents flow through a batch instead of every document
passing each stage before any passes the next."""
from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import TEXT_SAMPLES, base_env, run_cli, some_samples
from pipelines.dag import Queue, Stage
from pipelines.producer import task
from pipelines.settings import Settings
from test_rabbitmq import rabbitmq_env  # noqa: F401  (a fixture)
from workers.celery_app import create_app, declared_queue
from workers.lifecycle import reset_embedded_broker

LATER_STAGES = (Stage.EXTRACT, Stage.SEGMENT, Stage.ANALYSE_RULES, Stage.AGGREGATE, Stage.PERSIST)


@contextmanager
def settings_of(env: dict[str, str]) -> Iterator[Settings]:
    """The Settings a clausemill process started with `env` reads."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield Settings()
    finally:
        os.environ.clear()
        os.environ.update(saved)


def taken_in_order(env: dict[str, str]) -> list[str]:
    """Three documents' ingests sent, then one document's later stages in the DAG's order; the
    stages of the messages as the cpu queue hands them out."""
    with settings_of(env) as settings:
        if settings.embedded:
            reset_embedded_broker(settings)
        app = create_app(settings)
        for document_id in (1, 2, 3):
            task(app, Stage.INGEST, document_id).apply_async()
        for stage in LATER_STAGES:
            task(app, stage, 4).apply_async()
        taken = []
        with app.connection_for_read() as connection, \
                connection.SimpleQueue(declared_queue(settings, str(Queue.CPU))) as queue:
            for _ in range(3 + len(LATER_STAGES)):
                message = queue.get(timeout=10)
                taken.append(message.headers["task"].rsplit(".", 1)[1])
                message.ack()
        return taken


def test_the_embedded_broker_hands_out_a_documents_later_stages_first(tmp_path: Path) -> None:
    assert taken_in_order(base_env(tmp_path / "data")) == [
        "persist", "aggregate", "analyse_rules", "segment", "extract", "ingest", "ingest", "ingest"]


def test_redis_hands_out_a_documents_later_stages_first(server_env: dict[str, str]) -> None:
    assert taken_in_order(server_env) == [
        "persist", "aggregate", "analyse_rules", "segment", "extract", "ingest", "ingest", "ingest"]


def test_rabbitmq_delivers_every_stage_at_its_priority(rabbitmq_env: dict[str, str]) -> None:  # noqa: F811
    """RabbitMQ 4's quorum queues know two priorities, and deliver two high for one normal while
    both wait: ingest is normal, the later stages high.  RabbitMQ 3's quorum queues ignore a
    message's priority (first in, first out, as before): only that nothing is lost is checked."""
    taken = taken_in_order(rabbitmq_env)
    assert sorted(taken) == sorted(["ingest"] * 3 + [str(stage) for stage in LATER_STAGES])
    version = subprocess.run(["rabbitmqctl", "-q", "version"], capture_output=True, text=True, timeout=60).stdout
    if int(re.match(r"\d+", version.strip()).group()) >= 4:
        assert taken[:2] == ["extract", "segment"] and taken[-1] == "ingest", taken


def test_an_embedded_audit_ends_its_first_contract_before_it_opens_its_last(sample_dir: Path, tmp_path: Path) -> None:
    """One cpu process, four contracts: the first is done before the last is ingested."""
    env = {**base_env(tmp_path / "data"), "CLAUSEMILL_MODEL_ENABLED": "false", "CLAUSEMILL_CPU_CONCURRENCY": "1"}
    folder = some_samples(sample_dir, tmp_path / "in", TEXT_SAMPLES)
    result = run_cli(["audit", str(folder), "--out", str(tmp_path / "out")], env)
    assert result.returncode == 0, result.stdout + result.stderr
    log = (tmp_path / "data" / "logs" / "cpu-worker.log").read_text(errors="replace")
    ingests = [m.start() for m in re.finditer(r"clausemill\.cpu\.ingest\[[^]]+\] succeeded", log)]
    persists = [m.start() for m in re.finditer(r"clausemill\.cpu\.persist\[[^]]+\] succeeded", log)]
    assert len(ingests) == len(persists) == len(TEXT_SAMPLES)
    assert persists[0] < ingests[-1]
