"""OCR: the text of one PDF page that has no text layer, read by Tesseract.

One page per call, so the pipeline fans a scan out over every CPU worker and a bad page
fails alone.  The file's parser draws the page (pipelines/parsers/pdf.py: PDFium, the same
page geometry extraction uses, with poppler as fallback), so OCR word boxes are in the same
top-left PDF points as text-layer boxes.

Drawing and reading run in a child process with memory and time limits
(pipelines/parsers/sandbox.py), Tesseract included (it is the child's child, in its process
group); the page's size is checked against the megapixel cap before it is drawn, and PIL
refuses images over the same cap.
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytesseract
from PIL import Image

from pipelines.dag import Stage
from pipelines.datamodel import Box, DocumentFailed, PageText, Word
from pipelines.parsers import renderer_for, sniff_kind
from pipelines.parsers.base import RenderedPage
from pipelines.parsers.layout import Line, assemble
from pipelines.parsers.limits import ReadLimits, current_limits
from pipelines.parsers.page_json import page_from_json, page_to_json
from pipelines.parsers.pdf import POINTS_PER_INCH
from pipelines.parsers.sandbox import parse_isolated

STAGE = Stage.OCR
DEFAULT_DPI = 300
"""Measured on CUAD's 8-page 300-dpi scan (ops/benchmarks/extract_speed.py): 300 and 200 dpi
read equally well there (97.6% vs 97.5% word agreement with CUAD's ABBYY text, 2.8% vs 2.7%
non-words) and 200 dpi is ~1.3x faster (1.4 vs 1.8 s/page), but 300 dpi is the scan's own
resolution and Tesseract's documented minimum for small print such as footnotes."""
_WORD_LEVEL = 5  # image_to_data rows: 1 page, 2 block, 3 paragraph, 4 line, 5 word
MIN_MEAN_CONFIDENCE = 50.0
"""Tesseract's mean word confidence under which a page may be turned.  Measured on page 1 of the
synthetic contract's 150-dpi scan drawn at 300 dpi: 95 upright, 32 sideways.  Orientation
detection costs ~75% of a page's OCR (3.1 s against 4.0 s there, on the busy 2-core machine),
so it is asked only below this."""
MIN_ORIENTATION_CONFIDENCE = 2.0
"""Tesseract's orientation confidence below which its answer is not acted on (29 on that page,
upright or sideways).  A turn is kept only if the turned page then reads more confidently."""


def ocr_page(path: Path, page_number: int, dpi: int = DEFAULT_DPI, language: str = "eng",
             limits: ReadLimits | None = None) -> PageText:
    """OCR page `page_number` (1-based) of the PDF at `path` into text, words and boxes."""
    limits = limits or current_limits()
    os.environ["OMP_THREAD_LIMIT"] = "1"  # before the fork, so the child's Tesseract inherits it
    found = parse_isolated(STAGE, lambda: page_to_json(_draw_and_read(path, page_number, dpi, language, limits)),
                           limits, f"to draw and read page {page_number}")
    return page_from_json(found)


def _draw_and_read(path: Path, page_number: int, dpi: int, language: str, limits: ReadLimits) -> PageText:
    """In the child: PIL held to the page cap too (an image over it raises, not warns), then
    the page drawn and read."""
    Image.MAX_IMAGE_PIXELS = int(limits.max_page_megapixels * 1e6)
    warnings.simplefilter("error", Image.DecompressionBombWarning)
    try:
        page = renderer_for(sniff_kind(path, limits)).render(path, page_number, dpi, limits)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise DocumentFailed(STAGE, f"page {page_number} drawn is an image over the limit of "
                                    f"{limits.max_page_megapixels:g} megapixels (CLAUSEMILL_MAX_PAGE_MEGAPIXELS): {exc}")
    return ocr_image(page, page_number, dpi, language)


def ocr_image(page: RenderedPage, page_number: int, dpi: int, language: str = "eng") -> PageText:
    """OCR a page already drawn at `dpi`; apart from `ocr_page` so renderers can be compared.

    Lines are Tesseract's; a blank line marks a paragraph wherever the gap above a line is
    larger than the usual line pitch, the rule extraction uses for text layers, because
    Tesseract's own paragraph numbers split mid-paragraph on hanging indents.

    A page that reads poorly may be a scan fed sideways or upside down: Tesseract's
    orientation detection (`upright_turn`) is asked then, and only then, and a confident
    answer turns the image and reads it again.  The words' boxes are turned back, so they are
    on the page as it is shown, like every other box.
    """
    data = _tesseract_words(page.image, page_number, language)
    turn = 0
    if reads_poorly(data) and (turn := upright_turn(page.image, page_number)):
        again = _tesseract_words(page.image.rotate(turn, expand=True), page_number, language)
        if _mean_confidence(again) > _mean_confidence(data):
            data = again
        else:
            turn = 0
    text, words = assemble(*_lines(data, POINTS_PER_INCH / dpi))
    if turn:
        words = [Word(w.text, w.start, w.end, _turned_back(w.box, turn, page.width, page.height)) for w in words]
    return PageText(number=page_number, text=text, words=words, source="ocr", width=page.width, height=page.height)


def reads_poorly(data: dict[str, list]) -> bool:
    """Whether Tesseract read words, but too unsure of them for a page the right way up.

    MIN_MEAN_CONFIDENCE is far under what upright pages get, so orientation detection, which
    costs nearly a second reading, is only asked about pages that need it.  A page without a
    word (blank, or glyphs that are no letters) is not asked either: it has no lines to turn.
    """
    return bool(_confidences(data)) and _mean_confidence(data) < MIN_MEAN_CONFIDENCE


def upright_turn(image: Image.Image, page_number: int) -> int:
    """Degrees counterclockwise (90, 180, 270) to turn `image` upright, by Tesseract's
    orientation detection (osd.traineddata); 0 when it says upright, is not confident, finds
    too little text to tell, or is not installed."""
    try:
        osd = pytesseract.image_to_osd(image, output_type=pytesseract.Output.DICT)
    except pytesseract.TesseractNotFoundError as exc:
        raise DocumentFailed(STAGE, "tesseract is not installed or not on PATH") from exc
    except pytesseract.TesseractError:  # "Too few characters", or no osd.traineddata
        return 0
    if float(osd.get("orientation_conf", 0)) < MIN_ORIENTATION_CONFIDENCE:
        return 0
    return (360 - int(osd.get("rotate", 0))) % 360  # Tesseract's "rotate" is clockwise


def _turned_back(box: Box, turn: int, width: float, height: float) -> Box:
    """A box on the image turned `turn` degrees counterclockwise, as a box on the page as it
    is shown (`width` x `height` points)."""
    u0, v0, u1, v1 = box
    if turn == 90:
        return (width - v1, u0, width - v0, u1)
    if turn == 180:
        return (width - u1, height - v1, width - u0, height - v0)
    return (v0, height - u1, v1, height - u0)  # 270


def _confidences(data: dict[str, list]) -> list[float]:
    return [float(conf) for level, text, conf in zip(data["level"], data["text"], data["conf"])
            if level == _WORD_LEVEL and text.strip() and float(conf) >= 0]


def _mean_confidence(data: dict[str, list]) -> float:
    confidences = _confidences(data)
    return sum(confidences) / len(confidences) if confidences else 0.0


def _tesseract_words(image: Image.Image, page_number: int, language: str) -> dict[str, list]:
    """Tesseract's word table for the image.

    OMP_THREAD_LIMIT=1 because Tesseract's OpenMP threads fight the other workers for the same
    cores: on a busy 2-core machine a 300-dpi CUAD page took 3.8 s with them and 1.4 s without.
    The pipeline gets its parallelism from one page per worker instead.
    """
    os.environ["OMP_THREAD_LIMIT"] = "1"
    try:
        return pytesseract.image_to_data(image, lang=language, output_type=pytesseract.Output.DICT)
    except pytesseract.TesseractNotFoundError as exc:
        raise DocumentFailed(STAGE, "tesseract is not installed or not on PATH") from exc
    except pytesseract.TesseractError as exc:
        raise DocumentFailed(STAGE, f"tesseract failed on page {page_number}: {exc.message.strip()}") from exc


def _lines(data: dict[str, list], points_per_pixel: float) -> tuple[str, list[Line]]:
    """Tesseract's recognised words grouped by (block, paragraph, line), boxes in points, as a
    raw text of one line per row with words one space apart, the input `assemble` takes."""
    rows: dict[tuple[int, int, int], list[tuple[str, Box]]] = {}
    for i, raw_text in enumerate(data["text"]):
        word_text = raw_text.strip()
        if data["level"][i] != _WORD_LEVEL or not word_text:
            continue
        left, top = data["left"][i], data["top"][i]
        box: Box = (
            left * points_per_pixel,
            top * points_per_pixel,
            (left + data["width"][i]) * points_per_pixel,
            (top + data["height"][i]) * points_per_pixel,
        )
        rows.setdefault((data["block_num"][i], data["par_num"][i], data["line_num"][i]), []).append((word_text, box))
    lines: list[Line] = []
    offset = 0
    for row in rows.values():
        start, words = offset, []
        for word_text, box in row:
            words.append((offset, offset + len(word_text), box))
            offset += len(word_text) + 1  # the space or line end after it
        lines.append(Line(start, offset - 1, words))
    return "\n".join(" ".join(word_text for word_text, _ in row) for row in rows.values()), lines
