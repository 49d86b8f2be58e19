"""Does the review queue stay fast at 100,000 items?  Counting and listing, with each filter.

Seeds a database with N review items (default 100,000) over 2,000 documents of 20 batches,
with random categories, priorities, statuses (10% decided) and assignees (5%), then times
pipelines.review.listing.list_queue (the count per status plus one page) for the first page, a deep
page, and each filter.  Best of three, in milliseconds.

    python ops/benchmarks/review_queue.py                      # a temporary SQLite file
    python ops/benchmarks/review_queue.py --database-url postgresql+psycopg://...   # an empty database
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from sqlalchemy import insert  # noqa: E402

from pipelines.categories import CUAD_CATEGORIES  # noqa: E402
from pipelines.playbook.severity import WEIGHTS  # noqa: E402
from pipelines.review.listing import QueueFilters, list_queue  # noqa: E402
from storage import schema  # noqa: E402
from storage.database import session_scope  # noqa: E402
from storage.migrate import upgrade  # noqa: E402

DOCUMENTS, BATCHES = 2_000, 20


def seed(url: str, items: int) -> None:
    rng = random.Random(7)
    with session_scope(url) as session:
        session.execute(insert(schema.Batch), [{"id": f"b{i}", "status": "done", "options": {}} for i in range(BATCHES)])
        session.execute(insert(schema.Document), [
            {"id": d + 1, "batch_id": f"b{d % BATCHES}", "filename": f"contract-{d}.pdf", "path": f"/c/{d}.pdf",
             "status": "done"} for d in range(DOCUMENTS)])
        rows = []
        for row in review_item_rows(rng, items, DOCUMENTS):
            rows.append(row)
            if len(rows) == 10_000:
                session.execute(insert(schema.ReviewItem), rows)
                rows = []
        if rows:
            session.execute(insert(schema.ReviewItem), rows)


def review_item_rows(rng: random.Random, items: int, documents: int) -> Iterator[dict]:
    """`items` review items over documents 1..`documents`: random categories, priorities and
    stakes, 10% decided, 5% assigned to one of reviewer0..reviewer4 (web_scale.py seeds the
    same queue)."""
    for i in range(items):
        stakes = rng.choice(list(WEIGHTS))
        yield {"document_id": rng.randrange(documents) + 1, "category": rng.choice(CUAD_CATEGORIES),
               "reason": "unsure", "priority": round(rng.random(), 4),
               "status": "decided" if rng.random() < 0.1 else "open",
               "assignee": f"reviewer{rng.randrange(5)}" if rng.random() < 0.05 else None,
               "severity": stakes,
               "evidence": {"text": "quote", "start": i, "end": i + 5, "page": 1,
                            "priority_parts": {"stakes": stakes, "weight": WEIGHTS[stakes], "p_wrong": 0.5}}}


def timed(url: str, filters: QueueFilters, visible_to: str | None = None) -> tuple[float, int]:
    best, total = float("inf"), 0
    for _ in range(3):
        started = time.perf_counter()
        with session_scope(url, write=False) as session:
            page = list_queue(session, filters, visible_to)
        best, total = min(best, time.perf_counter() - started), page.total
    return best * 1000, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--database-url", help="An empty database (default: a temporary SQLite file).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{Path(folder) / 'queue.sqlite'}"
        upgrade(url)
        seed(url, args.items)
        cases = {
            "first page": (QueueFilters(), None),
            "page 1,000": (QueueFilters(page=1000), None),
            "a reviewer's view (assigned to them or nobody)": (QueueFilters(), "reviewer1"),
            "batch": (QueueFilters(batch="b3"), None),
            "contract": (QueueFilters(contract="contract-42.pdf"), None),
            "category": (QueueFilters(category="Non-Compete"), None),
            "severity": (QueueFilters(severity="high"), None),
            "assignee": (QueueFilters(assignee="reviewer2"), None),
            "all statuses": (QueueFilters(status="all"), None),
        }
        print(f"{args.items:,} items, {url.split(':')[0]}\n\n| query | ms (best of 3) | matching |\n| --- | ---: | ---: |")
        for name, (filters, visible_to) in cases.items():
            ms, total = timed(url, filters, visible_to)
            print(f"| {name} | {ms:.1f} | {total:,} |")


if __name__ == "__main__":
    main()
