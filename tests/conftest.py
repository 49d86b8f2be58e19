"""Shared fixtures: real worker processes, real Redis and PostgreSQL, real sample files."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CUAD = SHARED / "data" / "cuad"
REDIS_URL = "redis://127.0.0.1:6379"
POSTGRES_ADMIN_URL = "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres"

CONFIG_VARIABLES = ("CLAUSEMILL_BROKER_URL", "CLAUSEMILL_RESULT_BACKEND", "CLAUSEMILL_DATABASE_URL", "CLAUSEMILL_CONFIG")


SLOWEST_FIRST = ("test_multihost.py", "test_watch.py", "test_dag_server.py", "test_recovery.py", "test_prune.py",
                 "test_finetuning.py", "test_web_items.py", "test_clause_types.py", "test_nightly.py",
                 "test_dag_embedded.py", "test_monitoring.py", "test_cluster.py", "test_review_recalibration.py",
                 "test_web_acceptance.py", "test_clause_types_acceptance.py", "test_web_clause_types.py")
"""Test files of over 40 s, longest first (`--durations`, two processes).  `make test` runs a file
per process at a time in this order (--no-loadscope-reorder): the longest start at once and the
short ones fill in behind them, so neither process waits alone at the end."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: each file keeps its order


@pytest.fixture(scope="session")
def cuad_dir() -> Path:
    if not (CUAD / "pdf").is_dir():
        pytest.skip(f"CUAD data not found at {CUAD} (it lies in ../shared beside the repo in CI and dev sessions)")
    return CUAD


@pytest.fixture(scope="session")
def sample_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic samples `clausemill samples` writes, made once per test session."""
    from pipelines.samples import write_samples

    folder = tmp_path_factory.mktemp("samples")
    write_samples(folder)
    return folder


def expected_outcomes(sample_dir: Path) -> dict[str, str]:
    """File name -> the status the pipeline must end it with, from the samples' manifest."""
    manifest = json.loads((sample_dir / "expected.json").read_text())
    return {entry["file"]: entry["status"] for entry in manifest["files"]}


def some_samples(sample_dir: Path, folder: Path, names: tuple[str, ...]) -> Path:
    """`folder`, made, with links to the named samples: for a test about something other than
    the whole set (the scan's OCR is most of an audit of the samples)."""
    folder.mkdir()
    for name in names:
        (folder / name).symlink_to(sample_dir / name)
    return folder


TEXT_SAMPLES = ("distribution-brightwater-northwind.pdf", "msa-meridian-granite.txt", "license-granite-meridian.pdf",
                "supply-brightwater-granite.pdf")
"""Samples with a text layer: audited in a few seconds."""


def base_env(data_dir: Path) -> dict[str, str]:
    """The environment of a clausemill process under test.  One model process, not one per core
    (2 here): two test files run at once, and each process loads the model; the session's audit
    (audited_samples) keeps the default."""
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARIABLES}
    env.update(CLAUSEMILL_DATA_DIR=str(data_dir), OMP_THREAD_LIMIT="1", PYTHONPATH=str(REPO), COLUMNS="200",
               CLAUSEMILL_MODEL_PROCESSES="1")
    return env


def run_cli(args: list[str], env: dict[str, str], timeout: float = 600,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
    """`clausemill ARGS` in a process of its own; `input`, when given, is its stdin."""
    return subprocess.run([sys.executable, "-m", "pipelines.cli", *args], env=env, cwd=REPO, input=input,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture()
def embedded_env(tmp_path: Path) -> dict[str, str]:
    return base_env(tmp_path / "data")


AUDITED_BATCH = "samples"


@pytest.fixture(scope="session")
def audited_samples(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The samples audited once per session by embedded workers, model on: a folder with the
    data folder (`data/`, batch AUDITED_BATCH) and the audit's reports (`report/`).

    An audit of the samples takes 25-50 s on two cores; tests that start from an audited batch
    copy this one (audited_env) instead of auditing again."""
    folder = tmp_path_factory.mktemp("audited")
    env = base_env(folder / "data")
    del env["CLAUSEMILL_MODEL_PROCESSES"]  # the launcher's own choice (test_dag_embedded checks it)
    result = run_cli(["audit", str(sample_dir), "--out", str(folder / "report"), "--batch-id", AUDITED_BATCH], env)
    assert result.returncode == 0, result.stdout + result.stderr
    return folder


@pytest.fixture()
def audited_env(audited_samples: Path, tmp_path: Path) -> dict[str, str]:
    """An embedded environment whose data folder is a copy of audited_samples' (the workers
    that wrote it have exited, so the SQLite file is whole)."""
    shutil.copytree(audited_samples / "data", tmp_path / "data")
    return base_env(tmp_path / "data")


def sqlite_url(env: dict[str, str]) -> str:
    """The embedded database of an environment's data folder."""
    return f"sqlite:///{Path(env['CLAUSEMILL_DATA_DIR']) / 'clausemill.sqlite'}"


def _services_up() -> str | None:
    """Why Redis or PostgreSQL cannot be used, or None when both answer."""
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except Exception as error:  # noqa: BLE001 - any failure means "not available"
        return f"Redis not reachable at {REDIS_URL}: {error}"
    return _postgres_up()


def _postgres_up() -> str | None:
    """Why PostgreSQL cannot be used, or None when it answers."""
    import sqlalchemy

    try:
        with sqlalchemy.create_engine(POSTGRES_ADMIN_URL).connect():
            pass
    except Exception as error:  # noqa: BLE001 - any failure means "not available"
        return f"PostgreSQL not reachable at {POSTGRES_ADMIN_URL}: {error}"
    return None


def _skip_unless(reason: str | None) -> None:
    """Skip the test for `reason`, or fail it in CI, where the services must be running."""
    if reason:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@contextmanager
def postgres_database() -> Iterator[str]:
    """The URL of a fresh PostgreSQL database, dropped afterwards; skips when PostgreSQL is down."""
    import sqlalchemy

    _skip_unless(_postgres_up())
    name = f"clausemill_test_{uuid.uuid4().hex[:8]}"
    admin = sqlalchemy.create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg2://postgres@127.0.0.1:5432/{name}"
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def copy_database(source_url: str, target_url: str) -> None:
    """Every row of one clausemill database into another, empty one migrated to the same
    schema: the session's embedded audit served from PostgreSQL without auditing it again."""
    from sqlalchemy import Integer, insert, select, text

    from storage import schema
    from storage.database import get_engine

    source, target = get_engine(source_url, write=False), get_engine(target_url)
    with source.connect() as reading, target.begin() as writing:
        for table in schema.Base.metadata.sorted_tables:
            rows = [dict(row._mapping) for row in reading.execute(select(table))]
            if rows:
                writing.execute(table.delete())  # a row the migrations seed (portfolio_marks) comes from the source
                writing.execute(insert(table), rows)
            if "id" in table.c and isinstance(table.c.id.type, Integer) and target.dialect.name == "postgresql":
                writing.execute(text(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                                     f"COALESCE((SELECT MAX(id) FROM {table.name}), 0) + 1, false)"))


@pytest.fixture()
def server_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A fresh PostgreSQL database and Redis database for one test, in server mode.  Tests run
    in two processes (`make test`: pytest-xdist), each with a Redis database of its own."""
    import redis

    _skip_unless(_services_up())
    with postgres_database() as database_url:
        redis_db = 13 + int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
        redis.Redis.from_url(f"{REDIS_URL}/{redis_db}").flushdb()
        yield _server_mode_env(tmp_path, redis_db, database_url)
        redis.Redis.from_url(f"{REDIS_URL}/{redis_db}").flushdb()


def _server_mode_env(tmp_path: Path, redis_db: int, database_url: str) -> dict[str, str]:
    env = base_env(tmp_path / "data")
    env.update(
        CLAUSEMILL_BROKER_URL=f"{REDIS_URL}/{redis_db}",
        CLAUSEMILL_RESULT_BACKEND=f"{REDIS_URL}/{redis_db}",
        CLAUSEMILL_DATABASE_URL=database_url,
        # Longer than any task may run (Settings refuses less: limit + 10 s grace), short enough
        # that the SIGKILL tests see a dead worker's tasks come back within a minute.  A sample's
        # page is OCRed in 1-4 s on an idle machine, but in over 10 s with two workers and the
        # model beside it on two slow cores, so a page's parse gets its stage's 25 s less 2 s.
        CLAUSEMILL_VISIBILITY_TIMEOUT_S="37",
        **{f"CLAUSEMILL_{kind}_TIME_LIMIT_S": "20" for kind in ("INGEST", "EXTRACT", "ANALYSE")},
        CLAUSEMILL_OCR_PAGE_TIME_LIMIT_S="25",
        CLAUSEMILL_PARSE_TIME_MARGIN_S="2",
    )
    return env


class WorkerProcess:
    """A real `clausemill worker` in its own process group."""

    def __init__(self, env: dict[str, str], queue: str, concurrency: int, log: Path,
                 program: tuple[str, ...] = ("-m", "pipelines.cli")) -> None:
        self.log = log
        with open(log, "ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, *program, "worker", "--queues", queue, "--concurrency", str(concurrency)],
                env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )

    def children(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return [int(pid) for pid in out.split()]

    def kill(self, sig: signal.Signals = signal.SIGKILL) -> None:
        try:
            os.killpg(self.process.pid, sig)
        except ProcessLookupError:
            pass

    def stop(self) -> None:
        self.kill(signal.SIGTERM)
        self.wait_stopped()

    def wait_stopped(self) -> None:
        """After a SIGTERM: the warm shutdown, or SIGKILL once it has taken 20 s."""
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill(signal.SIGKILL)
            self.process.wait()


@pytest.fixture()
def start_worker(tmp_path: Path) -> Iterator:
    started: list[WorkerProcess] = []

    def start(env: dict[str, str], queue: str = "cpu", concurrency: int = 2,
              program: tuple[str, ...] = ("-m", "pipelines.cli")) -> WorkerProcess:
        """`program`: the Python arguments that run the CLI (a script that wraps it, say)."""
        worker = WorkerProcess(env, queue, concurrency, tmp_path / f"{queue}-{len(started)}.log", program)
        started.append(worker)
        return worker

    yield start
    for worker in started:  # all told first: each warm shutdown takes a few seconds
        worker.kill(signal.SIGTERM)
    for worker in started:
        worker.wait_stopped()
        # pytest shows a fixture's teardown output only when its test failed: then it says why
        print(f"--- last lines of {worker.log.name} ---\n{log_tail(worker.log)}")


def log_tail(path: Path, lines: int = 60) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else "(no log)"


def wait_until(predicate, timeout: float, interval: float = 0.2, message: str = "condition") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {message}")


def free_port() -> int:
    """A TCP port nobody listens on now, for a server a test starts."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated database: SQLite in the test's folder, then a fresh PostgreSQL database."""
    from storage.migrate import upgrade

    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'clausemill.sqlite'}"
    else:
        env = request.getfixturevalue("server_env")
        url = env["CLAUSEMILL_DATABASE_URL"]
    upgrade(url)
    return url


def processes_using(data_dir: str) -> list[int]:
    """Processes whose environment points at this data dir: workers that outlived their run."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"CLAUSEMILL_DATA_DIR={data_dir}".encode() in environ.read_bytes().split(b"\0"):
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found
