"""Ingest: learn what an input file is before any stage spends time on it.

The file's parser (pipelines/parsers/) sniffs its kind and counts its pages; this stage holds
the batch's limits on size and pages.  Every problem found here becomes a `DocumentFailed`
whose reason tells the user what to fix.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed, FileFacts
from pipelines.parsers import parser_for, sniff_kind

STAGE = Stage.INGEST
_HASH_CHUNK = 1 << 20


def inspect_file(path: Path, max_file_mb: float, max_pages: int) -> FileFacts:
    """Hash, size, sniff and open `path`; raise `DocumentFailed` if it cannot be audited.

    `page_count` is the PDF's page count, the number of form-feed separated pages of a text
    file, and 1 for a DOCX (Word files have no fixed pagination until rendered).
    """
    size = path.stat().st_size
    if size == 0:
        raise DocumentFailed(STAGE, "file is empty (0 bytes)")
    size_mb = size / (1 << 20)
    if size_mb > max_file_mb:
        raise DocumentFailed(
            STAGE, f"file is {size_mb:.1f} MB, over the limit of {max_file_mb:g} MB (CLAUSEMILL_MAX_FILE_MB)"
        )
    kind = sniff_kind(path)
    page_count = parser_for(kind, STAGE).count_pages(path)
    if page_count > max_pages:
        raise DocumentFailed(STAGE, f"{page_count} pages exceeds the limit of {max_pages} (CLAUSEMILL_MAX_PAGES)")
    return FileFacts(sha256=sha256_of(path), size_bytes=size, kind=kind, page_count=page_count)


def sha256_of(path: Path) -> str:
    """The file's SHA-256, read in chunks so a 200 MB scan never sits in memory at once."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
