"""A nightly run's planning: what it carries over, what it sends, and that it writes set by set.

A 100,000-file night spent most of its planning on seven ORM statements per file, one at a time
(docs/BENCHMARKS.md); these tests plan real batches in SQLite and count the statements."""
from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import event, func, select

from pipelines.datamodel import BatchOrigin, DocumentStatus, FileFacts
from pipelines.nightly.incremental import AuditVersions, plan_batch
from pipelines.settings import Settings
from storage import repository, schema
from storage.database import get_engine, session_scope

VERSIONS = AuditVersions(rule_pack="rules-1", model="model-1", playbook="playbook-1")
FILES = 1_100  # more than two of the planner's 500-document statements


def write_files(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"contract-{i:05d}.txt"
        path.write_text(f"Agreement number {i}.\n", encoding="utf-8")
        paths.append(path)
    return paths


def audit_for_the_test(settings: Settings, batch_id: str, paths: list[Path]) -> None:
    """A first night, its documents ended as the DAG ends them: facts recorded, two review items
    each for the even ones, done (the DAG itself is tested elsewhere; here only what planning reads)."""
    url = settings.effective_database_url
    with session_scope(url) as session:
        repository.create_batch(session, batch_id, paths, {}, BatchOrigin.NIGHTLY)
    plan = plan_batch(settings, batch_id, VERSIONS)
    assert len(plan.to_send) == len(paths) and not plan.carried
    with session_scope(url) as session:
        for document_id in plan.to_send:
            path = Path(session.get(schema.Document, document_id).path)
            data = path.read_bytes()
            repository.record_facts(session, document_id,
                                    FileFacts(hashlib.sha256(data).hexdigest(), len(data), "txt", 1))
            if document_id % 2 == 0:
                repository.replace_review_items(session, document_id, [
                    {"category": "Parties", "reason": f"check {n}", "priority": float(n)} for n in (1, 2)])
            repository.mark_done(session, document_id)


@contextmanager
def counted_statements(url: str) -> Iterator[list[str]]:
    statements: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    engine = get_engine(url)
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_an_unchanged_night_carries_every_contract_in_a_few_statements(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    url = settings.effective_database_url
    paths = write_files(tmp_path / "repo", FILES)
    audit_for_the_test(settings, "night-1", paths)
    edited = paths[7]
    edited.write_text("Agreement number 7, amended.\n", encoding="utf-8")
    copy = paths[-1]
    copy.write_bytes(paths[-2].read_bytes())  # the last file now has its neighbour's bytes

    with counted_statements(url) as registering, session_scope(url) as session:
        ids = repository.create_batch(session, "night-2", paths, {}, BatchOrigin.NIGHTLY)
    with counted_statements(url) as statements:
        plan = plan_batch(settings, "night-2", VERSIONS)

    with session_scope(url, write=False) as session:
        by_path = {d.path: d for d in session.scalars(select(schema.Document).where(schema.Document.batch_id == "night-2"))}
        first = {d.path: d for d in session.scalars(select(schema.Document).where(schema.Document.batch_id == "night-1"))}
        items = dict(session.execute(select(schema.ReviewItem.document_id, func.count()).group_by(schema.ReviewItem.document_id)).all())
        copied = session.scalars(select(schema.ReviewItem.reason).where(
            schema.ReviewItem.document_id == by_path[str(paths[1])].id).order_by(schema.ReviewItem.id)).all()
    assert plan.to_send == [by_path[str(edited)].id]
    assert plan.duplicates == {by_path[str(copy)].id: by_path[str(paths[-2])].id}
    assert len(plan.carried) == FILES - 2
    for path in paths:
        document, before = by_path[str(path)], first[str(path)]
        if path in (edited, copy):
            continue
        assert (document.status, document.carried_from, document.sha256) == (DocumentStatus.DONE, before.id, before.sha256)
        assert items.get(document.id, 0) == items.get(before.id, 0)
    assert copied == ["check 1", "check 2"]
    assert ids == [by_path[str(path)].id for path in paths]
    # The batch's rows in one executemany, not an INSERT per file (SQLite returns ids a row at a time).
    assert len(registering) <= 8, registering
    assert by_path[str(edited)].status is DocumentStatus.PENDING
    # Two per 500 documents to carry them and copy their review items, and a handful more, not
    # several per document (7,700 for these 1,100 before).
    assert len(statements) <= 30, statements
