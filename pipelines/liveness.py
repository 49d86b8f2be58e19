"""A long-running process's heartbeat file, and how fresh it is.

The scheduler and the watcher write `data_dir/heartbeats/NAME` from their main loops (beat's
tick, the watcher's tick), and `clausemill health NAME` reads it: a health check that asks
"is the loop still turning", which `kill -0 1` could not (a process whose loop hangs on a
database that never answers is alive, and does nothing).  A beat is written to a file of its
own and renamed over the heartbeat, so a reader never sees half a write.

The time inside the file is the wall clock, since another process (the health check) reads it.
Several watchers on one data folder share one heartbeat: run each in a container of its own, or
give each its own CLAUSEMILL_DATA_DIR, where one of them must be checked alone.
"""
from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from pipelines import logs

FOLDER = "heartbeats"


class Process(StrEnum):
    """The processes that write a heartbeat, by the name `clausemill health` takes."""

    SCHEDULER = "scheduler"
    WATCHER = "watcher"


BEAT_EVERY_S = 1.0
"""A loop that ticks more often than this (the watcher, every 0.25 s) writes once per interval."""
DEFAULT_MAX_AGE_S = 120.0
"""How old a heartbeat may be before the process counts as hung: the scheduler's beat ticks at
least every 2 s and the watcher's loop every 0.25 s, but a watcher's tick that rewrites the
rolling report over a large outbox takes longer (6 s per 1,000 contracts, pipelines/intake/
report.py), so a health check that restarts the watcher gives it more (docs/KUBERNETES.md)."""


@dataclass(frozen=True)
class Beat:
    """What a heartbeat file holds: who wrote it, and when (seconds since the epoch)."""

    process: str
    pid: int
    at: float


def heartbeat_path(data_dir: Path, process: str) -> Path:
    return data_dir / FOLDER / process


def write_beat(data_dir: Path, process: str, now: float | None = None) -> None:
    """Write the heartbeat at once: to a temporary file beside it, renamed over it."""
    path = heartbeat_path(data_dir, process)
    path.parent.mkdir(parents=True, exist_ok=True)
    beat = Beat(process, os.getpid(), time.time() if now is None else now)
    staging = path.with_name(f".{process}.{beat.pid}.tmp")
    staging.write_text(json.dumps(beat.__dict__), encoding="utf-8")
    os.replace(staging, path)


def read_beat(data_dir: Path, process: str) -> Beat | None:
    """The last beat, or None when there is none; ValueError when the file is not a beat."""
    path = heartbeat_path(data_dir, process)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        fields = json.loads(text)
        return Beat(str(fields["process"]), int(fields["pid"]), float(fields["at"]))
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"{path} is not a heartbeat file") from None


def health(data_dir: Path, process: str, max_age_s: float, now: float | None = None) -> tuple[bool, str]:
    """Whether the process beat within max_age_s, and a sentence saying so, for a person reading
    a health check's output (`kubectl describe pod`, `docker inspect`)."""
    now = time.time() if now is None else now
    path = heartbeat_path(data_dir, process)
    try:
        beat = read_beat(data_dir, process)
    except (OSError, ValueError) as error:
        return False, f"{process}: cannot read its heartbeat: {error}"
    if beat is None:
        return False, (f"{process}: no heartbeat at {path}: it has not started its loop yet, or it runs with "
                       "another CLAUSEMILL_DATA_DIR")
    age = max(0.0, now - beat.at)
    if age > max_age_s:
        written = datetime.fromtimestamp(beat.at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        return False, (f"{process}: last heartbeat {age:.0f} s ago (limit {max_age_s:g} s), written by pid "
                       f"{beat.pid} at {written}: the process is gone or its loop is stuck")
    return True, f"{process}: alive, last heartbeat {age:.1f} s ago (pid {beat.pid})"


class LivenessFile:
    """What a main loop calls every tick: writes the beat at most every `every_s`, and never
    raises, since the loop must not stop over its health file (a full or read-only disk is
    logged once; the health check then reports the heartbeat as stale)."""

    def __init__(self, data_dir: Path, process: str, every_s: float = BEAT_EVERY_S) -> None:
        self.data_dir, self.process, self.every_s = data_dir, process, every_s
        self._written = float("-inf")
        self._failing = False

    def beat(self) -> None:
        now = time.monotonic()
        if now - self._written < self.every_s:
            return
        try:
            write_beat(self.data_dir, self.process)
        except OSError:
            if not self._failing:
                logs.log("cannot write the heartbeat; health checks will report this process as down",
                         stage="health", batch_id=None, level=logging.WARNING, exc_info=True,
                         path=str(heartbeat_path(self.data_dir, self.process)))
            self._failing = True
            return
        self._written, self._failing = now, False
