"""Extract: the text of every page, with word boxes, straight from the file.

PDFs go through PDFium (pypdfium2): with word boxes, about 20x faster than pdfplumber's
`extract_words` on the CUAD filings (ops/benchmarks/extract_speed.py), which matters because
extraction runs once per page of every batch.  PDFium reports text in
content order with `\\r\\n` at each line end; this stage turns that into clean page text:

* `\\n` line ends, and a blank line wherever the vertical gap before a line is clearly larger
  than the page's usual line pitch, so paragraphs look like they do in CUAD's own texts and
  the segmenter can split on them;
* PDFium's markers for hyphens (U+FFFE, soft hyphen) become `-`, no-break spaces and control
  chars become spaces, so the text matches what a reader sees.

Word boxes are the union of PDFium's text rectangles over the word's chars (one call per
word, not per char), converted to PDF points with the origin at the top-left of the visible
page, whatever its crop box or rotation.
"""
from __future__ import annotations

import re
from ctypes import c_double
from dataclasses import dataclass
from pathlib import Path

import docx
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from pipelines.datamodel import Box, DocumentFailed, PageText, Word
from pipelines.stages.ingest import decode_text

STAGE = "extract"
PARAGRAPH_PITCH_RATIO = 1.4
"""A line starts a paragraph when its distance to the previous line is this many times the
page's usual line pitch; CUAD filings use about 2.0 between paragraphs and 1.0 inside."""
_MIN_STEP_OF_HEIGHT = 0.8  # a step shorter than this share of a line's height is no new line

_CLEAN_CHARS = str.maketrans(
    {"\ufffe": "-", "\u00ad": "-", "\u00a0": " ", **{chr(c): " " for c in range(32) if chr(c) not in "\r\n"}}
)
_LINE_END = re.compile(r"\r\n|\r|\n")
_WORD = re.compile(r"\S+")
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DOCX_BREAKS = {_W + "tab": "\t", _W + "br": "\n", _W + "cr": "\n"}


def extract_text_layer(path: Path, kind: str) -> list[PageText]:
    """Every page's text: the PDF text layer, or the whole text of a .txt or .docx file.

    A PDF page without a text layer comes back with empty text and source "text-layer", so
    `needs_ocr` tells the pipeline to OCR it.  Text files split into pages at form feeds;
    a DOCX is one page with its paragraphs separated by blank lines.
    """
    if kind == "pdf":
        return _pdf_pages(path)
    if kind == "txt":
        pages = _text_pages(decode_text(path.read_bytes()))
    elif kind == "docx":
        pages = [PageText(number=1, text=_docx_text(path), source="plain")]
    else:
        raise DocumentFailed(STAGE, f"cannot extract text from a {kind!r} file")
    if not any(page.text.strip() for page in pages):
        raise DocumentFailed(STAGE, "no text found: the file holds only whitespace")
    return pages


def _text_pages(text: str) -> list[PageText]:
    text = _LINE_END.sub("\n", text).rstrip("\f")
    return [PageText(number=i, text=part, source="plain") for i, part in enumerate(text.split("\f"), start=1)]


def _docx_text(path: Path) -> str:
    """Body paragraphs and table rows in document order; each docx paragraph is one paragraph."""
    try:
        body = docx.Document(str(path)).element.body
    except Exception as exc:  # python-docx raises zip, XML and KeyError failures alike
        raise DocumentFailed(STAGE, f"DOCX is corrupt or unreadable: {exc}") from exc
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
        node.text or "" if node.tag == _W + "t" else _DOCX_BREAKS[node.tag]
        for node in paragraph.iter(_W + "t", *_DOCX_BREAKS)
    )


def _table_row_text(row) -> str:
    """A table row as one line, cells separated by tabs, so a row reads as one clause."""
    cells = [" ".join(_paragraph_text(p) for p in cell.iter(_W + "p")) for cell in row.iterchildren(_W + "tc")]
    return "\t".join(cell.strip() for cell in cells)


def _pdf_pages(path: Path) -> list[PageText]:
    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        raise DocumentFailed(STAGE, f"PDF is corrupt or truncated: {exc}") from exc
    try:
        return [_pdf_page(pdf, index) for index in range(len(pdf))]
    finally:
        pdf.close()


def _pdf_page(pdf: pdfium.PdfDocument, index: int) -> PageText:
    """One page's clean text and words; closing the page closes its text page too."""
    try:
        page = pdf[index]
    except pdfium.PdfiumError as exc:
        raise DocumentFailed(STAGE, f"PDF is corrupt or truncated: page {index + 1} cannot be read ({exc})") from exc
    try:
        width, height = page.get_size()
        textpage = page.get_textpage()
        raw = _raw_text(textpage).translate(_CLEAN_CHARS)
        if not raw.strip():
            return PageText(number=index + 1, text="", source="text-layer", width=width, height=height)
        spans = [match.span() for match in _WORD.finditer(raw)]
        boxes = _PageFrame.of(page).to_top_left(_user_space_boxes(textpage, spans))
        text, words = _assemble(raw, _lines(raw, spans, boxes))
        return PageText(number=index + 1, text=text, words=words, source="text-layer", width=width, height=height)
    except pdfium.PdfiumError as exc:
        raise DocumentFailed(STAGE, f"PDF is corrupt or truncated: page {index + 1} cannot be read ({exc})") from exc
    finally:
        page.close()


def _raw_text(textpage: pdfium.PdfTextPage) -> str:
    """The page text, one char per PDFium char index so word offsets can address char boxes.

    `get_text_range` keeps that alignment for nearly every page; when PDFium drops or inserts
    chars in its text view, read the chars one by one instead (slow, rare).
    """
    count = textpage.count_chars()
    text = textpage.get_text_range()
    if len(text) == count:
        return text
    return "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage, i) or 32) for i in range(count))


@dataclass(frozen=True)
class _PageFrame:
    """Maps PDF user-space points to points from the top-left of the page as displayed."""

    left: float
    bottom: float
    right: float
    top: float
    rotation: int

    @classmethod
    def of(cls, page: pdfium.PdfPage) -> _PageFrame:
        return cls(*page.get_bbox(), page.get_rotation())

    def to_top_left(self, boxes: list[Box | None]) -> list[Box | None]:
        """User-space (left, bottom, right, top) boxes as (x0, top, x1, bottom) from the top-left."""
        if self.rotation == 0:  # nearly every page: skip the general corner mapping
            x0, y0 = self.left, self.top
            return [None if b is None else (b[0] - x0, y0 - b[3], b[2] - x0, y0 - b[1]) for b in boxes]
        return [None if b is None else self._rotated(*b) for b in boxes]

    def _rotated(self, left: float, bottom: float, right: float, top: float) -> Box:
        xa, ya = self._point(left, bottom)
        xb, yb = self._point(right, top)
        return (min(xa, xb), min(ya, yb), max(xa, xb), max(ya, yb))

    def _point(self, x: float, y: float) -> tuple[float, float]:
        if self.rotation == 90:
            return y - self.bottom, x - self.left
        if self.rotation == 180:
            return self.right - x, y - self.bottom
        return self.top - y, self.right - x  # 270


def _user_space_boxes(textpage: pdfium.PdfTextPage, spans: list[tuple[int, int]]) -> list[Box | None]:
    """Per word span, the union of PDFium's text rectangles as (left, bottom, right, top).

    Calls the raw bindings with reused out-parameters: the helper methods' per-call overhead
    was half the extraction time on word-dense pages.  A word is nearly always one rectangle;
    None marks glyphs without geometry.
    """
    handle = textpage.raw
    count_rects, get_rect = pdfium_c.FPDFText_CountRects, pdfium_c.FPDFText_GetRect
    left, top, right, bottom = c_double(), c_double(), c_double(), c_double()
    boxes: list[Box | None] = []
    for start, end in spans:
        count = count_rects(handle, start, end - start)
        if count <= 0:
            boxes.append(None)
            continue
        get_rect(handle, 0, left, top, right, bottom)
        box = (left.value, bottom.value, right.value, top.value)
        for i in range(1, count):
            get_rect(handle, i, left, top, right, bottom)
            box = (min(box[0], left.value), min(box[1], bottom.value), max(box[2], right.value), max(box[3], top.value))
        boxes.append(box)
    return boxes


@dataclass
class _Line:
    """One PDFium line: its raw span, its words (raw offsets) and its vertical extent."""

    start: int
    end: int
    words: list[tuple[int, int, Box]]

    @property
    def extent(self) -> tuple[float, float] | None:
        """(top, bottom) over the line's words, None for a line without words."""
        if not self.words:
            return None
        return min(box[1] for _, _, box in self.words), max(box[3] for _, _, box in self.words)


def _lines(raw: str, spans: list[tuple[int, int]], boxes: list[Box | None]) -> list[_Line]:
    """Split the raw text at PDFium's line ends and give each line its words and extent."""
    lines: list[_Line] = []
    word = 0
    start = 0
    ends = [(m.start(), m.end()) for m in _LINE_END.finditer(raw)] + [(len(raw), len(raw))]
    for end, next_start in ends:
        words = []
        while word < len(spans) and spans[word][1] <= end:
            box = boxes[word]
            if box is not None:
                words.append((spans[word][0], spans[word][1], box))
            word += 1
        lines.append(_Line(start, end, words))
        start = next_start
    return lines


def _assemble(raw: str, lines: list[_Line]) -> tuple[str, list[Word]]:
    """Join lines with `\\n` (blank line before a paragraph) and move words to the new offsets."""
    breaks = paragraph_starts([line.extent for line in lines])
    pieces: list[str] = []
    words: list[Word] = []
    offset = 0
    for i, line in enumerate(lines):
        if i:
            separator = "\n\n" if breaks[i] else "\n"
            pieces.append(separator)
            offset += len(separator)
        segment = raw[line.start : line.end]
        shift = offset - line.start
        words.extend(Word(raw[s:e], s + shift, e + shift, box) for s, e, box in line.words)
        pieces.append(segment)
        offset += len(segment)
    return "".join(pieces).rstrip(), words


def paragraph_starts(extents: list[tuple[float, float] | None]) -> list[bool]:
    """Per line, whether a paragraph starts there: its top is further below the previous
    line's top than PARAGRAPH_PITCH_RATIO times the page's usual line pitch.

    `extents` are the lines' (top, bottom) in top-left points, None for lines without words
    (skipped: they already read as blank lines).  The usual pitch is the lower quartile of
    the steps that advance at least a line height, so a page with more paragraph breaks than
    wrapped lines still finds it, and superscripts or split text runs do not shrink it.
    OCR lays out its lines with the same rule.
    """
    placed = [(i, extent) for i, extent in enumerate(extents) if extent is not None]
    steps = [
        (i, below[0] - above[0])
        for (_, above), (i, below) in zip(placed, placed[1:])
        if below[0] - above[0] >= _MIN_STEP_OF_HEIGHT * (below[1] - below[0])
    ]
    starts = [False] * len(extents)
    if not steps:
        return starts
    pitches = sorted(step for _, step in steps)
    threshold = PARAGRAPH_PITCH_RATIO * pitches[(len(pitches) - 1) // 4]
    for i, step in steps:
        starts[i] = step > threshold
    return starts
