"""Placing: each file whose document ended (or that needed none: refused at the claim, or a
known duplicate) moved out of the work folder into its outbox folder, with NAME.error.json
beside it when it did not pass, and its ledger row closed.

A destination is written down before the move, so that after a kill the same one is used;
nothing in the outbox is ever overwritten; and a file whose place in the outbox is wrong for a
reason of its own goes to the top of its folder, so that only an outage stops the step.
"""
from __future__ import annotations

import errno
import json
import logging
import os
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from pipelines import logs
from pipelines.datamodel import IntakeState
from pipelines.intake.claim import real_folders, remove_empty_folders
from pipelines.intake.context import LOG_STAGE, Context
from pipelines.intake.rules import error_file, error_record, free_path, is_outage, outcome_folder, outcome_state
from storage import intake as ledger
from storage.database import session_scope
from storage.schema import IntakeFile


@dataclass(frozen=True)
class Ending:
    """How a file ends: its row, the outbox folder it goes to, and what its error file says."""

    row: IntakeFile
    state: IntakeState
    reason: str | None
    stage: str | None
    original: IntakeFile | None  # the file it repeats (duplicates)


def end_without_batch(context: Context) -> list[Ending]:
    """Files refused at the claim go to failed/, known duplicates to duplicates/; returns those
    whose rows it closed."""
    with session_scope(context.url, write=False) as session:
        rows = ledger.refused_or_known(session, context.drop.work_prefix)
        originals = {row.id: ledger.get_row(session, row.original_id) for row in rows if row.original_id}
    return end(context, [Ending(row, IntakeState.DUPLICATE if row.original_id else IntakeState.FAILED, row.reason,
                                LOG_STAGE, originals.get(row.id)) for row in rows])


def end_finished_documents(context: Context) -> list[Ending]:
    """Files whose documents ended go where their outcome says; returns those whose rows it closed."""
    with session_scope(context.url, write=False) as session:
        ended = ledger.ended_documents(session, context.drop.work_prefix)
        originals = {row.id: ledger.row_of_document(session, document.duplicate_of)
                     for row, document in ended if document.duplicate_of}
    endings = []
    for row, document in ended:
        state = outcome_state(document.status)
        failed = state is not IntakeState.PROCESSED
        endings.append(Ending(row, state, document.reason if failed else None,
                              str(document.stage) if failed and document.stage else None, originals.get(row.id)))
    return end(context, endings)


def end(context: Context, endings: list[Ending]) -> list[Ending]:
    """Move files out of the work folder, never over another file, then close their rows;
    returns the endings whose rows this closed.

    Destinations are written down first; after a crash the same destination is used, and
    a file found at both places (the hard link made, the work name not yet removed) is the
    same file."""
    if not endings:
        return []
    finished = datetime.now(context.zone)
    chosen: set[Path] = set()
    targets = {e.row.id: Path(e.row.outcome_path) if e.row.outcome_path else _choose(context, e, finished, chosen)
               for e in endings}
    _plan(context, {e.row.id: targets[e.row.id] for e in endings if not e.row.outcome_path})
    for e in endings:
        targets[e.row.id] = _move_out(context, e, targets[e.row.id], finished, chosen)
    with session_scope(context.url) as session:
        closed = [e for e in endings if ledger.finish(
            session, e.row.id, e.state, reason=e.reason, original_id=e.original.id if e.original else None,
            outcome_path=str(targets[e.row.id]))]
    for e in endings:
        remove_empty_folders(Path(e.row.work_path).parent, context.drop.work)
    for e in closed:
        logs.log("file finished", stage=LOG_STAGE, batch_id=e.row.batch_id, sha256=e.row.sha256,
                 document_id=e.row.document_id, file=e.row.name, outcome=str(e.state),
                 to=str(targets[e.row.id]), reason=e.reason)
    return closed


def _move_out(context: Context, ending: Ending, target: Path, finished: datetime, chosen: set[Path]) -> Path:
    """Put the file at `target`, its error record first; returns where it went.

    Another free name when someone put a file at `target` meanwhile.  When `target` cannot
    hold it for a reason of its own (a file or a link where its subfolder should be; a name
    planned by an older watcher, too long for its error file), the file goes to the top of
    its outbox folder under its own name, shortened to fit; an error there is the outbox's,
    an outage."""
    outbox = context.drop.outbox
    at_top = False
    while True:
        top = outbox / target.relative_to(outbox).parts[0]  # processed/, failed/...
        try:
            if not real_folders(top, target.parent.relative_to(top).parts, missing_ok=True):
                raise NotADirectoryError(errno.ENOTDIR, "a folder on the way is a file or a symbolic link")
            if _put(ending, target, finished):
                return target
        except OSError as error:
            if at_top or is_outage(error):
                raise
            at_top = True
            logs.log("file cannot go where it belongs in the outbox; put at the top of its folder", stage=LOG_STAGE,
                     batch_id=ending.row.batch_id, level=logging.WARNING, sha256=ending.row.sha256,
                     file=ending.row.name, to=str(target), why=error.strerror)
        target = _choose(context, ending, finished, chosen, at_top=at_top)
        _plan(context, {ending.row.id: target})


def _put(e: Ending, target: Path, finished: datetime) -> bool:
    """The error record (not for a processed file), then the move; False, with no record
    left behind, when another file is at `target`."""
    record = None
    if e.state is not IntakeState.PROCESSED:
        record = error_file(target)
        _write_json_atomically(record, error_record(
            name=e.row.name, state=e.state, stage=e.stage, reason=e.reason, at=finished, sha256=e.row.sha256,
            batch_id=e.row.batch_id, document_id=e.row.document_id,
            original=_original_entry(e.original) if e.original is not None else None))
    moved = False
    try:
        moved = _move_without_overwriting(Path(e.row.work_path), target)
    finally:
        if record is not None and not moved:
            record.unlink(missing_ok=True)
    return moved


def _choose(context: Context, ending: Ending, finished: datetime, chosen: set[Path], at_top: bool = False) -> Path:
    """A free name in the file's outbox folder, also among those chosen in this round."""
    folder = outcome_folder(context.drop.outbox, ending.state, finished)
    name = PurePosixPath(ending.row.name)
    target = free_path(folder, PurePosixPath(name.name) if at_top else name,
                       lambda p: p in chosen or os.path.lexists(p), context.name_max)
    chosen.add(target)
    return target


def _plan(context: Context, targets: dict[int, Path]) -> None:
    if targets:
        with session_scope(context.url) as session:
            for row_id, target in targets.items():
                ledger.plan_outcome(session, row_id, str(target))


def _move_without_overwriting(source: Path, target: Path) -> bool:
    """Move `source` to `target` unless another file is there; True once `source` is at
    `target` (also when a crash left it at both, or already moved it)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if not os.path.lexists(source):
        return True  # moved before a crash; or removed by hand, and then there is nothing to move
    try:
        os.link(source, target, follow_symlinks=False)  # fails rather than replace what is there
    except FileExistsError:
        if not os.path.samestat(os.lstat(source), os.lstat(target)):
            return False
    except OSError:  # a file system without hard links
        if os.path.lexists(target):
            return False
        os.rename(source, target)
        return True
    os.unlink(source)
    return True


def _write_json_atomically(path: Path, record: dict) -> None:
    """Written beside under a short name of its own, then renamed in, so no reader sees half a
    record; `path`'s name plus a suffix could be too long for the file system."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{uuid.uuid4().hex}.partial")
    try:
        partial.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _original_entry(original: IntakeFile) -> dict:
    return {"file": original.name, "outcome": original.outcome_path, "batch": original.batch_id,
            "document": original.document_id, "intake": original.id}
