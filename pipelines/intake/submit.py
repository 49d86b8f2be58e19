"""Submitting: claimed files grouped into batches and sent to the engine.  A batch is written
down in the ledger before it is submitted, so that a restart finishes a submission a kill cut
short (`submit_interrupted`) instead of submitting the files again."""
from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from pathlib import Path

from celery import Celery

from pipelines import logs
from pipelines.datamodel import BatchOrigin
from pipelines.intake.context import LOG_STAGE, Context
from pipelines.producer import submit_batch
from storage import intake as ledger
from storage.database import session_scope
from storage.schema import IntakeFile, utcnow


def submit_due(context: Context, app: Celery, options: dict) -> None:
    """Group claimed files into batches: a batch goes once its oldest file has waited
    `watch_batch_window_s`, or as soon as it holds `watch_batch_max_files`.  A file with the
    bytes of one already audited is marked a duplicate of it instead (place.py ends it)."""
    with session_scope(context.url) as session:
        ready = []
        for row in ledger.submittable(session, context.drop.work_prefix):
            original = ledger.audited_original(session, row.sha256, row.id) if row.sha256 else None
            if original is None:
                ready.append(row)
            else:
                ledger.mark_duplicate_of(session, row.id, original)
    window = timedelta(seconds=context.settings.watch_batch_window_s)
    size = context.settings.watch_batch_max_files
    while ready and (len(ready) >= size or ready[0].claimed_at <= utcnow() - window):
        group, ready = ready[:size], ready[size:]
        batch_id = f"watch-{datetime.now(context.zone):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"
        with session_scope(context.url) as session:
            taken = set(ledger.assign_batch(session, [row.id for row in group], batch_id))
        _submit(context, app, options, batch_id, [row for row in group if row.id in taken])


def submit_interrupted(context: Context, app: Celery, options: dict) -> None:
    """Batches assigned but not submitted when a watcher was killed are submitted, or only
    linked to their documents when the batch was created."""
    with session_scope(context.url, write=False) as session:
        interrupted = {batch_id: (rows, ledger.batch_exists(session, batch_id))
                       for batch_id, rows in ledger.batches_to_submit(session, context.drop.work_prefix).items()}
    for batch_id, (rows, created) in interrupted.items():
        if created:
            with session_scope(context.url) as session:
                ledger.link_documents(session, batch_id)
        else:
            _submit(context, app, options, batch_id, rows)


def _submit(context: Context, app: Celery, options: dict, batch_id: str, rows: list[IntakeFile]) -> None:
    if rows:
        submit_batch(app, context.settings, [Path(row.work_path) for row in rows], batch_id=batch_id,
                     options=options, origin=BatchOrigin.WATCH)
    with session_scope(context.url) as session:
        linked = ledger.link_documents(session, batch_id)
    logs.log("files submitted", stage=LOG_STAGE, batch_id=batch_id, files=linked)
