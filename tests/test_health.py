"""`clausemill health`: the scheduler's and the watcher's health checks, from the heartbeat their
main loops write (pipelines/liveness.py), against the real processes: healthy while they run,
down once they are killed and the heartbeat has aged past the limit."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import REPO, base_env, processes_using, run_cli, wait_until
from pipelines.liveness import LivenessFile, Process, health, heartbeat_path, read_beat, write_beat


def test_a_fresh_beat_is_alive_an_old_or_missing_one_says_why(tmp_path: Path) -> None:
    now = 1_800_000_000.0
    alive, sentence = health(tmp_path, Process.SCHEDULER, 120, now=now)
    assert not alive and sentence.startswith(f"scheduler: no heartbeat at {tmp_path / 'heartbeats' / 'scheduler'}")
    write_beat(tmp_path, Process.SCHEDULER, now=now - 30)
    assert health(tmp_path, Process.SCHEDULER, 120, now=now) == (True, f"scheduler: alive, last heartbeat 30.0 s ago (pid {os.getpid()})")
    alive, sentence = health(tmp_path, Process.SCHEDULER, 20, now=now)
    assert not alive
    assert sentence == (f"scheduler: last heartbeat 30 s ago (limit 20 s), written by pid {os.getpid()} at "
                        "2027-01-15 07:59:30 UTC: the process is gone or its loop is stuck")
    assert health(tmp_path, Process.WATCHER, 120, now=now)[0] is False  # each process its own file
    heartbeat_path(tmp_path, Process.WATCHER).write_text("half a wri")
    assert health(tmp_path, Process.WATCHER, 120, now=now) == (
        False, f"watcher: cannot read its heartbeat: {heartbeat_path(tmp_path, Process.WATCHER)} is not a heartbeat file")


def test_beats_replace_the_file_whole_and_a_disk_that_refuses_them_never_stops_the_loop(tmp_path: Path) -> None:
    heartbeat = LivenessFile(tmp_path, Process.WATCHER, every_s=0)
    for _ in range(50):
        heartbeat.beat()
    assert [p.name for p in (tmp_path / "heartbeats").iterdir()] == ["watcher"]  # no staging file left behind
    first = read_beat(tmp_path, Process.WATCHER)
    assert first is not None and first.pid == os.getpid() and abs(first.at - time.time()) < 5

    throttled = LivenessFile(tmp_path, Process.SCHEDULER, every_s=3600)
    throttled.beat()
    written = read_beat(tmp_path, Process.SCHEDULER)
    throttled.beat()
    assert read_beat(tmp_path, Process.SCHEDULER) == written  # one write per interval, however often it ticks

    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("a file where the data folder should be")
    refused = LivenessFile(not_a_folder, Process.SCHEDULER, every_s=0)
    refused.beat()
    refused.beat()  # raises nothing: the health check is what reports it
    assert health(not_a_folder, Process.SCHEDULER, 120)[0] is False


def test_the_command_exits_0_while_fresh_and_1_with_the_reason(tmp_path: Path) -> None:
    env = base_env(tmp_path / "data")
    missing = run_cli(["health", "watcher"], env, timeout=60)
    assert missing.returncode == 1 and "watcher: no heartbeat at" in missing.stderr, missing.stderr
    write_beat(tmp_path / "data", Process.WATCHER, now=time.time() - 300)
    stale = run_cli(["health", "watcher"], env, timeout=60)
    assert stale.returncode == 1 and re.search(r"last heartbeat 30\d s ago \(limit 120 s\)", stale.stderr), stale.stderr
    assert "\n" not in stale.stderr.strip()  # one line in a probe's output, however narrow the terminal
    fresh_enough = run_cli(["health", "watcher", "--max-age", "600"], env, timeout=60)
    assert fresh_enough.returncode == 0 and fresh_enough.stdout.startswith("watcher: alive"), fresh_enough.stderr
    unknown = run_cli(["health", "flower"], env, timeout=60)
    assert unknown.returncode == 2 and "'flower' is not one of 'scheduler', 'watcher'" in unknown.stderr


# --- the real processes -------------------------------------------------------------------------

def health_cli(env: dict[str, str], process: str, max_age: float) -> subprocess.CompletedProcess[str]:
    return run_cli(["health", process, "--max-age", f"{max_age:g}"], env, timeout=60)


@pytest.fixture()
def started(tmp_path: Path) -> Iterator:
    """`clausemill ARGS` in a session of its own, embedded, with rules only and one cpu process
    (the embedded workers are not what these tests look at); all of it killed afterwards."""
    env = {**base_env(tmp_path / "data"), "CLAUSEMILL_MODEL_ENABLED": "false", "CLAUSEMILL_CPU_CONCURRENCY": "1"}
    processes: list[subprocess.Popen[bytes]] = []

    def start(*args: str, **extra_env: str) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
        with open(tmp_path / f"{args[0]}.log", "ab") as log:
            process = subprocess.Popen([sys.executable, "-m", "pipelines.cli", *args], env={**env, **extra_env}, cwd=REPO,
                                       stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        processes.append(process)
        return process, {**env, **extra_env}

    yield start
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    for pid in processes_using(env["CLAUSEMILL_DATA_DIR"]):  # embedded workers of a killed process
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def assert_health_follows(process: subprocess.Popen[bytes], env: dict[str, str], name: Process, log: Path) -> None:
    """Healthy once the loop turns, beating again and again while it runs; down, naming the
    dead process, once SIGKILL has stopped it and the limit has passed."""
    data_dir = Path(env["CLAUSEMILL_DATA_DIR"])
    try:
        wait_until(lambda: health_cli(env, name, 10).returncode == 0, timeout=180, interval=1,
                   message=f"the {name} to report healthy")
    except AssertionError:
        raise AssertionError(f"{log.read_text(errors='replace')[-4000:]}") from None
    first = read_beat(data_dir, name)
    assert first is not None and first.pid == process.pid
    wait_until(lambda: read_beat(data_dir, name).at > first.at + 2, timeout=30, message=f"the {name} to beat again")
    assert health_cli(env, name, 10).returncode == 0

    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    killed_at = time.time()
    wait_until(lambda: health_cli(env, name, 3).returncode == 1, timeout=30, interval=0.5,
               message=f"the killed {name}'s health check to fail")
    assert time.time() - read_beat(data_dir, name).at > 3 and time.time() - killed_at < 30
    down = health_cli(env, name, 3)
    assert down.returncode == 1
    assert f"{name}: last heartbeat" in down.stderr and f"written by pid {process.pid}" in down.stderr, down.stderr
    assert health_cli(env, name, 3600).returncode == 0  # the same file, judged with a longer limit


def test_a_real_watcher_is_healthy_while_its_loop_turns_and_down_once_killed(started, tmp_path: Path) -> None:
    inbox, outbox = tmp_path / "inbox", tmp_path / "outbox"
    inbox.mkdir()
    watcher, env = started("watch", str(inbox), "--out", str(outbox))
    assert_health_follows(watcher, env, Process.WATCHER, tmp_path / "watch.log")


def test_a_real_scheduler_is_healthy_while_beat_ticks_and_down_once_killed(started, tmp_path: Path) -> None:
    contracts = tmp_path / "contracts"
    contracts.mkdir()
    scheduler, env = started("scheduler", "--out", str(tmp_path / "nightly"), CLAUSEMILL_NIGHTLY_PATHS=str(contracts))
    assert_health_follows(scheduler, env, Process.SCHEDULER, tmp_path / "scheduler.log")
