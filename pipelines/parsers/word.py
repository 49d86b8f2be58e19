"""DOCX: the whole document as one page of text, paragraphs separated by blank lines.

Named word.py so it does not shadow the `docx` library it imports.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

import docx

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed, DocumentKind, PageText

_ZIP_SIGNATURE = b"PK\x03\x04"
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_BREAKS = {_W + "tab": "\t", _W + "br": "\n", _W + "cr": "\n"}


class DocxParser:
    kind: DocumentKind = "docx"

    def sniff(self, path: Path, head: bytes) -> bool:
        """A ZIP is only a DOCX if it holds the main document part; xlsx/pptx/odt/zip fail here."""
        if not head.startswith(_ZIP_SIGNATURE):
            return False
        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
        except zipfile.BadZipFile as exc:
            raise DocumentFailed(Stage.INGEST, f"DOCX/ZIP is corrupt or truncated: {exc}") from exc
        if "word/document.xml" not in names:
            raise DocumentFailed(Stage.INGEST, "not a PDF, DOCX or text file: ZIP archive without word/document.xml")
        return True

    def count_pages(self, path: Path) -> int:
        """1: Word files have no fixed pagination until rendered."""
        return 1

    def extract(self, path: Path) -> list[PageText]:
        return [PageText(number=1, text=_document_text(path), source="plain")]


def _document_text(path: Path) -> str:
    """Body paragraphs and table rows in document order; each docx paragraph is one paragraph."""
    try:
        body = docx.Document(str(path)).element.body
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
