"""The control plane's ceiling in server mode: how many short contracts a minute, how many tasks a
second, and what saturates first, the broker, the database or the workers (issue 43, item 4).

For each size on the command line (default 1000) it writes that many short text contracts with
the project's sample generator (`pipelines.samples.generate_contract(seed, short=True)`, each a
different seed), makes a fresh PostgreSQL database (127.0.0.1:5432, dropped at the end) and uses
an empty Redis database number (`--redis-db`, default 11, emptied at the end; the script refuses
one that holds keys), starts real `clausemill worker --queues cpu` and `--queues gpu` processes
(the gpu worker loads the MiniLM model on whatever device it finds; on a machine without one, the
CPU), submits the folder with `clausemill audit --no-wait`, and follows the batch to its end.

Every half second it samples:
  - the Redis queue lengths per queue (`workers.broker.queue_lengths`, the function /metrics
    uses) and the messages taken but not acknowledged (Redis's `unacked` hash): a queue that
    grows names the stage that holds the batch back;
  - CPU time of the cpu worker's process group, the gpu worker's, this database's PostgreSQL
    backends (pg_stat_activity's pids, /proc), the Redis server (INFO cpu: the whole server) and
    the machine (/proc/stat);
  - PostgreSQL backends of this database that are executing a statement, and what they wait on;
  - documents ended.

At the end it reads the database's own counters (pg_stat_database: transactions, rows written,
`active_time`, the time its backends spent executing statements), the Celery workers' logs
(each task's run time), each document's stage times, and every table's rows and bytes
(`pg_total_relation_size`) per contract, and prints them.

    python ops/benchmarks/control_plane.py                 # 1,000 contracts
    python ops/benchmarks/control_plane.py 200 1000        # two sizes, each on fresh databases
    python ops/benchmarks/control_plane.py 1000 5000 20000 --timeout 7200   # the issue's range (hours on 2 cores)
    python ops/benchmarks/control_plane.py 1000 --no-model # cpu stages only (no gpu worker)
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import psycopg2  # noqa: E402
import redis  # noqa: E402

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379"
INTERVAL_S = 0.5
TICK = os.sysconf("SC_CLK_TCK")
ROLES = ("cpu workers", "gpu worker", "postgres", "redis")
VACUUM_EVERY_S = 60
PROGRESS_EVERY_S = 300
ENDED = ("done", "failed", "duplicate")


# --- the contracts and the processes ------------------------------------------------------

def write_contracts(folder: Path, count: int) -> int:
    """`count` short sample contracts as .txt (seeds 1..count); returns their bytes."""
    from pipelines.samples import generate_contract, write_txt

    folder.mkdir(parents=True)
    for seed in range(1, count + 1):
        write_txt(generate_contract(seed, short=True), folder / f"contract-{seed:06d}.txt")
    return sum(p.stat().st_size for p in folder.iterdir())


@dataclass
class Worker:
    """A real `clausemill worker` in a process group of its own."""

    queue: str
    process: subprocess.Popen
    log: Path

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def start_worker(queue: str, env: dict[str, str], folder: Path, concurrency: int | None) -> Worker:
    log = folder / f"{queue}-worker.log"
    role_env = dict(env, **({"OMP_THREAD_LIMIT": "1"} if queue == "cpu" else {}))  # as the embedded launcher sets it
    command = [sys.executable, "-m", "pipelines.cli", "worker", "--queues", queue]
    if concurrency and queue == "cpu":
        command += ["--concurrency", str(concurrency)]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, env=role_env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    return Worker(queue, process, log)


def wait_ready(workers: list[Worker], timeout_s: float = 300) -> float:
    """Seconds until every worker's log says it is ready (the gpu worker after loading the model)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        for w in workers:
            if w.process.poll() is not None:
                raise SystemExit(f"the {w.queue} worker exited:\n{w.log.read_text(errors='replace')[-3000:]}")
        if all(" ready." in w.log.read_text(errors="replace") for w in workers):
            return time.monotonic() - started
        time.sleep(0.5)
    raise SystemExit("workers not ready in time")


# --- sampling --------------------------------------------------------------------------------

def _stat(pid: str) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()  # from the state field on


def group_cpu_s(pgid: int) -> float:
    """CPU seconds of a process group's live members and the children they reaped (a cpu pool
    process's parse children, a replaced pool process): utime + stime + cutime + cstime."""
    total = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat(entry)) and int(fields[2]) == pgid:
            total += sum(int(v) for v in fields[11:15])
    return total / TICK


def machine_busy_s() -> float:
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / TICK  # all but idle and iowait, guest counted in user


@dataclass
class Sample:
    t: float
    queued: dict[str, int]
    unacked: int
    cpu_s: dict[str, float]
    machine_s: float
    active: int
    waits: Counter
    ended: int


@dataclass
class Sampler:
    """Samples every INTERVAL_S in a thread until stopped."""

    settings: object
    database: str
    batch_id: str
    workers: list[Worker]
    samples: list[Sample] = field(default_factory=list)
    done: bool = False
    _stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.pg = psycopg2.connect(f"postgresql://postgres@127.0.0.1:5432/{self.database}")
        self.pg.autocommit = True
        self.redis = redis.Redis.from_url(self.settings.broker_url)  # type: ignore[attr-defined]
        self.backend_cpu: dict[int, float] = {}  # pid -> last seen CPU seconds (a closed backend keeps its last)
        self.thread = threading.Thread(target=self._run, daemon=True)
        with self.pg.cursor() as cursor:
            cursor.execute("SHOW autovacuum")
            self.autovacuum = cursor.fetchone()[0] == "on"
        self.vacuums = 0
        self.vacuum_thread = threading.Thread(target=self._vacuum, daemon=True)

    def start(self) -> None:
        self.started = time.monotonic()
        self.thread.start()
        if not self.autovacuum:
            self.vacuum_thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join()
        if self.vacuum_thread.is_alive():
            self.vacuum_thread.join()
        self.pg.close()

    def _vacuum(self) -> None:
        """With the server's autovacuum off (as here), VACUUM ANALYZE the database every
        VACUUM_EVERY_S, as autovacuum's launcher would (naptime 1 min): without statistics the
        planner picks plans for empty tables, and a large batch runs on them (nightly_planning.py
        saw `record_facts`' same-bytes query scan the whole batch for every document).  Its
        backend's CPU counts as PostgreSQL's, as autovacuum's would."""
        connection = psycopg2.connect(f"postgresql://postgres@127.0.0.1:5432/{self.database}")
        connection.autocommit = True
        try:
            while not self._stop.wait(VACUUM_EVERY_S):
                with connection.cursor() as cursor:
                    cursor.execute("VACUUM ANALYZE")
                self.vacuums += 1
        finally:
            connection.close()

    def _run(self) -> None:
        from workers.broker import queue_lengths

        while not self._stop.is_set():
            with self.pg.cursor() as cursor:
                cursor.execute("SELECT pid, state, wait_event_type, wait_event FROM pg_stat_activity "
                               "WHERE datname = %s AND pid <> pg_backend_pid()", (self.database,))
                backends = cursor.fetchall()
                cursor.execute("SELECT count(*) FILTER (WHERE status = ANY(%s)), "
                               "(SELECT status FROM batches WHERE id = %s) FROM documents WHERE batch_id = %s",
                               (list(ENDED), self.batch_id, self.batch_id))
                ended, batch_status = cursor.fetchone()
            for pid, *_ in backends:
                if fields := _stat(str(pid)):
                    self.backend_cpu[pid] = sum(int(v) for v in fields[11:13]) / TICK
            info = self.redis.info("cpu")
            cpu = {"cpu workers": sum(group_cpu_s(w.process.pid) for w in self.workers if w.queue == "cpu"),
                   "gpu worker": sum(group_cpu_s(w.process.pid) for w in self.workers if w.queue == "gpu"),
                   "postgres": sum(self.backend_cpu.values()),
                   "redis": info["used_cpu_sys"] + info["used_cpu_user"]}
            active = [b for b in backends if b[1] == "active"]
            self.samples.append(Sample(
                time.monotonic() - self.started, {str(q): n for q, n in queue_lengths(self.settings).items()},
                self.redis.hlen("unacked"), cpu, machine_busy_s(), len(active),
                Counter(f"{b[2]}:{b[3]}" for b in active if b[2]), ended or 0))
            if batch_status == "done":
                self.done = True
            self._stop.wait(INTERVAL_S)


# --- reading what happened ------------------------------------------------------------------

def pg_counters(database: str) -> dict[str, float]:
    with psycopg2.connect(ADMIN_URL) as connection, connection.cursor() as cursor:
        cursor.execute("SELECT xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, tup_fetched, "
                       "tup_returned, active_time, sessions FROM pg_stat_database WHERE datname = %s", (database,))
        row = cursor.fetchone()
    names = ("commits", "rollbacks", "inserted", "updated", "deleted", "fetched", "returned", "active_ms", "sessions")
    return dict(zip(names, (float(v or 0) for v in row)))


def table_sizes(database: str) -> list[tuple[str, int, int]]:
    """(table, rows, bytes with indexes and TOAST) of every table, largest first."""
    with psycopg2.connect(f"postgresql://postgres@127.0.0.1:5432/{database}") as connection, connection.cursor() as cursor:
        cursor.execute("SELECT relname, pg_total_relation_size(relid) FROM pg_stat_user_tables ORDER BY 2 DESC")
        tables = cursor.fetchall()
        sized = []
        for name, size in tables:
            cursor.execute(f'SELECT count(*) FROM "{name}"')
            sized.append((name, cursor.fetchone()[0], size))
    return sized


def batch_facts(database: str, batch_id: str) -> dict:
    with psycopg2.connect(f"postgresql://postgres@127.0.0.1:5432/{database}") as connection, connection.cursor() as cursor:
        cursor.execute("SELECT extract(epoch FROM finished_at - created_at) FROM batches WHERE id = %s", (batch_id,))
        wall = cursor.fetchone()[0]
        cursor.execute("SELECT status, timings FROM documents WHERE batch_id = %s", (batch_id,))
        rows = cursor.fetchall()
        cursor.execute("SELECT count(*) FROM recoveries")
        resent = cursor.fetchone()[0]
    stages: dict[str, float] = defaultdict(float)
    for _, timings in rows:
        for stage, seconds in (timings or {}).items():
            stages[stage] += seconds
    return {"wall": float(wall) if wall is not None else None, "statuses": Counter(s for s, _ in rows),
            "stages": dict(stages), "resent": resent}


_TASK = re.compile(r"Task (clausemill\.\w+\.\w+)\[[^\]]+\] (succeeded in ([0-9.e-]+)s|retry|raised)")


def task_log(workers: list[Worker]) -> tuple[Counter, dict[str, float], Counter]:
    """Per task name: succeeded, their run time (Celery's own count), and retries or errors."""
    done, seconds, other = Counter(), defaultdict(float), Counter()
    for w in workers:
        for match in _TASK.finditer(w.log.read_text(errors="replace")):
            if match.group(3):
                done[match.group(1)] += 1
                seconds[match.group(1)] += float(match.group(3))
            else:
                other[f"{match.group(1)} {match.group(2)}"] += 1
    return done, dict(seconds), other


# --- one size --------------------------------------------------------------------------------

def run_size(count: int, args: argparse.Namespace, work: Path) -> dict:
    from pipelines.settings import Settings

    folder = work / f"contracts-{count}"
    started = time.perf_counter()
    size = write_contracts(folder, count)
    print(f"\n== {count:,} contracts ({size / count / 1024:.1f} KB each) written in {time.perf_counter() - started:.0f} s",
          flush=True)
    database = f"clausemill_control_{os.getpid()}_{count}"
    broker_url = f"{REDIS_URL}/{args.redis_db}"
    client = redis.Redis.from_url(broker_url)
    if client.dbsize():
        raise SystemExit(f"Redis database {args.redis_db} holds {client.dbsize()} keys: name an empty one (--redis-db)")
    admin = psycopg2.connect(ADMIN_URL)
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{database}"')
    data = work / f"data-{count}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUSEMILL_")}
    env.update(CLAUSEMILL_DATA_DIR=str(data), CLAUSEMILL_BROKER_URL=broker_url, CLAUSEMILL_RESULT_BACKEND=broker_url,
               CLAUSEMILL_DATABASE_URL=f"postgresql+psycopg2://postgres@127.0.0.1:5432/{database}",
               CLAUSEMILL_MODEL_ENABLED=str(args.model).lower(), PYTHONPATH=str(REPO))
    settings = Settings(data_dir=data, broker_url=broker_url, result_backend=broker_url,
                        database_url=env["CLAUSEMILL_DATABASE_URL"], model_enabled=args.model)
    workers: list[Worker] = []
    batch_id = f"control-{count}"
    try:
        subprocess.run([sys.executable, "-m", "pipelines.cli", "migrate"], env=env, cwd=REPO, check=True,
                       capture_output=True)
        before = pg_counters(database)
        workers = [start_worker("cpu", env, work, args.cpu_concurrency)]
        if args.model:
            workers.append(start_worker("gpu", env, work, None))
        ready_s = wait_ready(workers)
        sampler = Sampler(settings, database, batch_id, workers)
        sampler.start()
        submitted = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pipelines.cli", "audit", str(folder), "--no-wait", "--batch-id", batch_id],
                       env=env, cwd=REPO, check=True, capture_output=True)
        submit_s = time.perf_counter() - submitted
        next_progress = PROGRESS_EVERY_S
        try:
            while not sampler.done and time.perf_counter() - submitted < args.timeout:
                time.sleep(INTERVAL_S)
                if time.perf_counter() - submitted >= next_progress:
                    progress(sampler.samples, count)
                    next_progress += PROGRESS_EVERY_S
        except KeyboardInterrupt:  # a long run stopped by hand still reports what it did
            print("!! interrupted", flush=True)
        client_wall = time.perf_counter() - submitted
        sampler.stop()
        if not sampler.autovacuum:
            print(f"(the server's autovacuum is off: this script ran VACUUM ANALYZE {sampler.vacuums} time(s) in its place)")
        if not sampler.done:
            print(f"!! the batch did not end within {args.timeout:.0f} s: figures are of what it did", flush=True)
        tasks, task_seconds, other = task_log(workers)
        for w in workers:
            w.stop()
        workers = []
        time.sleep(1.5)  # the workers' sessions have ended, so their statistics are in pg_stat_database
        after = pg_counters(database)
        facts = batch_facts(database, batch_id)
        sizes = table_sizes(database)
    finally:
        for w in workers:
            w.stop()
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.close()
        client.flushdb()
    return {"count": count, "ready_s": ready_s, "submit_s": submit_s, "client_wall": client_wall,
            "samples": sampler.samples, "tasks": tasks, "task_seconds": task_seconds, "other": other,
            "db": {k: after[k] - before[k] for k in after}, "facts": facts, "sizes": sizes}


# --- what it prints --------------------------------------------------------------------------

def progress(samples: list[Sample], n: int) -> None:
    """One line every PROGRESS_EVERY_S, so that a run of hours shows how it goes while it runs."""
    if len(samples) < 2:
        return
    first, last = samples[0], samples[-1]
    span = max(last.t - first.t, 1e-9)
    print(f"  {last.t / 60:.0f} min: {last.ended:,} of {n:,} ended ({60 * last.ended / span:.1f}/min so far); queued " +
          ", ".join(f"{q} {v:,}" for q, v in last.queued.items()) + "; cores " +
          ", ".join(f"{role} {(last.cpu_s[role] - first.cpu_s[role]) / span:.2f}" for role in ROLES) +
          f", machine {(last.machine_s - first.machine_s) / span:.2f}", flush=True)


def report(r: dict, cores: int) -> dict:
    """Print one size's figures; returns the headline numbers for the comparison table."""
    facts, samples = r["facts"], r["samples"]
    n = max(sum(facts["statuses"][s] for s in ENDED), 1)  # all of them, unless the run was stopped or timed out
    if n < r["count"]:
        print(f"!! {n:,} of {r['count']:,} documents ended: the rates below are over those")
    wall = facts["wall"] or r["client_wall"]
    tasks = sum(r["tasks"].values())
    run_s = sum(r["task_seconds"].values())
    stage_s = sum(facts["stages"].values())
    first, last = samples[0], samples[-1]
    cpu = {role: last.cpu_s[role] - first.cpu_s[role] for role in ROLES}
    machine = last.machine_s - first.machine_s
    span = last.t - first.t
    print(f"workers ready in {r['ready_s']:.0f} s; `clausemill audit --no-wait` took {r['submit_s']:.1f} s "
          f"(registering {n:,} documents and sending their chains)")
    first_ended = next((s.t for s in samples if s.ended), float("nan"))
    print(f"documents: {dict(facts['statuses'])}; re-sent by the recovery sweep: {facts['resent']}; the first "
          f"document ended {first_ended:.0f} s into the batch (a document's later stages are taken before other "
          f"documents' earlier ones: pipelines/dag.py StageSpec.turn)")
    print(f"batch wall {wall:.1f} s (created -> finished, from the database): **{60 * n / wall:.1f} documents/min**, "
          f"**{tasks / wall:.1f} tasks/s** ({tasks:,} tasks, {tasks / n:.2f} per document)")
    print("tasks (Celery's 'succeeded in'): " + ", ".join(
        f"{name.split('.')[-1]} {count:,} ({1000 * r['task_seconds'][name] / count:.0f} ms)"
        for name, count in r["tasks"].most_common()))
    if r["other"]:
        print(f"retries and errors: {dict(r['other'])}")
    print(f"stage time per document {1000 * stage_s / n:.0f} ms (" + ", ".join(
        f"{s} {1000 * v / n:.0f}" for s, v in sorted(facts["stages"].items(), key=lambda kv: -kv[1])) +
        f"); task run time per document {1000 * run_s / n:.0f} ms: bookkeeping around the stages "
        f"{1000 * (run_s - stage_s) / max(tasks, 1):.1f} ms per task")
    print(f"CPU over the batch ({span:.0f} s sampled, {cores} cores = {cores * span:.0f} core-s): machine busy "
          f"{machine:.0f} core-s ({100 * machine / (cores * span):.0f}%); " + ", ".join(
              f"{role} {cpu[role]:.0f} ({cpu[role] / span:.2f} cores, {1000 * cpu[role] / max(tasks, 1):.1f} ms/task)"
              for role in ROLES) + "  [redis: the whole server]")
    db = r["db"]
    print(f"PostgreSQL: {db['commits']:,.0f} commits ({db['commits'] / max(tasks, 1):.1f} per task, "
          f"{db['commits'] / n:.0f} per document), "
          f"{db['rollbacks']:,.0f} rollbacks; rows inserted {db['inserted'] / n:,.0f}, updated "
          f"{db['updated'] / n:,.0f}, deleted {db['deleted'] / n:,.0f} per document; statements executing "
          f"{db['active_ms'] / 1000:.0f} s in all (active_time): **{db['active_ms'] / max(tasks, 1):.1f} ms per task**, "
          f"{db['active_ms'] / n:.0f} ms per document; backends' CPU {1000 * cpu['postgres'] / n:.0f} ms per document; "
          f"backends executing at a sample: mean {statistics.mean(s.active for s in samples):.2f}, "
          f"max {max(s.active for s in samples)}")
    waits = sum((s.waits for s in samples), Counter())
    if waits:
        print("  what executing backends waited on (samples): " + ", ".join(f"{k} {v}" for k, v in waits.most_common(6)))
    timeline(samples, n)
    bottleneck(samples, cpu, machine, span, cores)
    total_rows = total_bytes = 0
    print("\n| table | rows | rows per contract | MB | bytes per contract |\n| --- | ---: | ---: | ---: | ---: |")
    for name, rows, size in r["sizes"]:
        total_rows, total_bytes = total_rows + rows, total_bytes + size
        if rows or size > 100_000:
            print(f"| {name} | {rows:,} | {rows / n:,.1f} | {size / 2**20:,.1f} | {size / n:,.0f} |")
    print(f"| all tables | {total_rows:,} | {total_rows / n:,.1f} | {total_bytes / 2**20:,.1f} | {total_bytes / n:,.0f} |")
    return {"n": n, "wall": wall, "docs_min": 60 * n / wall, "tasks_s": tasks / wall, "tasks": tasks,
            "db_ms_task": db["active_ms"] / max(tasks, 1), "commits_task": db["commits"] / max(tasks, 1),
            "rows_doc": total_rows / n, "bytes_doc": total_bytes / n, "cpu": cpu, "span": span,
            "max_queue": {q: max(s.queued[q] for s in samples) for q in samples[0].queued}}


def timeline(samples: list[Sample], n: int, rows: int = 12) -> None:
    """Queue lengths and cores used per role, over the batch."""
    print("\n| t s | cpu queued | gpu queued | unacked | cpu workers cores | gpu worker cores | postgres cores | "
          "redis cores | machine cores | ended |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    picks = sorted({round(i * (len(samples) - 1) / rows) for i in range(rows + 1)})
    for a, b in zip(picks, picks[1:]):
        s, e = samples[a], samples[b]
        dt = max(e.t - s.t, 1e-9)
        print(f"| {e.t:.0f} | {e.queued.get('cpu', 0):,} | {e.queued.get('gpu', 0):,} | {e.unacked} | " + " | ".join(
            f"{(e.cpu_s[role] - s.cpu_s[role]) / dt:.2f}" for role in ROLES) +
            f" | {(e.machine_s - s.machine_s) / dt:.2f} | {e.ended:,} |")


def bottleneck(samples: list[Sample], cpu: dict[str, float], machine: float, span: float, cores: int) -> None:
    """Where it saturates, from the samples: the queue holding the backlog, and the cores."""
    middle = samples[len(samples) // 10: len(samples) * 9 // 10] or samples
    held = {q: statistics.mean(s.queued[q] for s in middle) for q in middle[0].queued}
    busy = machine / (cores * span)
    plane = (cpu["postgres"] + cpu["redis"]) / max(machine, 1e-9)
    queue = max(held, key=held.get)  # type: ignore[arg-type]
    print(f"\nsaturation: over the middle 80% of the batch the {queue} queue held {held[queue]:,.0f} messages on "
          f"average (" + ", ".join(f"{q} {v:,.0f}" for q, v in held.items()) + f"); the machine was {100 * busy:.0f}% "
          f"busy, PostgreSQL and Redis together {100 * plane:.0f}% of that")


def compare(rows: list[dict]) -> None:
    print("\n| contracts | batch wall s | documents/min | tasks/s | DB ms per task | commits per task | rows per contract | "
          "bytes per contract | cpu workers cores | gpu worker cores | postgres cores | redis cores | max cpu / gpu queued |\n"
          "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['n']:,} | {r['wall']:.0f} | {r['docs_min']:.1f} | {r['tasks_s']:.1f} | {r['db_ms_task']:.1f} | "
              f"{r['commits_task']:.1f} | {r['rows_doc']:,.0f} | {r['bytes_doc']:,.0f} | " +
              " | ".join(f"{r['cpu'][role] / r['span']:.2f}" for role in ROLES) +
              f" | {r['max_queue'].get('cpu', 0):,} / {r['max_queue'].get('gpu', 0):,} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", type=int, nargs="*", default=[1000], help="Contracts per batch, one run each.")
    parser.add_argument("--model", action=argparse.BooleanOptionalAction, default=True,
                        help="Start the gpu worker with the model (the default), or audit with rules only.")
    parser.add_argument("--cpu-concurrency", type=int, help="cpu worker processes (default: one per core).")
    parser.add_argument("--redis-db", type=int, default=11, help="An empty Redis database number.")
    parser.add_argument("--timeout", type=float, default=1800, help="Give up on a batch after this many seconds.")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    print(f"{platform.node()}: {cores} cores, Python {platform.python_version()}; Redis and PostgreSQL on 127.0.0.1; "
          f"model {'on' if args.model else 'off'}")
    headline = []
    with tempfile.TemporaryDirectory(prefix="clausemill-control-") as tmp:
        for count in args.sizes:
            headline.append(report(run_size(count, args, Path(tmp)), cores))
    compare(headline)


if __name__ == "__main__":
    main()
