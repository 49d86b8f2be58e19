"""Engines and sessions for SQLite (embedded default) and PostgreSQL.

SQLite is shared by several worker processes, so it runs in WAL mode and every writing
transaction starts with BEGIN IMMEDIATE: a writer waits for the lock (busy_timeout) instead of
failing when a read transaction would have to be upgraded.  Read-only scopes begin deferred,
so progress polls and stage inputs never queue behind writers (WAL readers do not block).
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.orm import Session, sessionmaker

POSTGRES_CONNECTION = {"connect_timeout": 10, "keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10,
                       "keepalives_count": 3, "tcp_user_timeout": 60_000}
"""libpq's connection parameters (psycopg2 and psycopg 3 pass them on), where the URL sets none.
Without them a connection to a database host that vanished (a failover to another address, a
host powered off, a partition that outlasts the statement) waits for the kernel: a new one for
some two minutes of SYN retries, and a statement awaiting its answer for ever, with the worker
holding its document the while.  With them a connection fails within a minute or so, the task
fails as an infrastructure error and is retried, and the pool's pre-ping opens a fresh one."""

_engines: dict[tuple[str, bool], Engine] = {}
_session_factories: dict[Engine, sessionmaker[Session]] = {}
"""One sessionmaker per engine: building one defines a Session subclass and its event
dispatch, which cost more than the small transactions of a task's bookkeeping."""
_lock = threading.Lock()
_migrated: set[str] = set()
"""URLs this process has brought to the current schema; kept across a fork, since the
parent's migration holds for its children."""
_migrate_lock = threading.Lock()


def _configure_sqlite(engine: Engine, write: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None  # let the "begin" hook below issue BEGIN
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=60000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:  # type: ignore[no-untyped-def]
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def get_engine(url: str, write: bool = True) -> Engine:
    """One engine per URL (and, for SQLite, per read/write role) per process; the first time a
    process opens a URL, the database is migrated to the current schema.

    Call `dispose_engines` after a fork.
    """
    engine = _engine(url, write)
    if url not in _migrated:
        with _migrate_lock:
            if url not in _migrated:
                from storage.migrate import upgrade_engine

                upgrade_engine(_engine(url, write=True))
                _migrated.add(url)
    return engine


def _engine(url: str, write: bool) -> Engine:
    sqlite = url.startswith("sqlite")
    key = (url, write or not sqlite)
    with _lock:
        engine = _engines.get(key)
        if engine is None:
            if sqlite:
                path = url.split("///", 1)[-1]
                if path and path != ":memory:":
                    Path(path).parent.mkdir(parents=True, exist_ok=True)
                engine = create_engine(url, connect_args={"timeout": 60})
                _configure_sqlite(engine, write)
            else:
                # psycopg2 sends an executemany UPDATE a row per round trip unless told to batch
                # (a nightly run's planning updates every document of a 100,000-file batch).
                parsed = make_url(url)
                batching = {"executemany_mode": "values_plus_batch"} if parsed.get_driver_name() == "psycopg2" else {}
                connection = {name: value for name, value in POSTGRES_CONNECTION.items() if name not in parsed.query}
                engine = create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5, connect_args=connection,
                                       **batching)
            _engines[key] = engine
            _session_factories[engine] = sessionmaker(bind=engine, expire_on_commit=False)
        return engine


def dispose_engines() -> None:
    """Forget connections inherited from a parent process; a forked child must not share them."""
    with _lock:
        for engine in _engines.values():
            engine.dispose(close=False)
        _engines.clear()
        _session_factories.clear()


@contextmanager
def session_scope(url: str, write: bool = True) -> Iterator[Session]:
    """A transaction: committed when the block ends, rolled back if it raises.

    `write=False` promises the block only reads (on SQLite it then never takes the write lock).
    """
    with _session_factories[get_engine(url, write)]() as session, session.begin():
        yield session
