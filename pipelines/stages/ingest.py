"""Ingest: learn what an input file is before any stage spends time on it.

The file's parser (pipelines/parsers/) sniffs its kind and counts its pages; this stage holds
the batch's limits on size and pages.  Every problem found here becomes a `DocumentFailed`
whose reason tells the user what to fix.  Sniffing and counting open the file, so they run
in a child process with memory and time limits (pipelines/parsers/sandbox.py); hashing only
streams bytes and stays here.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed, FileFacts
from pipelines.parsers import PARSERS, parser_for, sniff_kind
from pipelines.parsers.limits import ReadLimits, current_limits
from pipelines.parsers.sandbox import parse_isolated

STAGE = Stage.INGEST
_HASH_CHUNK = 1 << 20
_KINDS = {parser.kind for parser in PARSERS}


def inspect_file(path: Path, max_file_mb: float, max_pages: int, limits: ReadLimits | None = None) -> FileFacts:
    """Hash, size, sniff and open `path`; raise `DocumentFailed` if it cannot be audited.

    `page_count` is the PDF's page count, the number of form-feed separated pages of a text
    file, and 1 for a DOCX (Word files have no fixed pagination until rendered).  `notes` say
    what reading it took (a repair, an encoding); `limits` default to this process's settings.
    """
    size = path.stat().st_size
    if size == 0:
        raise DocumentFailed(STAGE, "file is empty (0 bytes)")
    size_mb = size / (1 << 20)
    if size_mb > max_file_mb:
        raise DocumentFailed(
            STAGE, f"file is {size_mb:.1f} MB, over the limit of {max_file_mb:g} MB (CLAUSEMILL_MAX_FILE_MB)"
        )
    limits = limits or current_limits()
    found = parse_isolated(STAGE, lambda: _sniff_and_survey(path, limits), limits, "to open")
    kind, page_count, notes = found["kind"], int(found["page_count"]), tuple(str(note) for note in found["notes"])
    if kind not in _KINDS:
        raise ValueError(f"the ingest child named an unknown kind {kind!r}")
    if page_count > max_pages:
        raise DocumentFailed(STAGE, f"{page_count} pages exceeds the limit of {max_pages} (CLAUSEMILL_MAX_PAGES)")
    return FileFacts(sha256=sha256_of(path), size_bytes=size, kind=kind, page_count=page_count, notes=notes)


def _sniff_and_survey(path: Path, limits: ReadLimits) -> dict:
    """In the child: the kind, page count and notes, as plain values."""
    kind = sniff_kind(path, limits)
    survey = parser_for(kind, STAGE).survey(path, limits)
    return {"kind": kind, "page_count": survey.page_count, "notes": list(survey.notes)}


def sha256_of(path: Path) -> str:
    """The file's SHA-256, read in chunks so a 200 MB scan never sits in memory at once."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
