"""Extract: the text of every page, with word boxes, straight from the file.

The file's parser (pipelines/parsers/) reads it: a PDF's text layer through PDFium, a text
file split at form feeds, a DOCX as one page.  PDF pages without a text layer come back
empty for OCR; a file with no text and nothing to OCR fails here, before segmentation.
The parse runs in a child process with memory and time limits (pipelines/parsers/sandbox.py)
and stops at the char cap; its pages come back as plain JSON values.
"""
from __future__ import annotations

from pathlib import Path

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed, PageText
from pipelines.parsers import parser_for
from pipelines.parsers.limits import ReadLimits, current_limits
from pipelines.parsers.page_json import page_from_json, page_to_json
from pipelines.parsers.sandbox import parse_isolated

STAGE = Stage.EXTRACT


def extract_text_layer(path: Path, kind: str, limits: ReadLimits | None = None) -> list[PageText]:
    """Every page's text: the PDF text layer, or the whole text of a .txt or .docx file.

    A PDF page without a text layer comes back with empty text and source "text-layer", so
    `needs_ocr` tells the pipeline to OCR it.  Text files split into pages at form feeds;
    a DOCX is one page with its paragraphs separated by blank lines.
    """
    parser = parser_for(kind, STAGE)
    limits = limits or current_limits()
    found = parse_isolated(STAGE, lambda: [page_to_json(p) for p in parser.extract(path, limits)], limits,
                           "to read its text")
    pages = [page_from_json(value) for value in found]
    if not any(page.text.strip() or page.needs_ocr for page in pages):
        raise DocumentFailed(STAGE, "no text found: the file holds only whitespace")
    return pages
