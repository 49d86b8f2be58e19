"""The batch ledger's question, "is any document of the batch still open?", in a batch of 20,000
on PostgreSQL: as a count of the open rows (before 2026-12-08) and as EXISTS (what
storage.repository.finalize_batch_if_complete asks now), with 0, 10,000, 19,900 and 19,999 of
them done.  Every document that ends asks it once, so at 20,000 the count was read 20,000 times.

    python ops/benchmarks/batch_ledger.py [--documents 20000]

Makes a PostgreSQL database of its own on 127.0.0.1:5432 and drops it at the end.
"""
from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path

import psycopg2
from sqlalchemy import exists, func, select, text, update

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from pipelines import datamodel as dm  # noqa: E402
from storage import repository, schema  # noqa: E402
from storage.database import session_scope  # noqa: E402
from storage.migrate import upgrade  # noqa: E402

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
CALLS = 50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=20000)
    args = parser.parse_args()
    name = f"clausemill_ledger_{uuid.uuid4().hex[:6]}"
    admin = psycopg2.connect(ADMIN_URL)
    admin.autocommit = True
    admin.cursor().execute(f'CREATE DATABASE "{name}"')
    url = f"postgresql+psycopg2://postgres@127.0.0.1:5432/{name}"
    D = schema.Document
    is_open = (D.batch_id == "b", D.status.not_in(dm.TERMINAL_STATUSES))
    asks = {"count (before)": select(func.count()).where(*is_open), "exists (now)": select(exists().where(*is_open))}
    try:
        upgrade(url)
        with session_scope(url) as session:
            ids = repository.create_batch(session, "b", [Path(f"/c/{i}.txt") for i in range(args.documents)], {})
        print(f"| documents done of {args.documents:,} | " + " | ".join(f"{a}, ms" for a in asks) + " |\n"
              "| ---: | " + " | ".join("---:" for _ in asks) + " |")
        for done in (0, args.documents // 2, args.documents - 100, args.documents - 1):
            with session_scope(url) as session:
                session.execute(update(D).where(D.id.in_(ids[:done])).values(status=dm.DocumentStatus.DONE))
            with session_scope(url) as session:
                session.execute(text("ANALYZE"))
            timings = []
            for query in asks.values():
                with session_scope(url, write=False) as session:
                    session.scalar(query)
                    started = time.perf_counter()
                    for _ in range(CALLS):
                        session.scalar(query)
                    timings.append(1000 * (time.perf_counter() - started) / CALLS)
            print(f"| {done:,} | " + " | ".join(f"{t:.2f}" for t in timings) + " |", flush=True)
    finally:
        admin.cursor().execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


if __name__ == "__main__":
    main()
