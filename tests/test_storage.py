"""Storage: the batch ledger finalizes exactly once, and every write is safe to repeat."""
from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from pipelines import datamodel as dm
from storage import repository, schema
from storage.database import session_scope
from storage.migrate import upgrade


def test_migrations_are_repeatable(database_url: str) -> None:
    upgrade(database_url)  # a second run is a no-op, not an error
    with session_scope(database_url) as session:
        assert session.scalar(select(func.count()).select_from(schema.Batch)) == 0


def test_ledger_finalizes_a_batch_exactly_once_under_concurrency(database_url: str) -> None:
    paths = [Path(f"/contracts/{i}.pdf") for i in range(24)]
    with session_scope(database_url) as session:
        ids = repository.create_batch(session, "b1", paths, {})
    claims: list[bool] = []
    barrier = threading.Barrier(8)

    def finish(chunk: list[int]) -> None:
        barrier.wait()
        for document_id in chunk:
            with session_scope(database_url) as session:
                repository.mark_done(session, document_id)
            with session_scope(database_url) as session:
                claims.append(repository.finalize_batch_if_complete(session, "b1"))

    threads = [threading.Thread(target=finish, args=(ids[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert claims.count(True) == 1
    with session_scope(database_url) as session:
        assert repository.batch_status(session, "b1") == "done"
        assert session.get(schema.Batch, "b1").summary == {"documents": {"done": 24}}
        # a late, redelivered finish changes nothing
        assert repository.finalize_batch_if_complete(session, "b1") is False


def test_rerunning_a_batch_resets_documents_without_duplicating_them(database_url: str) -> None:
    paths = [Path("/contracts/a.pdf"), Path("/contracts/b.pdf")]
    with session_scope(database_url) as session:
        first = repository.create_batch(session, "b2", paths, {})
        repository.mark_failed(session, first[0], "ingest", "file is empty (0 bytes)")
    with session_scope(database_url) as session:
        second = repository.create_batch(session, "b2", paths, {"view": "summary"})
    assert first == second
    with session_scope(database_url) as session:
        document = repository.get_document(session, first[0])
        assert (document.status, document.reason) == ("pending", None)
        assert repository.batch_status(session, "b2") == "running"


def test_stage_outputs_replace_what_the_stage_wrote_before(database_url: str) -> None:
    with session_scope(database_url) as session:
        [doc] = repository.create_batch(session, "b3", [Path("/contracts/a.pdf")], {})
    pages = [dm.PageText(1, "Governing law. Delaware.", [dm.Word("Governing", 0, 9, (1, 2, 3, 4))]), dm.PageText(2, "")]
    finding = dm.Finding("Governing Law", "Delaware", 15, 23, 1, 0.9, "rules", "t1")
    for _ in range(2):  # a task delivered twice
        with session_scope(database_url) as session:
            repository.replace_pages(session, doc, pages)
            repository.replace_segments(session, doc, [dm.Segment(0, "Governing law. Delaware.", 0, 24, 1, (1, 2, 3, 4))])
            repository.replace_findings(session, doc, "rules", [finding])
            repository.replace_findings(session, doc, "aggregate", [finding])
    with session_scope(database_url) as session:
        assert repository.load_pages(session, doc) == pages
        assert len(repository.load_segments(session, doc)) == 1
        assert repository.load_findings(session, doc, ["rules"]) == [finding]
        assert len(repository.load_findings(session, doc)) == 2


def test_exactly_one_of_two_concurrent_analysers_sends_the_document_on(database_url: str) -> None:
    """The analyser ledger: rules and model finish at the same moment, many times over."""
    from pipelines.settings import Settings
    from pipelines.steps import complete_analyser

    settings = Settings(database_url=database_url, model_enabled=True)
    paths = [Path(f"/contracts/{i}.pdf") for i in range(12)]
    with session_scope(database_url) as session:
        ids = repository.create_batch(session, "b1", paths, {})
    senders: dict[int, list[str]] = {i: [] for i in ids}
    barrier = threading.Barrier(2)

    def analyse(stage: str) -> None:
        barrier.wait()
        for document_id in ids:
            if complete_analyser(settings, document_id, stage, 0.1):
                senders[document_id].append(stage)

    threads = [threading.Thread(target=analyse, args=(stage,)) for stage in ("analyse_rules", "analyse_model")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(len(s) == 1 for s in senders.values()), senders
    # a finished analyser delivered again sends again (aggregation is a replace-write), a lone one never
    assert complete_analyser(settings, ids[0], "analyse_rules", 0.1) is True
    rules_only = Settings(database_url=database_url, model_enabled=False)
    with session_scope(database_url) as session:
        fresh = repository.create_batch(session, "b2", [Path("/contracts/x.pdf")], {})[0]
    assert complete_analyser(settings, fresh, "analyse_model", 0.1) is False
    assert complete_analyser(rules_only, fresh, "analyse_rules", 0.1) is True


def test_the_migrations_build_exactly_the_schema_the_code_declares(database_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from storage.database import get_engine

    with get_engine(database_url).connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), schema.Base.metadata)
    assert differences == []


def test_two_copies_ingested_in_either_order_leave_one_original(database_url: str) -> None:
    facts = dm.FileFacts(sha256="ab" * 32, size_bytes=10, kind="txt", page_count=1)
    with session_scope(database_url) as session:
        first, second = repository.create_batch(session, "copies", [Path("/c/a.txt"), Path("/c/b.txt")], {})
    with session_scope(database_url) as session:  # the later copy records its facts first
        assert repository.record_facts(session, second, facts) is None
    with session_scope(database_url) as session:
        assert repository.record_facts(session, first, facts) is None
    with session_scope(database_url) as session:
        statuses = {d.id: (d.status, d.duplicate_of) for d in session.scalars(select(schema.Document))}
    assert statuses == {first: (dm.DocumentStatus.PENDING, None), second: (dm.DocumentStatus.DUPLICATE, first)}


def test_concurrent_copies_leave_exactly_one_original(database_url: str) -> None:
    facts = dm.FileFacts(sha256="cd" * 32, size_bytes=10, kind="txt", page_count=1)
    with session_scope(database_url) as session:
        ids = repository.create_batch(session, "racing", [Path(f"/c/{i}.txt") for i in range(6)], {})
    barrier = threading.Barrier(len(ids))
    originals: list[int | None] = []

    def ingest(document_id: int) -> None:
        barrier.wait()
        with session_scope(database_url) as session:
            original = repository.record_facts(session, document_id, facts)
            if original is not None:
                repository.mark_duplicate(session, document_id, original)
            originals.append(original)

    threads = [threading.Thread(target=ingest, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    with session_scope(database_url) as session:
        rows = session.execute(select(schema.Document.id, schema.Document.status, schema.Document.duplicate_of)).all()
    assert [(i, d) for i, status, d in rows if status is not dm.DocumentStatus.DUPLICATE] == [(ids[0], None)]
    assert all(d == ids[0] for _, status, d in rows if status is dm.DocumentStatus.DUPLICATE)


def test_the_portfolio_summarises_each_contracts_latest_audit_and_pages_it_by_keyset(database_url: str) -> None:
    from datetime import date

    from pipelines.aggregate import aggregate_document
    from pipelines.reported import refresh_portfolio
    from pipelines.steps import playbook_for

    stored = aggregate_document([], playbook_for({}), 1).to_dict()
    with session_scope(database_url) as session:
        first = repository.create_batch(session, "old", [Path(f"/c/{i}.txt") for i in range(7)], {})
        second = repository.create_batch(session, "new", [Path("/c/0.txt")], {})  # /c/0.txt audited again
        for score, document_id in enumerate(first + second):
            repository.store_assessment(session, document_id, {**stored, "risk_score": float(score)}, float(score),
                                        stored["risk_level"])
            repository.mark_done(session, document_id)
    refresh_portfolio(database_url, ("rules",), date(2026, 12, 7))
    with session_scope(database_url, write=False) as session:
        everything, found = repository.triage(session, [], 10)
        assert found == 7 and [s.document_id for s in everything] == [second[0], *first[6:0:-1]]  # highest score first
        pages = [repository.triage(session, [], 3)[0]]
        while len(pages[-1]) == 3:
            pages.append(repository.triage(session, [], 3, after=pages[-1][-1].document_id)[0])
        assert [[s.document_id for s in page] for page in pages] == [
            [s.document_id for s in everything[i:i + 3]] for i in range(0, 9, 3)]
        back = repository.triage(session, [], 3, before=pages[1][0].document_id)[0]
        assert [s.document_id for s in back] == [s.document_id for s in pages[0]]


def test_a_database_that_never_answers_fails_the_connection_instead_of_hanging() -> None:
    """A host that takes the connection and then says nothing (a database lost behind a proxy or
    a partition): opening the engine fails within libpq's connect_timeout, not never."""
    from sqlalchemy.exc import OperationalError

    from storage.database import POSTGRES_CONNECTION, get_engine

    silent = socket.create_server(("127.0.0.1", 0))
    taken: list[socket.socket] = []
    accepting = threading.Thread(target=lambda: taken.append(silent.accept()[0]), daemon=True)
    accepting.start()
    try:
        started = time.monotonic()
        with pytest.raises(OperationalError, match="timeout"):
            get_engine(f"postgresql+psycopg2://nobody@127.0.0.1:{silent.getsockname()[1]}/nothing")
        assert time.monotonic() - started < POSTGRES_CONNECTION["connect_timeout"] + 10
        assert taken, "the connection reached the silent server"
    finally:
        silent.close()
        for connection in taken:
            connection.close()
