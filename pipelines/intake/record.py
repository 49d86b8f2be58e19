"""Recording: each claimed file's row in the intake ledger (storage/intake.py), with its size
and sha256, or why it is refused, written for a tick's claims in one transaction.

The claim comes first and the row after it, so a kill between them leaves a claim without a
row in the work folder; `record_leftover_claims` finds those at start and records them.
"""
from __future__ import annotations

import os
from pathlib import Path

from pipelines import logs
from pipelines.intake.claim import Claim, remove_empty_folders
from pipelines.intake.context import LOG_STAGE, Context
from pipelines.intake.rules import claim_refusal, is_outage
from pipelines.stages.ingest import sha256_of
from storage import intake as ledger
from storage.database import session_scope


def record_claims(context: Context, claims: list[Claim]) -> None:
    """The claims' ledger rows (also for claims found in the work folder after a crash)."""
    facts = []
    for name, target, name_refused in claims:
        try:
            st = os.lstat(target)
        except FileNotFoundError:  # taken out of the work folder by hand: nothing to record
            continue
        reason, sha256 = claim_refusal(st), None
        if reason is None:
            try:
                sha256 = sha256_of(target)
            except OSError as error:
                if is_outage(error, reading=True):
                    raise
                reason = f"cannot be read: {error.strerror}"
        facts.append((name, target, st.st_size, sha256, reason or name_refused))
    if not facts:
        return
    with session_scope(context.url) as session:
        rows = [ledger.record_claim(session, inbox=str(context.drop.inbox), name=str(name), work_path=str(target),
                                    sha256=sha256, size_bytes=size, reason=reason)
                for name, target, size, sha256, reason in facts]
    for row in rows:
        logs.log("file claimed", stage=LOG_STAGE, batch_id=None, sha256=row.sha256, file=row.name, intake=row.id,
                 refused=row.reason)


def record_leftover_claims(context: Context) -> None:
    """Claims a kill left in the work folder without a row get one, a work folder at a time;
    work folders left empty (a kill between the folder and the rename) are removed."""
    drop = context.drop
    with session_scope(context.url, write=False) as session:
        known = ledger.work_paths(session, drop.work_prefix)
    for token in _folders(drop.work):
        record_claims(context, [(drop.name_in_work(path), path, drop.refusal_in_work(path))
                                for path in _entries(token) if str(path) not in known])
        remove_empty_folders(token, drop.work, below_only=False)


def _folders(folder: Path) -> list[Path]:
    try:
        return sorted(Path(e.path) for e in os.scandir(folder) if e.is_dir(follow_symlinks=False))
    except FileNotFoundError:
        return []


def _entries(top: Path) -> list[Path]:
    """Everything below `top` that is not a folder (symbolic links included, not followed)."""
    found = []
    for folder, dirs, files in os.walk(top, followlinks=False):
        found += [Path(folder) / name for name in files]
        found += [Path(folder) / name for name in dirs if os.path.islink(Path(folder) / name)]
    return found
