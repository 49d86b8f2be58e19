"""PDF: page count, text layer with word boxes, and page images for OCR, all through PDFium.

PDFium (pypdfium2) reads the text layer with word boxes about 25x faster than pdfplumber's
`extract_words` on the CUAD filings, and agrees better with CUAD's own texts on pages with
tables too (ops/benchmarks/parser_choices.py), which matters because extraction runs once per
page of every batch.  PDFium reports text in content order with `\\r\\n` at each line end;
this module turns that into clean page text:

* `\\n` line ends, and a blank line wherever the vertical gap before a line is clearly larger
  than the page's usual line pitch (pipelines/parsers/layout.py), so paragraphs look like they
  do in CUAD's own texts and the segmenter can split on them;
* PDFium's markers for hyphens (U+FFFE, soft hyphen) become `-`, no-break spaces and control
  chars become spaces, so the text matches what a reader sees;
* a text layer that is mostly control or private-use chars (mojibake: a font without a
  /ToUnicode map whose codes are not letters) counts as no text layer, so the page is OCRed.

Word boxes are the union of PDFium's text rectangles over the word's chars (one call per
word, not per char), converted to PDF points with the origin at the top-left of the visible
page, whatever its crop box or rotation.

Pages are rendered for OCR by PDFium too (the same page geometry extraction uses); a page
PDFium cannot draw is drawn by poppler (pdf2image) instead.  A page whose bitmap would be over
the megapixel cap is refused before either draws it (pipelines/parsers/limits.py), and so is a
page that draws an image declared over the image cap, before PDFium decodes it.

A file PDFium will not open gets a second chance through qpdf (pipelines/parsers/pdf_rescue.py):
the empty password, or a rebuilt cross-reference table, noted in the document's facts.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from ctypes import c_double, c_uint
from dataclasses import dataclass
from pathlib import Path

import pdf2image
import pikepdf
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pdf2image.exceptions import PDFPageCountError, PDFPopplerTimeoutError, PDFSyntaxError, PopplerNotInstalledError

from pipelines.dag import Stage
from pipelines.datamodel import Box, DocumentFailed, DocumentKind, PageText
from pipelines.parsers.base import RenderedPage, Survey
from pipelines.parsers.layout import Line, assemble
from pipelines.parsers.limits import ReadLimits, check_chars, check_image_pixels, check_page_pixels, current_limits
from pipelines.parsers.pdf_rescue import Unrescuable, repair, unlock_with_empty_password

POINTS_PER_INCH = 72.0
_HEADER_WINDOW = 1024  # the PDF header may follow some junk; PDF readers look this far for it
_CLEAN_CHARS = str.maketrans(
    {"\ufffe": "-", "\u00ad": "-", "\u00a0": " ", **{chr(c): " " for c in range(32) if chr(c) not in "\r\n"}}
)
_LINE_END = re.compile(r"\r\n|\r|\n")
_WORD = re.compile(r"\S+")
_UNREADABLE = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ue000-\uf8ff\U000f0000-\U0010ffff\ufffd]")
"""Chars no text layer of readable text is made of: control chars (not tab, line ends or form
feed), private-use chars and U+FFFD, what PDFium gives for a glyph it has no Unicode for."""
_SPACES = " \t\r\n\f\u00a0"
MOJIBAKE_SHARE = 0.3
"""A text layer with more unreadable chars than this share of its non-space chars is mojibake.
On CUAD's 419 filings (7,655 pages with 20 chars or more) the largest share is 0, and a page
with a few private-use bullets from a symbol font has well under 1%.  The mojibake of a subset
font without /ToUnicode is ~80% control chars."""
_MIN_CHARS_TO_JUDGE = 20  # fewer non-space chars than this is a page number, not a text layer to judge
_POPPLER_ERRORS = (PopplerNotInstalledError, PDFPageCountError, PDFSyntaxError, PDFPopplerTimeoutError)


class PdfParser:
    kind: DocumentKind = "pdf"

    def sniff(self, path: Path, head: bytes, limits: ReadLimits | None = None) -> bool:
        return b"%PDF-" in head[:_HEADER_WINDOW]

    def survey(self, path: Path, limits: ReadLimits | None = None) -> Survey:
        """Counted by PDFium, which is what extraction will use, so ingest fails what it cannot
        open; the notes say whether qpdf had to repair or unlock it first."""
        notes: list[str] = []
        with open_pdf(path, Stage.INGEST, notes) as pdf:
            pages = len(pdf)
        if pages == 0:
            raise DocumentFailed(Stage.INGEST, "PDF has no pages")
        return Survey(pages, tuple(notes))

    def count_pages(self, path: Path, limits: ReadLimits | None = None) -> int:
        return self.survey(path, limits).page_count

    def extract(self, path: Path, limits: ReadLimits | None = None) -> list[PageText]:
        """A page without a text layer comes back with empty text, so `needs_ocr` sends it to OCR.
        Stops at the page that takes the text over the char cap."""
        limits = limits or current_limits()
        pages: list[PageText] = []
        chars = 0
        with open_pdf(path, Stage.EXTRACT) as pdf:
            for index in range(len(pdf)):
                pages.append(text_layer_page(pdf, index))
                chars += len(pages[-1].text)
                check_chars(Stage.EXTRACT, chars, limits, f" by page {index + 1:,} of {len(pdf):,}")
        return pages

    def render(self, path: Path, page_number: int, dpi: int, limits: ReadLimits | None = None) -> RenderedPage:
        """Drawn by PDFium, else by poppler; fails only when both fail, naming both errors.

        The fallback is per page: a file PDFium cannot open at all was already refused by
        ingest, which opens it the same way.  The page's size is checked against the
        megapixel cap before either draws it.
        """
        limits = limits or current_limits()
        with open_pdf(path, Stage.OCR) as pdf:
            if not 1 <= page_number <= len(pdf):
                raise DocumentFailed(Stage.OCR, f"page {page_number} does not exist (the PDF has {len(pdf)} pages)")
            if size := _page_size(pdf, path, page_number):
                check_page_pixels(Stage.OCR, page_number, *size, dpi, limits)
            try:
                return pdfium_render(pdf, page_number, dpi, limits)
            except pdfium.PdfiumError as pdfium_error:
                try:
                    return poppler_render(path, page_number, dpi)
                except PopplerFailed as poppler_error:
                    raise DocumentFailed(
                        Stage.OCR,
                        f"page {page_number} cannot be rendered: PDFium: {pdfium_error}; poppler: {poppler_error}",
                    ) from poppler_error


@contextmanager
def open_pdf(path: Path, stage: Stage, notes: list[str] | None = None) -> Iterator[pdfium.PdfDocument]:
    """The PDF opened by PDFium and closed after use; a PDF it cannot open fails `stage`
    with the reason a user can act on (a password, a security handler, a broken file).

    Before failing, qpdf tries the empty password or rebuilds the cross-reference table; what
    it did is appended to `notes`, as is opening an owner-password-only file.
    """
    notes = [] if notes is None else notes
    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        pdf = _rescued(path, stage, exc, notes)
    else:
        if pdfium_c.FPDF_GetSecurityHandlerRevision(pdf.raw) >= 0:
            notes.append("encrypted PDF with an owner password only: opened without a password")
    try:
        yield pdf
    finally:
        pdf.close()


def _rescued(path: Path, stage: Stage, exc: pdfium.PdfiumError, notes: list[str]) -> pdfium.PdfDocument:
    """The PDF as qpdf unlocks or repairs it, opened by PDFium; else `DocumentFailed`."""
    if exc.err_code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
        rescued = unlock_with_empty_password(path)
        if rescued is None:
            raise DocumentFailed(stage, _open_failure_reason(exc)) from exc
    else:
        try:
            rescued = repair(path)
        except Unrescuable as why:
            raise DocumentFailed(stage, f"{_open_failure_reason(exc).rstrip('.')}; {why}") from exc
    try:
        pdf = pdfium.PdfDocument(rescued.data)
    except pdfium.PdfiumError as again:
        raise DocumentFailed(stage, f"{_open_failure_reason(again)} (even after qpdf: {rescued.note})") from again
    notes.append(rescued.note)
    return pdf


def _open_failure_reason(exc: pdfium.PdfiumError) -> str:
    if exc.err_code == pdfium_c.FPDF_ERR_PASSWORD:
        return "PDF is encrypted (password required)"
    if exc.err_code == pdfium_c.FPDF_ERR_SECURITY:
        return "PDF is encrypted with an unsupported security handler"
    return f"PDF is corrupt or truncated: {exc}"


# rendering for OCR ------------------------------------------------------------------------


def _page_size(pdf: pdfium.PdfDocument, path: Path, page_number: int) -> tuple[float, float] | None:
    """The page's size in points without drawing it: PDFium's, else qpdf's media box (a page
    PDFium cannot load goes to poppler, which must not draw a poster either)."""
    try:
        return pdf.get_page_size(page_number - 1)
    except pdfium.PdfiumError:
        pass
    try:
        with pikepdf.open(path, password="") as document:
            box = document.pages[page_number - 1].mediabox
            return abs(float(box[2]) - float(box[0])), abs(float(box[3]) - float(box[1]))
    except (pikepdf.PikepdfError, IndexError, ValueError, TypeError):
        return None


class PopplerFailed(Exception):
    """poppler gave no usable image of the page."""


def pdfium_render(pdf: pdfium.PdfDocument, page_number: int, dpi: int,
                  limits: ReadLimits | None = None) -> RenderedPage:
    """The page as PDFium draws it; raises `PdfiumError` for a page it cannot load or draw.

    With `limits`, a page that draws an image over the image megapixel cap is refused before it is
    drawn (`check_image_pixels`): loading the page parses its content, drawing decodes images.
    """
    page = pdf[page_number - 1]
    try:
        if limits is not None and (largest := largest_image(page)):
            check_image_pixels(Stage.OCR, page_number, *largest, limits)
        width, height = page.get_size()
        image = page.render(scale=dpi / POINTS_PER_INCH, grayscale=True).to_pil()
    finally:
        page.close()
    return RenderedPage(image, width, height)


_MAX_FORM_DEPTH = 15  # form XObjects nested deeper than this are not looked into (pypdfium2's default too)


def largest_image(page: pdfium.PdfPage) -> tuple[int, int] | None:
    """The declared (width, height) in pixels of the largest image the page draws, inline
    images and those inside form XObjects included; None if it draws none.

    Read from the page objects PDFium made when it loaded the page, through the raw calls
    (no helper object per page object), and from each image's dictionary: nothing is decoded.
    Images only in soft masks, patterns or annotation appearances are not seen; the OCR
    child's memory limit bounds those.
    """
    width, height = c_uint(), c_uint()
    largest: tuple[int, int] | None = None
    stack = [(page.raw, pdfium_c.FPDFPage_CountObjects, pdfium_c.FPDFPage_GetObject, 0)]
    while stack:
        parent, count, get, depth = stack.pop()
        for i in range(max(0, count(parent))):
            obj = get(parent, i)
            kind = pdfium_c.FPDFPageObj_GetType(obj)
            if kind == pdfium_c.FPDF_PAGEOBJ_IMAGE and pdfium_c.FPDFImageObj_GetImagePixelSize(obj, width, height):
                if largest is None or width.value * height.value > largest[0] * largest[1]:
                    largest = (width.value, height.value)
            elif kind == pdfium_c.FPDF_PAGEOBJ_FORM and depth + 1 < _MAX_FORM_DEPTH:
                stack.append((obj, pdfium_c.FPDFFormObj_CountObjects, pdfium_c.FPDFFormObj_GetObject, depth + 1))
    return largest


def poppler_render(path: Path, page_number: int, dpi: int) -> RenderedPage:
    """The page as poppler's pdftoppm draws it, for pages PDFium cannot draw.

    Its size in points comes from the pixels (within 0.24 pt at 300 dpi), since PDFium could
    not read the page.  Poppler draws a page it cannot find as a 1 x 1 image without an
    error, so such an image counts as a failure.
    """
    try:
        images = pdf2image.convert_from_path(path, dpi=dpi, first_page=page_number, last_page=page_number, grayscale=True)
    except _POPPLER_ERRORS as exc:
        raise PopplerFailed(f"{type(exc).__name__}: {exc}") from exc
    if not images or min(images[0].size) <= 1:
        raise PopplerFailed("no image of the page (pdftoppm found no page to draw)")
    image = images[0]
    points_per_pixel = POINTS_PER_INCH / dpi
    return RenderedPage(image, image.width * points_per_pixel, image.height * points_per_pixel)


# the text layer ---------------------------------------------------------------------------


def text_layer_page(pdf: pdfium.PdfDocument, index: int) -> PageText:
    """One page's clean text and words; closing the page closes its text page too.

    A page PDFium cannot load comes back empty, so it goes to OCR, where poppler draws it
    (`render`); only if that fails too is the page lost, with both reasons on its row.
    """
    try:
        page = pdf[index]
    except pdfium.PdfiumError:
        return PageText(number=index + 1, text="", source="text-layer")
    try:
        width, height = page.get_size()
        textpage = page.get_textpage()
        raw = _raw_text(textpage)
        if is_mojibake(raw):
            return PageText(number=index + 1, text="", source="text-layer", width=width, height=height,
                            unreadable_layer=True)
        raw = raw.translate(_CLEAN_CHARS)
        if not raw.strip():
            return PageText(number=index + 1, text="", source="text-layer", width=width, height=height)
        spans = [match.span() for match in _WORD.finditer(raw)]
        boxes = _PageFrame.of(page).to_top_left(_user_space_boxes(textpage, spans))
        text, words = assemble(raw, _lines(raw, spans, boxes))
        return PageText(number=index + 1, text=text, words=words, source="text-layer", width=width, height=height)
    except pdfium.PdfiumError as exc:
        raise DocumentFailed(Stage.EXTRACT, f"PDF is corrupt or truncated: page {index + 1} cannot be read ({exc})") from exc
    finally:
        page.close()


def is_mojibake(raw: str) -> bool:
    """Whether PDFium's text of a page is mostly chars no readable text is made of.

    A font without a /ToUnicode map whose codes are not Unicode (a subset numbered in order of
    first use, a Type3 font with made-up glyph names) gives control chars for letters: as text
    it is worse than none, since nothing downstream would find a clause in it.  Such a page is
    treated as one without a text layer, so OCR reads what the page shows.  Counted by str.count
    and one regex search: under 0.1 ms for a CUAD page, against ~6 ms to read its text.
    """
    counted = len(raw) - sum(raw.count(space) for space in _SPACES)
    if counted < _MIN_CHARS_TO_JUDGE:
        return False
    return len(_UNREADABLE.findall(raw)) > MOJIBAKE_SHARE * counted


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


def _lines(raw: str, spans: list[tuple[int, int]], boxes: list[Box | None]) -> list[Line]:
    """Split the raw text at PDFium's line ends and give each line its words."""
    lines: list[Line] = []
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
        lines.append(Line(start, end, words))
        start = next_start
    return lines
