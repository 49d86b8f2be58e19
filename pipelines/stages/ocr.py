"""OCR: the text of one PDF page that has no text layer, read by Tesseract.

One page per call, so the pipeline fans a scan out over every CPU worker and a bad page
fails alone.  The page is rendered by PDFium (fast, and the same page geometry extraction
uses), so OCR word boxes are in the same top-left PDF points as text-layer boxes.
"""
from __future__ import annotations

import os
from pathlib import Path

import pypdfium2 as pdfium
import pytesseract
from PIL import Image

from pipelines.datamodel import Box, DocumentFailed, PageText, Word
from pipelines.stages.extract import paragraph_starts

STAGE = "ocr"
DEFAULT_DPI = 300
"""Measured on CUAD's 8-page 300-dpi scan (ops/benchmarks/extract_speed.py): 300 and 200 dpi
read equally well there (97.6% vs 97.5% word agreement with CUAD's ABBYY text, 2.8% vs 2.7%
non-words) and 200 dpi is ~1.3x faster (1.4 vs 1.8 s/page), but 300 dpi is the scan's own
resolution and Tesseract's documented minimum for small print such as footnotes."""
_POINTS_PER_INCH = 72.0
_WORD_LEVEL = 5  # image_to_data rows: 1 page, 2 block, 3 paragraph, 4 line, 5 word


def ocr_page(path: Path, page_number: int, dpi: int = DEFAULT_DPI, language: str = "eng") -> PageText:
    """OCR page `page_number` (1-based) of the PDF at `path` into text, words and boxes.

    Lines are Tesseract's; a blank line marks a paragraph wherever the gap above a line is
    larger than the usual line pitch, the rule extraction uses for text layers, because
    Tesseract's own paragraph numbers split mid-paragraph on hanging indents.
    """
    image, width, height = _render(path, page_number, dpi)
    data = _tesseract_words(image, page_number, language)
    text, words = _layout(data, _POINTS_PER_INCH / dpi)
    return PageText(number=page_number, text=text, words=words, source="ocr", width=width, height=height)


def _render(path: Path, page_number: int, dpi: int) -> tuple[Image.Image, float, float]:
    """The page as a grayscale image at `dpi`, and its size in points."""
    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        raise DocumentFailed(STAGE, f"PDF is corrupt or truncated: {exc}") from exc
    try:
        if not 1 <= page_number <= len(pdf):
            raise DocumentFailed(STAGE, f"page {page_number} does not exist (the PDF has {len(pdf)} pages)")
        page = pdf[page_number - 1]
        width, height = page.get_size()
        bitmap = page.render(scale=dpi / _POINTS_PER_INCH, grayscale=True)
        return bitmap.to_pil(), width, height
    except pdfium.PdfiumError as exc:
        raise DocumentFailed(STAGE, f"page {page_number} cannot be rendered: {exc}") from exc
    finally:
        pdf.close()


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


def _layout(data: dict[str, list], points_per_pixel: float) -> tuple[str, list[Word]]:
    """Page text and words from the word table: Tesseract's lines, joined as extraction does."""
    lines = _lines(data, points_per_pixel)
    starts = paragraph_starts([(min(b[1] for _, b in line), max(b[3] for _, b in line)) for line in lines])
    pieces: list[str] = []
    words: list[Word] = []
    offset = 0
    for i, line in enumerate(lines):
        if i:
            separator = "\n\n" if starts[i] else "\n"
            pieces.append(separator)
            offset += len(separator)
        for j, (word_text, box) in enumerate(line):
            if j:
                pieces.append(" ")
                offset += 1
            words.append(Word(word_text, offset, offset + len(word_text), box))
            pieces.append(word_text)
            offset += len(word_text)
    return "".join(pieces), words


def _lines(data: dict[str, list], points_per_pixel: float) -> list[list[tuple[str, Box]]]:
    """Tesseract's recognised words grouped by (block, paragraph, line), boxes in points."""
    lines: dict[tuple[int, int, int], list[tuple[str, Box]]] = {}
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
        lines.setdefault((data["block_num"][i], data["par_num"][i], data["line_num"][i]), []).append((word_text, box))
    return list(lines.values())
