"""Ingest: learn what an input file is before any stage spends time on it.

The type comes from the file's bytes, never its name: batches arrive from shared drives where
`.pdf` files turn out to be scans saved as PNG, Word files renamed, or half-copied downloads.
Every problem found here becomes a `DocumentFailed` whose reason tells the user what to fix.
"""
from __future__ import annotations

import codecs
import hashlib
import re
import zipfile
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from pipelines.datamodel import DocumentFailed, DocumentKind, FileFacts

STAGE = "ingest"
_HASH_CHUNK = 1 << 20
_PDF_HEADER_WINDOW = 1024  # the PDF header may follow some junk; PDF readers look this far for it
_MIN_PRINTABLE = 0.95  # share of printable chars that makes a file text rather than binary
_TEXT_SAMPLE_BYTES = 64 * 1024  # enough to tell text from binary without reading 200 MB

# Signatures of files people mistake for contracts, so the reason can name what was sent.
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
    page_count = _count_pages(path, kind)
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


def sniff_kind(path: Path) -> DocumentKind:
    """The document kind from magic bytes (PDF, DOCX) or content (plain text)."""
    with path.open("rb") as stream:
        head = stream.read(_TEXT_SAMPLE_BYTES)
    if b"%PDF-" in head[:_PDF_HEADER_WINDOW]:
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        _check_docx(path)
        return "docx"
    for signature, name in _FOREIGN_SIGNATURES:
        if head.startswith(signature):
            raise DocumentFailed(STAGE, f"not a PDF, DOCX or text file: starts with {name} signature")
    if not looks_like_text(head):
        raise DocumentFailed(STAGE, "not a PDF, DOCX or text file: binary data of unknown type")
    if _MARKUP.match(head):
        raise DocumentFailed(STAGE, "not a contract file: an HTML/XML page (often an error or login page saved in place of a download)")
    if path.suffix.lower() in (".pdf", ".docx"):
        raise DocumentFailed(STAGE, f"named {path.suffix} but holds plain text: the file is not what its name says")
    return "txt"


_MARKUP = re.compile(rb"\s*(\xef\xbb\xbf)?\s*<(!doctype|html|\?xml|head|body)", re.IGNORECASE)


def decode_text(data: bytes) -> str:
    """`data` as text: UTF-8 (BOM dropped), else Latin-1, which decodes any bytes."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def looks_like_text(sample: bytes) -> bool:
    """Whether the start of a file is text: no NUL bytes and almost only printable chars.

    Latin-1 decodes any bytes, so the printable share is what tells text from binary; NUL
    rejects at once because text files never hold it (UTF-16 files are not supported).  The
    sample may end inside a UTF-8 sequence, hence the incremental decoder.
    """
    if b"\x00" in sample:
        return False
    try:
        text = codecs.getincrementaldecoder("utf-8-sig")().decode(sample, final=False)
    except UnicodeDecodeError:
        text = sample.decode("latin-1")
    printable = sum(1 for ch in text if ch.isprintable() or ch in "\n\r\t\f")
    return printable >= _MIN_PRINTABLE * len(text)


def _check_docx(path: Path) -> None:
    """A ZIP is only a DOCX if it holds the main document part; xlsx/pptx/odt/zip fail here."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except zipfile.BadZipFile as exc:
        raise DocumentFailed(STAGE, f"DOCX/ZIP is corrupt or truncated: {exc}") from exc
    if "word/document.xml" not in names:
        raise DocumentFailed(STAGE, "not a PDF, DOCX or text file: ZIP archive without word/document.xml")


def _count_pages(path: Path, kind: DocumentKind) -> int:
    if kind == "pdf":
        return _count_pdf_pages(path)
    if kind == "txt":
        return path.read_bytes().rstrip(b"\f").count(b"\f") + 1
    return 1


def _count_pdf_pages(path: Path) -> int:
    """Open the PDF with PDFium, which is what extraction will use, and count its pages."""
    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        raise DocumentFailed(STAGE, _open_failure_reason(exc)) from exc
    try:
        pages = len(pdf)
    finally:
        pdf.close()
    if pages == 0:
        raise DocumentFailed(STAGE, "PDF has no pages")
    return pages


def _open_failure_reason(exc: pdfium.PdfiumError) -> str:
    if exc.err_code == pdfium_c.FPDF_ERR_PASSWORD:
        return "PDF is encrypted (password required)"
    if exc.err_code == pdfium_c.FPDF_ERR_SECURITY:
        return "PDF is encrypted with an unsupported security handler"
    return f"PDF is corrupt or truncated: {exc}"
