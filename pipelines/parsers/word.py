"""DOCX: the whole document as one page of text, paragraphs separated by blank lines.

A .docx is a ZIP of XML parts, and both layers can be weapons: a ZIP whose entries inflate to
gigabytes, an XML part whose entities expand a billion-fold or name /etc/passwd.  So before
python-docx opens it, the ZIP's central directory is held to the entry-count and unpacked-size
caps (pipelines/parsers/limits.py), and every XML part is read once by defusedxml's SAX
parser, which refuses a document type declaration.  Word never writes one, so a DTD in a
.docx only ever means entities; no entity is expanded and no file or URL is read.
python-docx's own lxml parser (`resolve_entities=False`, no network) is the second layer.

Named word.py so it does not shadow the `docx` library it imports.
"""
from __future__ import annotations

import codecs
import xml.sax
import zipfile
import zlib
from pathlib import Path

import defusedxml
import defusedxml.sax
import docx

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed, DocumentKind, PageText
from pipelines.parsers.base import Survey
from pipelines.parsers.limits import ReadLimits, check_chars, check_zip_entries, current_limits

_ZIP_SIGNATURE = b"PK\x03\x04"
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_BREAKS = {_W + "tab": "\t", _W + "br": "\n", _W + "cr": "\n"}
_XML_STARTS = (b"<", codecs.BOM_UTF8 + b"<", codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


class DocxParser:
    kind: DocumentKind = "docx"

    def sniff(self, path: Path, head: bytes, limits: ReadLimits | None = None) -> bool:
        """A ZIP is only a DOCX if it holds the main document part; xlsx/pptx/odt/zip fail here,
        and so does one over the entry or unpacked-size caps, from its directory alone."""
        if not head.startswith(_ZIP_SIGNATURE):
            return False
        with _archive(path, Stage.INGEST, limits or current_limits()) as archive:
            names = set(archive.namelist())
        if "word/document.xml" not in names:
            raise DocumentFailed(Stage.INGEST, "not a PDF, DOCX or text file: ZIP archive without word/document.xml")
        return True

    def survey(self, path: Path, limits: ReadLimits | None = None) -> Survey:
        """1 page: Word files have no fixed pagination until rendered.  The XML is checked here
        too, so a hostile .docx fails at ingest."""
        with _archive(path, Stage.INGEST, limits or current_limits()) as archive:
            check_xml_parts(archive, Stage.INGEST)
        return Survey(1)

    def count_pages(self, path: Path, limits: ReadLimits | None = None) -> int:
        return self.survey(path, limits).page_count

    def extract(self, path: Path, limits: ReadLimits | None = None) -> list[PageText]:
        limits = limits or current_limits()
        with _archive(path, Stage.EXTRACT, limits) as archive:
            check_xml_parts(archive, Stage.EXTRACT)
        text = _document_text(path)
        check_chars(Stage.EXTRACT, len(text), limits)
        return [PageText(number=1, text=text, source="plain")]


def _archive(path: Path, stage: Stage, limits: ReadLimits) -> zipfile.ZipFile:
    """The ZIP opened (its central directory read, nothing inflated), held to the caps."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, ValueError, OSError, NotImplementedError, EOFError) as exc:
        # ValueError: a nonsense directory entry; NotImplementedError: a ZIP version zipfile
        # does not read (found by ops/fuzz_parsers.py)
        raise DocumentFailed(stage, f"DOCX/ZIP is corrupt or truncated: {exc}") from exc
    try:
        entries = archive.infolist()
        check_zip_entries(stage, len(entries), sum(entry.file_size for entry in entries), limits)
    except BaseException:
        archive.close()
        raise
    return archive


def check_xml_parts(archive: zipfile.ZipFile, stage: Stage) -> None:
    """Read every XML part with defusedxml, refusing any DTD, entity or external reference.

    A part that is not well-formed is left to python-docx, which fails on it only if it is
    a part the document uses.
    """
    for entry in archive.infolist():
        if entry.is_dir():
            continue
        try:
            with archive.open(entry) as stream:
                if not stream.read(64).lstrip(b" \t\r\n").startswith(_XML_STARTS):
                    continue
            with archive.open(entry) as stream:
                defusedxml.sax.parse(stream, xml.sax.handler.ContentHandler(), forbid_dtd=True)
        except defusedxml.DefusedXmlException as exc:
            raise DocumentFailed(
                stage, f"DOCX refused: {entry.filename} declares a document type or entities ({type(exc).__name__}); "
                "Word never writes them, and they can expand without end or read other files",
            ) from exc
        except xml.sax.SAXParseException:
            continue
        except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, NotImplementedError) as exc:
            # zlib.error: a damaged deflate stream (found by ops/fuzz_parsers.py)
            raise DocumentFailed(stage, f"DOCX/ZIP is corrupt or truncated: {entry.filename}: {exc}") from exc


def _document_text(path: Path) -> str:
    """Body paragraphs and table rows in document order; each docx paragraph is one paragraph."""
    try:
        body = docx.Document(str(path)).element.body
    except MemoryError:
        raise
    except Exception as exc:  # python-docx raises zip, XML and KeyError failures alike
        raise DocumentFailed(Stage.EXTRACT, f"DOCX is corrupt or unreadable: {exc}") from exc
    blocks: list[str] = []
    for block in body.iterchildren():
        if block.tag == _W + "p":
            blocks.append(_paragraph_text(block))
        elif block.tag == _W + "tbl":
            blocks.extend(_table_row_text(row) for row in block.iter(_W + "tr"))
    return "\n\n".join(text for text in (block.strip() for block in blocks) if text)


def _paragraph_text(paragraph) -> str:
    """A w:p's runs, with its tabs and line breaks, which python-docx's `.text` also keeps."""
    return "".join(
        node.text or "" if node.tag == _W + "t" else _BREAKS[node.tag] for node in paragraph.iter(_W + "t", *_BREAKS)
    )


def _table_row_text(row) -> str:
    """A table row as one line, cells separated by tabs, so a row reads as one clause."""
    cells = [" ".join(_paragraph_text(p) for p in cell.iter(_W + "p")) for cell in row.iterchildren(_W + "tc")]
    return "\t".join(cell.strip() for cell in cells)
