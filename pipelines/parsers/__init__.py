"""The parsers of the file kinds clausemill reads, looked up by kind or found by content.

The kind comes from the file's bytes, never its name: batches arrive from shared drives where
`.pdf` files turn out to be scans saved as PNG, Word files renamed, or half-copied downloads.
A new kind is one parser (pipelines/parsers/base.py) added to PARSERS; no stage changes.
The stages call the parsers inside a child process (pipelines/parsers/sandbox.py) and every
parser keeps the caps of pipelines/parsers/limits.py, so a hostile file fails alone.
"""
from __future__ import annotations

from pathlib import Path

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed, DocumentKind
from pipelines.parsers.base import PageRenderer, Parser
from pipelines.parsers.limits import ReadLimits
from pipelines.parsers.pdf import PdfParser
from pipelines.parsers.text import TextParser
from pipelines.parsers.word import DocxParser

PARSERS: tuple[Parser, ...] = (PdfParser(), DocxParser(), TextParser())
"""In sniffing order: text has no signature, so it comes last."""
_BY_KIND: dict[str, Parser] = {parser.kind: parser for parser in PARSERS}
_HEAD_BYTES = 64 * 1024  # enough to tell text from binary without reading 200 MB

# Signatures of files people mistake for contracts, so the reason can name what was sent.
# Checked before the parsers because RTF is text, which the text parser would take.
_FOREIGN_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"II*\x00", "TIFF image"),
    (b"MM\x00*", "TIFF image"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "legacy Office (.doc/.xls) or password-protected Office file"),
    (b"{\\rtf", "RTF document"),
    (b"\x1f\x8b", "gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"Rar!", "RAR archive"),
)


def sniff_kind(path: Path, limits: ReadLimits | None = None) -> DocumentKind:
    """The kind of the file from its first bytes; `DocumentFailed` (ingest) says what it is
    instead when no parser can read it."""
    with path.open("rb") as stream:
        head = stream.read(_HEAD_BYTES)
    for signature, name in _FOREIGN_SIGNATURES:
        if head.startswith(signature):
            raise DocumentFailed(Stage.INGEST, f"not a PDF, DOCX or text file: starts with {name} signature")
    for parser in PARSERS:
        if parser.sniff(path, head, limits):
            return parser.kind
    raise DocumentFailed(Stage.INGEST, "not a PDF, DOCX or text file: binary data of unknown type")


def parser_for(kind: str, stage: Stage) -> Parser:
    """The parser of `kind`; an unknown kind fails `stage`, the one that was asked to read it."""
    try:
        return _BY_KIND[kind]
    except KeyError:
        known = ", ".join(_BY_KIND)
        raise DocumentFailed(stage, f"cannot read a {kind!r} file: clausemill reads {known}") from None


def renderer_for(kind: str) -> PageRenderer:
    """The parser of `kind` if its pages can be drawn for OCR; OCR of any other kind fails."""
    parser = parser_for(kind, Stage.OCR)
    if not isinstance(parser, PageRenderer):
        raise DocumentFailed(Stage.OCR, f"cannot OCR a {kind} file: it has no page images, its text is read directly")
    return parser
