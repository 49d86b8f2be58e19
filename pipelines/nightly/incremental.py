"""Incremental audits: a document is audited again only when something its audit depends on
changed.

An audit of a file depends on its bytes, the rule pack, the model and the playbook, and on
nothing else that varies between nights; their versions hashed together are the document's
fingerprint.  A nightly batch holds every file of the repository; a document whose
fingerprint an earlier audit already has takes that audit's results (carried over, not run
again), the others go through the DAG.  A new rule pack, model or playbook changes every
fingerprint, so the whole repository is audited again, as it must be.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sqlalchemy.orm import Session

from pipelines.settings import Settings
from storage import history, repository
from storage.database import session_scope

NO_MODEL = "none"
"""The model version of audits made without the model (rules only)."""

RETRIED_FAILURES = (
    "stopped by the",  # a stage's time limit (workers/outcome.py)
    "OCR did not complete",
    "infrastructure error",
    "internal error",
    "no progress at the",  # the recovery sweep gave up (workers/recovery.py)
)
"""How the reasons of failures that say nothing about the file begin: such a failure is not
carried over, the next run tries the document again.  A file's own failure (corrupt,
encrypted, empty, over the limits) is carried like any result, so a broken file in the
repository does not cost a re-audit every night."""


@dataclass(frozen=True)
class AuditVersions:
    """What an audit's results depend on besides the file's bytes."""

    rule_pack: str
    model: str
    playbook: str  # a hash of the playbook text

    def fingerprint(self, sha256: str) -> str:
        """Document.fingerprint: 64 hex digits, so the index stays one fixed-width column."""
        return hashlib.sha256("\n".join((sha256, self.rule_pack, self.model, self.playbook)).encode()).hexdigest()

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def audit_versions(settings: Settings, options: dict) -> AuditVersions:
    """The versions a batch submitted with `options` (its playbook) would be audited with."""
    from pipelines.playbook.loader import DEFAULT_PLAYBOOK
    from pipelines.rules import default_rule_pack

    playbook_text = options.get("playbook") or DEFAULT_PLAYBOOK.read_text(encoding="utf-8")
    if options.get("party"):  # whose side the playbook takes is part of it
        playbook_text += "\nwe: " + "; ".join(options["party"])
    return AuditVersions(
        rule_pack=default_rule_pack().version,
        model=model_version(settings, options),
        playbook=hashlib.sha256(playbook_text.encode()).hexdigest()[:16],
    )


def model_version(settings: Settings, options: dict | None = None) -> str:
    """The checkpoint's version (a hash of its weights, stored in its metadata), read without
    loading the weights; NO_MODEL when audits run on rules alone.  With `options` that pin taught
    clause types (storage/clause_types.pinned_options), their versions are part of it: a type
    trained again, added or retired re-audits the contracts, as a new checkpoint does."""
    if not settings.model_enabled:
        return NO_MODEL
    pins = (options or {}).get("clause_types")
    if pins:
        digest = hashlib.sha256(json.dumps(pins, sort_keys=True).encode()).hexdigest()[:12]
        return f"{model_version(settings)}+types-{digest}"
    from models.checkpoint_version import DEFAULT_CHECKPOINT, checkpoint_version

    path = settings.model_checkpoint or DEFAULT_CHECKPOINT
    try:
        return checkpoint_version(path)
    except (OSError, KeyError) as error:
        raise RuntimeError(f"cannot read the model version from {path}: {error}; set CLAUSEMILL_MODEL_ENABLED=false "
                           "to audit without the model") from None


@dataclass
class Plan:
    """What a nightly batch does with each of its documents."""

    documents: int
    carried: dict[int, int] = field(default_factory=dict)  # document id -> the document it carries results from
    duplicates: dict[int, int] = field(default_factory=dict)  # same bytes as a carried document of this batch
    to_send: list[int] = field(default_factory=list)
    full: bool = False
    read: int = 0  # files read to hash them; the others kept the hash of their unchanged size and mtime

    @property
    def unchanged(self) -> int:
        return len(self.carried) + len(self.duplicates)

    def describe(self) -> str:
        """The line a run prints: how much of the repository it audited again."""
        text = f"re-audited {len(self.to_send)} of {self.documents} documents; {self.unchanged} unchanged"
        if self.full:
            text += " (--full: every document audited again)"
        elif not self.to_send:
            text += " (nothing to re-audit)"
        return text

    def to_dict(self) -> dict:
        return {"documents": self.documents, "re_audited": len(self.to_send), "unchanged": self.unchanged,
                "carried": len(self.carried), "full": self.full, "hashed": self.read}


def plan_batch(settings: Settings, batch_id: str, versions: AuditVersions, *, full: bool = False) -> Plan:
    """Fingerprint every pending document of the batch and carry over the results of those
    already audited; returns the plan, whose `to_send` the caller sends through the DAG.

    Only pending documents are touched (a carry is conditional on it), so a document the
    recovery sweep sent meanwhile is left to the DAG.  A file that cannot be read gets no
    fingerprint and is sent: ingest then fails it with the reason.
    """
    url = settings.effective_database_url
    with session_scope(url, write=False) as session:
        pending = history.pending_documents(session, batch_id)
        known = {} if full else history.known_files(session, [str(path) for _, path in pending], exclude_batch=batch_id)
    stats = {document_id: _stat(path) for document_id, path in pending}
    plan = Plan(documents=len(pending), full=full)
    hashes: dict[int, str | None] = {}
    for document_id, path in pending:
        before = known.get(str(path))
        if before is not None and stats[document_id] == before[:2]:
            hashes[document_id] = before[2]  # the same size and mtime: the same bytes, not read again
        else:
            hashes[document_id] = _sha256(path)
            plan.read += 1
    fingerprints = {document_id: versions.fingerprint(sha) for document_id, sha in hashes.items() if sha}
    with session_scope(url) as session:
        history.set_file_stats(session, {document_id: stat for document_id, stat in stats.items() if stat is not None})
        history.set_fingerprints(session, fingerprints)
        audits = {} if full else _audited(session, set(fingerprints.values()), batch_id)
        first_with_bytes: dict[str, int] = {}
        original = {document_id: first_with_bytes.setdefault(sha, document_id) if (sha := hashes[document_id])
                    else document_id for document_id, _ in pending}

        def carry(documents: Iterable[int]) -> set[int]:
            return history.carry_over(session, {d: audits[fingerprints[d]] for d in documents
                                                if fingerprints.get(d) in audits}, hashes)

        carried = carry(d for d, _ in pending if original[d] == d)
        # A copy of a carried document's bytes is its duplicate; one whose original was not
        # carried (it no longer waited) is carried, or sent, on its own.
        carried |= carry(d for d, _ in pending if original[d] != d and original[d] not in carried)
        for document_id, _ in pending:
            if original[document_id] != document_id and original[document_id] in carried:
                repository.mark_duplicate(session, document_id, original[document_id]).sha256 = hashes[document_id]
                plan.duplicates[document_id] = original[document_id]
            elif document_id in carried:
                plan.carried[document_id] = audits[fingerprints[document_id]]
            else:
                plan.to_send.append(document_id)
    return plan


def refresh_fingerprints(settings: Settings, batch_id: str, versions: AuditVersions) -> None:
    """Fingerprint the documents the batch audited by the bytes ingest read: a file changed
    between the run's hashing and its ingest is known by what was audited."""
    with session_scope(settings.effective_database_url) as session:
        audited = history.audited_hashes(session, batch_id)
        history.set_fingerprints(session, {document_id: versions.fingerprint(sha) for document_id, sha in audited.items()})


def retried(reason: str | None) -> bool:
    """Whether a failure is one the next run tries again rather than carries over."""
    return reason is not None and reason.startswith(RETRIED_FAILURES)


def _audited(session: Session, fingerprints: set[str], batch_id: str) -> dict[str, int]:
    """Per fingerprint, the latest earlier document whose results can be carried over."""
    return history.latest_audits(session, fingerprints, exclude_batch=batch_id, failures_retried=RETRIED_FAILURES)


def _stat(path: Path) -> tuple[int, int] | None:
    """The file's size and modification time (ns), or None when it cannot be read."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _sha256(path: Path) -> str | None:
    from pipelines.stages.ingest import sha256_of

    try:
        return sha256_of(path)
    except OSError:
        return None
