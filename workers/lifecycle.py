"""Starting and stopping workers: `clausemill worker`, and the embedded ones `audit` runs itself.

Embedded workers are ordinary `clausemill worker` processes in their own process groups, so a
stop (or Ctrl-C in the parent) takes their pool children down with them and leaves no orphans.
"""
from __future__ import annotations

import ctypes
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from types import TracebackType

from pipelines.dag import Queue
from pipelines.settings import Settings, cores
from storage.database import get_engine

STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
"""What stops `audit` (pipelines/cli/stopping.py) and, in a worker, a warm shutdown."""


def worker_argv(settings: Settings, queue: str, concurrency: int | None, hostname: str | None = None) -> list[str]:
    """Celery worker arguments for one role: prefork for cpu, threads for gpu.

    The gpu role is one process so the model is loaded once and CUDA is never forked; its
    threads are documents in flight whose segments share model batches.
    """
    queue = Queue(queue)
    argv = ["worker", "--queues", queue, "--hostname", hostname or f"{queue}-{os.getpid()}@%h", "--loglevel", "INFO"]
    if queue is Queue.GPU:
        argv += ["--pool", "threads", "--concurrency", str(concurrency or settings.gpu_concurrency)]
    else:
        argv += ["--pool", "prefork", "--concurrency", str(concurrency or settings.cpu_concurrency)]
    if settings.embedded:
        # No other worker to gossip with, and events would pile up as files in the broker folder.
        argv += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    return argv


def run_worker(settings: Settings, queue: Queue, concurrency: int | None, hostname: str | None = None) -> None:
    """Run a worker in this process until it is told to stop (SIGTERM: finish current tasks).

    The schema is migrated before the worker forks its pool; a gpu worker loads the model in
    its start hook (workers/celery_app.py), before it takes its first task."""
    # The embedded launcher starts workers with SIGINT and SIGTERM blocked (EmbeddedWorkers.
    # __enter__), and a blocked mask survives exec: a worker takes them like any Celery worker.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    get_engine(settings.effective_database_url)  # opened, so migrated, once before the pool forks
    from workers.celery_app import create_app
    from workers.heartbeat import reserved_beating_step
    from workers.recovery import sweeping_step

    app = create_app(settings)
    app.steps["consumer"].add(reserved_beating_step(settings))
    if not settings.embedded:  # embedded workers have the process that started them to sweep
        app.steps["consumer"].add(sweeping_step(settings))
    app.worker_main(worker_argv(settings, queue, concurrency, hostname))


GPU_DEVICE_FILES = ("/dev/nvidiactl", "/dev/kfd")
"""Present when an NVIDIA or AMD GPU driver is loaded: then torch may find a GPU, and the gpu
role stays one process, so the model is loaded once and CUDA never shares a device."""
MAX_CPU_MODEL_PROCESSES = 4
"""Each process holds its own copy of the model (600 MB resident after loading, on this CPU)."""


def model_processes(settings: Settings) -> int:
    """How many gpu-role processes the embedded launcher starts (Settings.model_processes)."""
    if settings.model_processes:
        return settings.model_processes
    if any(os.path.exists(path) for path in GPU_DEVICE_FILES):
        return 1
    return max(1, min(MAX_CPU_MODEL_PROCESSES, cores()))


def reset_embedded_broker(settings: Settings) -> None:
    """Start from empty queues: a previous run's leftovers belong to no live batch."""
    folder = settings.broker_folder
    for name in ("queue", "processed", "control"):
        shutil.rmtree(folder / name, ignore_errors=True)
        (folder / name).mkdir(parents=True, exist_ok=True)
    results = settings.data_dir / "celery-results.sqlite"
    for path in (results, results.with_name(results.name + "-wal"), results.with_name(results.name + "-shm")):
        path.unlink(missing_ok=True)


class EmbeddedWorkers:
    """The cpu and gpu workers of a one-machine run, started and stopped by `clausemill audit`.

    A worker that dies (SIGKILL, the OOM killer) is started again by `revive`, up to
    MAX_RESTARTS times a run; the messages it held are lost with it (the filesystem transport
    has no redelivery) and the recovery sweep sends those documents again.
    """

    MAX_RESTARTS = 3

    def __init__(self, settings: Settings, *, lazy: bool = False) -> None:
        self.settings = settings
        self.lazy = lazy  # `start` later, once there is work: a nightly run with nothing to audit starts none
        self.log_dir = settings.data_dir / "logs"
        self.processes: dict[str, subprocess.Popen[bytes]] = {}  # by worker name (its log's stem)
        self.restarts = 0
        self.gpu_processes = model_processes(settings) if settings.model_enabled else 0
        # Each worker's name (its log's stem) and queue: one cpu worker, and the gpu role's processes.
        self.workers: dict[str, Queue] = {"cpu": Queue.CPU} | {
            ("gpu" if i == 1 else f"gpu-{i}"): Queue.GPU for i in range(1, self.gpu_processes + 1)}
        self._lock_file: object | None = None

    def __enter__(self) -> EmbeddedWorkers:
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        self._take_lock()
        reset_embedded_broker(self.settings)
        get_engine(self.settings.effective_database_url)  # migrated here, not raced by the workers
        self.log_dir.mkdir(parents=True, exist_ok=True)
        if not self.lazy:
            self.start()
        return self

    def start(self) -> None:
        """Start the workers (once).  A Ctrl-C or SIGTERM while they start must not leave one
        running: the signal waits until every Popen has its process, then lands inside the try,
        which stops what was started (`with` calls __exit__ only once __enter__ has returned)."""
        if self.processes:
            return
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            try:
                for name in self.workers:
                    self._start(name)
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        except BaseException:
            self.stop()
            raise

    def _start(self, name: str) -> None:
        queue = self.workers[name]
        env = {**os.environ, "CLAUSEMILL_DATA_DIR": str(self.settings.data_dir)}
        concurrency = self.settings.cpu_concurrency
        if queue is Queue.GPU:
            concurrency = -(-self.settings.gpu_concurrency // self.gpu_processes)
            if self.gpu_processes > 1 and not self.settings.model_threads:
                env["CLAUSEMILL_MODEL_THREADS"] = str(max(1, cores() // self.gpu_processes))
        with open(self.log_dir / f"{name}-worker.log", "ab") as log:
            self.processes[name] = subprocess.Popen(
                [sys.executable, "-m", "pipelines.cli", "worker", "--queues", queue, "--concurrency", str(concurrency)],
                env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                preexec_fn=_stop_with_parent(os.getpid()),
            )

    def revive(self) -> list[str]:
        """Start again every worker that died; raises once a run has restarted too often (a
        worker that dies at every start will not get better)."""
        dead = self.dead_workers()
        for name in dead:
            if self.restarts >= self.MAX_RESTARTS:
                raise RuntimeError(f"the embedded {name} worker stopped unexpectedly, after {self.restarts} "
                                   f"restarts; last log lines:\n{self.log_tail(name)}")
            _signal_group(self.processes[name], signal.SIGKILL)  # its pool children, orphaned
            self.restarts += 1
            self._start(name)
        return dead

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def _take_lock(self) -> None:
        lock = open(self.settings.data_dir / "embedded.lock", "a+")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise RuntimeError(
                f"another embedded clausemill audit is running on {self.settings.data_dir}; wait for it, "
                "or give this run its own CLAUSEMILL_DATA_DIR"
            ) from None
        self._lock_file = lock

    def dead_workers(self) -> list[str]:
        """Workers that exited although nobody asked them to: the run cannot progress."""
        return [name for name, p in self.processes.items() if p.poll() is not None]

    def log_tail(self, name: str, lines: int = 20) -> str:
        path = self.log_dir / f"{name}-worker.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    def stop_idle(self) -> None:
        """Stop workers whose batch has ended, without Celery's warm shutdown.

        Nothing they run is worth waiting for (the ledger says every document ended, and the
        next run starts from empty queues), while a warm shutdown of an idle worker takes about
        5 s: its consumer polls the queue folder for 2 s before it sees the signal, then the
        pool joins each child."""
        self.stop(grace_s=0)

    def stop(self, grace_s: float = 15.0) -> None:
        """Warm shutdown (SIGTERM to each worker's main process), then SIGKILL its whole group.

        Only the main process gets SIGTERM: it stops its pool children itself, whereas a
        child killed directly would be reported as lost and its task requeued."""
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for process in self.processes.values():
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            _signal_group(process, signal.SIGKILL)
            process.wait()
        self.processes.clear()
        if self._lock_file is not None:
            self._lock_file.close()  # type: ignore[attr-defined]
            self._lock_file = None


def _stop_with_parent(parent: int):  # type: ignore[no-untyped-def]
    """In the new worker, before exec: SIGTERM it when the process that started it dies, so a
    kill -9 of `clausemill audit` or `watch` leaves no embedded worker behind (Linux
    PR_SET_PDEATHSIG, kept across exec)."""
    def arm() -> None:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the line above
            os.kill(os.getpid(), signal.SIGTERM)
    return arm


_PR_SET_PDEATHSIG = 1


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass
