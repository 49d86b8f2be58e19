"""Parse untrusted bytes in a child process, so a hostile file fails alone and the worker lives.

PDFium, qpdf, libxml2, zlib and Tesseract are C code fed by whoever uploaded the file.  One
that needs 30 GB, loops for an hour or crashes would take the Celery worker with it, and with
`task_reject_on_worker_lost` the task would be delivered again to the next worker, forever.
So each stage that reads a file runs its parse here: in a forked child with an address-space
limit (RLIMIT_AS) and a wall-clock limit, whose result comes back as JSON over a pipe.

Why a plain `os.fork`: the child inherits the parsers already imported, so an empty child
costs ~4 ms round trip (docs/BENCHMARKS.md).  multiprocessing's Process refuses to start in a
Celery prefork worker ("daemonic processes are not allowed to have children"); a forkserver
child cost 4.2 ms for the fork alone and re-runs the parent's main script in every child
(22 ms under pytest).  The cpu worker's pool processes, where the stages run, have one
thread, so nothing is forked mid-lock (Python 3.12 warns when a threaded process forks).

Why the memory limit is relative (the child's address space at fork plus the limit): a
parent that has loaded torch or CUDA maps gigabytes it never touches, which an absolute limit
would count against the file.  A child killed by a signal is reported as out of memory when
the parent saw its address space near the limit (it samples VmPeak while it waits).

Why JSON: the child is the process that touched the file, so nothing it sends is trusted to
build objects (no pickle); the parent rebuilds our own dataclasses from plain values.

The child also guards itself, for when the parent cannot: it dies with its parent
(PR_SET_PDEATHSIG), has an alarm and a CPU-time limit past the wall-clock one, writes no core
files, and leads its own process group, so the Tesseract or pdftoppm it starts is killed
with it.
"""
from __future__ import annotations

import ctypes
import faulthandler
import json
import math
import os
import resource
import select
import signal
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed
from pipelines.parsers.limits import ReadLimits

_BACKSTOP_S = 5  # the child's own alarm and CPU limit fire this long after the parent's deadline
_PR_SET_PDEATHSIG = 1
_POLL_S = 0.02  # how often the parent notes the child's peak address space while it waits
_NEAR_LIMIT = 0.8  # a child killed by a signal past this share of its memory limit ran out of it
_READ_CHUNK = 1 << 20
_RESULT_BYTES_PER_CHAR = 32  # a char of text with its share of word boxes, as JSON, with room
_CHILD_FAILED = 70  # exit status of a child whose own machinery failed (EX_SOFTWARE)


class ParserCrashed(RuntimeError):
    """The parse raised an exception that is not a document problem: a bug, reported as one."""


def parse_isolated(stage: Stage, work: Callable[[], Any], limits: ReadLimits, what: str) -> Any:
    """`run_isolated` with the memory and time limits of `limits` for `stage`."""
    return run_isolated(
        stage, work, memory_mb=limits.memory_mb, time_s=limits.time_s(stage), what=what,
        time_setting=limits.time_setting(stage), max_result_bytes=_RESULT_BYTES_PER_CHAR * limits.max_chars + (16 << 20),
    )


def run_isolated(
    stage: Stage,
    work: Callable[[], Any],
    *,
    memory_mb: int,
    time_s: float,
    what: str,
    time_setting: str,
    max_result_bytes: int,
) -> Any:
    """`work()` run in a child process; its JSON-able result, or `DocumentFailed(stage, ...)`.

    `what` completes the reasons ("to open", "to read its text"); `time_setting` is the
    variable that sets `time_s`.  A `DocumentFailed` raised by `work` comes back as itself;
    running out of memory, time or crashing become a `DocumentFailed` that says so.  Any
    other exception in `work` is a bug and raises `ParserCrashed` with the child's traceback.
    """
    parent = os.getpid()
    baseline = _address_space_bytes()  # the child starts with the same mappings
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        status = _CHILD_FAILED
        try:
            os.close(reader)
            _child_main(writer, work, parent, memory_mb, time_s)
            status = 0
        finally:
            os._exit(status)
    os.close(writer)
    _set_group(pid)
    try:
        outcome = _watch(reader, pid, time_s, max_result_bytes, baseline)
    finally:
        os.close(reader)
        _kill_group(pid)
        _, wait_status = os.waitpid(pid, 0)
    exitcode = os.waitstatus_to_exitcode(wait_status)
    if outcome.timed_out:
        raise DocumentFailed(stage, f"took longer than {time_s:g} s {what} ({time_setting}, less "
                                    "CLAUSEMILL_PARSE_TIME_MARGIN_S)")
    if outcome.too_large:
        raise DocumentFailed(stage, f"gave more than {max_result_bytes / (1 << 20):,.0f} MB of text and word "
                                    "boxes (CLAUSEMILL_MAX_DOCUMENT_CHARS)")
    if not outcome.payload:  # the child died without a word
        raise DocumentFailed(stage, _death_reason(exitcode, memory_mb, outcome.peak_mb, what))
    message = json.loads(outcome.payload)
    if "ok" in message:
        return message["ok"]
    if "failed" in message:
        failed_stage, reason = message["failed"]
        raise DocumentFailed(Stage(failed_stage), str(reason))
    if "memory" in message:
        raise DocumentFailed(stage, f"needs more than {memory_mb} MB {what} (CLAUSEMILL_PARSE_MEMORY_LIMIT_MB)")
    raise ParserCrashed(f"the {stage} parse failed in its child process:\n{message.get('error', message)}")


@dataclass
class _Outcome:
    payload: bytes = b""  # the child's message; empty if it died without one
    timed_out: bool = False
    too_large: bool = False
    peak_mb: float = 0.0  # the most address space the child was seen to add, for the reason


def _watch(reader: int, pid: int, time_s: float, max_result_bytes: int, baseline: int) -> _Outcome:
    """Read the child's one message until it closes the pipe (it exits then) or the deadline
    passes, noting its peak address space as it goes: a child killed by a signal near its
    memory limit ran out of memory."""
    outcome = _Outcome()
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + time_s
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            outcome.timed_out = True
            return outcome
        readable, _, _ = select.select([reader], [], [], min(_POLL_S, remaining))
        if not readable:
            outcome.peak_mb = max(outcome.peak_mb, (_peak_address_space(pid) - baseline) / (1 << 20))
            continue
        chunk = os.read(reader, _READ_CHUNK)
        if not chunk:
            outcome.payload = b"".join(chunks)
            return outcome
        size += len(chunk)
        if size > max_result_bytes:
            outcome.too_large = True
            return outcome
        chunks.append(chunk)


def _death_reason(exitcode: int, memory_mb: int, peak_mb: float, what: str) -> str:
    if exitcode >= 0:
        return f"the reader stopped without a result while trying {what} (exit status {exitcode})"
    name = signal.Signals(-exitcode).name
    if -exitcode == signal.SIGXCPU:
        return f"used more CPU time than its time limit allows while trying {what} (killed by {name})"
    if peak_mb >= _NEAR_LIMIT * memory_mb:
        return (f"needs more than {memory_mb} MB {what} (CLAUSEMILL_PARSE_MEMORY_LIMIT_MB): the reader died "
                f"({name}) at {peak_mb:,.0f} MB")
    return (f"the reader crashed while trying {what} (killed by {name}): the file is malformed, or needs more "
            f"than {memory_mb} MB at once (CLAUSEMILL_PARSE_MEMORY_LIMIT_MB)")


def _set_group(pid: int) -> None:
    """Make the child its own process group from this side too, so a kill right after the
    fork reaches the group even before the child ran its first line."""
    try:
        os.setpgid(pid, pid)
    except (PermissionError, ProcessLookupError):  # it did so itself already, or is gone
        pass


def _kill_group(pid: int) -> None:
    """Kill the child and whatever it started (its process group), if still there."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# the child ------------------------------------------------------------------------------------


def _child_main(writer: int, work: Callable[[], Any], parent: int, memory_mb: int, time_s: float) -> None:
    """Limit this process, run `work`, write one JSON message, close the pipe."""
    _guard_child(parent, memory_mb, time_s)
    try:
        message: dict[str, Any] = {"ok": work()}
        payload = json.dumps(message, ensure_ascii=False).encode()
    except DocumentFailed as failure:
        payload = json.dumps({"failed": [str(failure.stage), failure.reason]}).encode()
    except MemoryError:
        payload = b'{"memory": true}'
    except Exception:  # noqa: BLE001 - a bug: its traceback goes back to the parent
        payload = json.dumps({"error": traceback.format_exc()}).encode()
    view = memoryview(payload)
    while view:
        view = view[os.write(writer, view):]
    os.close(writer)


def _guard_child(parent: int, memory_mb: int, time_s: float) -> None:
    os.setpgid(0, 0)
    faulthandler.disable()  # a crash is the parent's to report, in the document's reason
    for name in ("SIGTERM", "SIGINT", "SIGUSR1", "SIGHUP", "SIGALRM"):  # the worker's handlers are not ours
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the alarm and CPU limit still stop it
        pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)
    backstop = math.ceil(time_s) + _BACKSTOP_S
    signal.alarm(backstop)
    _lower_limit(resource.RLIMIT_CPU, backstop)
    _lower_limit(resource.RLIMIT_CORE, 0)  # a file that crashes the reader a thousand times leaves no cores
    _lower_limit(resource.RLIMIT_AS, _address_space_bytes() + (memory_mb << 20))


def _lower_limit(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def _address_space_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _peak_address_space(pid: int) -> int:
    """The process's peak address space (VmPeak), 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmPeak:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0
