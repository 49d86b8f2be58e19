"""Security basics that need real processes: the workers take JSON only, even from a client
that sends pickle.  (Escaping of contract text is tests/test_report_html.py's, formula-safe
cells tests/test_reports.py's, logins the web tests', credentials in the shipped compose file
tests/test_cluster.py's.)"""
from __future__ import annotations

import os
import time
from pathlib import Path

from celery import Celery

from conftest import run_cli, wait_until


class Bomb:
    """A pickle that creates a folder when it is unpickled: proof that nobody unpickled it."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return os.mkdir, (str(self.marker),)


def test_a_worker_refuses_a_pickled_task_and_keeps_working(server_env: dict[str, str], start_worker, tmp_path: Path,
                                                           sample_dir: Path) -> None:
    env = {**server_env, "CLAUSEMILL_MODEL_ENABLED": "false"}
    worker = start_worker(env, "cpu", 1)
    wait_until(lambda: "ready" in worker.log.read_text(errors="replace"), timeout=60, message="the worker to start")
    marker = tmp_path / "unpickled"
    client = Celery(broker=server_env["CLAUSEMILL_BROKER_URL"])
    client.conf.update(task_serializer="pickle", accept_content=["pickle", "json"])
    client.send_task("clausemill.cpu.ingest", args=[Bomb(marker)], queue="cpu", serializer="pickle")
    wait_until(lambda: "pickle" in worker.log.read_text(errors="replace"), timeout=30,
               message="the worker to log the refused message")
    time.sleep(1)
    assert not marker.exists(), "the worker unpickled a message"
    log = worker.log.read_text(errors="replace")
    assert "ContentDisallowed" in log or "Refusing to deserialize" in log, log[-2000:]
    folder = tmp_path / "one"
    folder.mkdir()
    (folder / "msa.txt").symlink_to(sample_dir / "msa-meridian-granite.txt")
    done = run_cli(["audit", str(folder), "--out", str(tmp_path / "out"), "--timeout", "120"], env)
    assert done.returncode == 0, done.stdout + done.stderr  # the same worker went on serving
