"""How much a file may make the parsers do, checked before the work, with reasons that name the limit.

Every limit comes from `Settings` (the `CLAUSEMILL_*` variable is named in each reason, so the
person who reads the batch report knows which knob would let the file through).  The checks
are cheap arithmetic on sizes a file declares (page size, zip entry sizes, byte counts), so a
hostile file is refused before it costs memory or time; what slips past them is bounded by
the child process each parse runs in (pipelines/parsers/sandbox.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from pipelines.dag import SPECS, Stage
from pipelines.datamodel import DocumentFailed
from pipelines.settings import Settings, get_settings

MAX_BYTES_PER_CHAR = 4
"""No text encoding clausemill reads spends more than 4 bytes on a char (UTF-8, UTF-32), so a
text file over 4 bytes x max_document_chars is over the cap before it is decoded."""


@dataclass(frozen=True)
class ReadLimits:
    """The limits of `Settings` that parsing applies, as one plain value a child can inherit."""

    memory_mb: int
    time_margin_s: int
    stage_time_s: tuple[tuple[Stage, int], ...]
    max_page_megapixels: float
    max_image_megapixels: float
    max_docx_mb: float
    max_docx_entries: int
    max_chars: int
    max_segments: int

    @classmethod
    def from_settings(cls, settings: Settings) -> ReadLimits:
        return cls(
            memory_mb=settings.parse_memory_limit_mb,
            time_margin_s=settings.parse_time_margin_s,
            stage_time_s=tuple((stage, settings.time_limit_s(spec)) for stage, spec in SPECS.items()),
            max_page_megapixels=settings.max_page_megapixels,
            max_image_megapixels=settings.max_image_megapixels,
            max_docx_mb=settings.max_docx_uncompressed_mb,
            max_docx_entries=settings.max_docx_entries,
            max_chars=settings.max_document_chars,
            max_segments=settings.max_segments,
        )

    def time_s(self, stage: Stage) -> float:
        """A parse's wall-clock limit: its stage's soft time limit less the margin, so the parse
        is stopped with a reason before Celery stops the task without one."""
        limit = dict(self.stage_time_s)[stage]
        return float(max(1, limit - self.time_margin_s))

    def time_setting(self, stage: Stage) -> str:
        return "CLAUSEMILL_" + SPECS[stage].time_limit_setting.upper()


def current_limits() -> ReadLimits:
    """The limits of this process's settings, for callers that were given none."""
    return ReadLimits.from_settings(get_settings())


# the checks -----------------------------------------------------------------------------------


def check_page_pixels(stage: Stage, page_number: int, width_pt: float, height_pt: float, dpi: int,
                      limits: ReadLimits) -> None:
    """Refuse to draw a page whose bitmap at `dpi` would be over the megapixel cap.

    A 200 x 200 inch page (the largest PDF allows without UserUnit) is 3,600 megapixels at
    300 dpi: 3.6 GB of grayscale before Tesseract makes its own copies.
    """
    width_px, height_px = width_pt / 72.0 * dpi, height_pt / 72.0 * dpi
    megapixels = width_px * height_px / 1e6
    if megapixels > limits.max_page_megapixels:
        raise DocumentFailed(
            stage,
            f"page {page_number} is {width_pt / 72:.0f} x {height_pt / 72:.0f} in: drawn at {dpi} dpi it would be "
            f"{width_px:,.0f} x {height_px:,.0f} pixels ({megapixels:,.0f} megapixels), over the limit of "
            f"{limits.max_page_megapixels:g} megapixels (CLAUSEMILL_MAX_PAGE_MEGAPIXELS)",
        )


def check_image_pixels(stage: Stage, page_number: int, width_px: int, height_px: int, limits: ReadLimits) -> None:
    """Refuse to draw a page that draws an image over the image megapixel cap, from the size the
    image declares (its dictionary's /Width and /Height: nothing is decoded to know it).

    PDFium decodes an image whole before it scales it onto the page, so the page's own size
    says nothing of the cost: a 40,000 x 40,000 gray image on a letter page is 1,600 MB of
    pixels, though the page at 300 dpi is 8 megapixels.  Short of memory, PDFium leaves the
    image out and the page is drawn blank, which OCR would read as a page without words.
    """
    megapixels = width_px * height_px / 1e6
    if megapixels > limits.max_image_megapixels:
        raise DocumentFailed(
            stage,
            f"page {page_number} draws an image of {width_px:,} x {height_px:,} pixels ({megapixels:,.0f} megapixels), "
            f"over the limit of {limits.max_image_megapixels:g} megapixels (CLAUSEMILL_MAX_IMAGE_MEGAPIXELS)",
        )


def check_zip_entries(stage: Stage, entries: int, uncompressed_bytes: int, limits: ReadLimits) -> None:
    """Refuse a .docx whose entries would unpack past the caps, from its central directory alone.

    The declared sizes are a true bound: Python's zipfile stops inflating an entry at its
    declared size (and then fails its CRC), so an entry cannot unpack to more than it claims.
    """
    if entries > limits.max_docx_entries:
        raise DocumentFailed(
            stage, f"DOCX holds {entries:,} files, over the limit of {limits.max_docx_entries:,} "
            "(CLAUSEMILL_MAX_DOCX_ENTRIES): not a Word document as Word writes them",
        )
    megabytes = uncompressed_bytes / (1 << 20)
    if megabytes > limits.max_docx_mb:
        raise DocumentFailed(
            stage, f"DOCX would unpack to {megabytes:,.0f} MB, over the limit of {limits.max_docx_mb:g} MB "
            "(CLAUSEMILL_MAX_DOCX_UNCOMPRESSED_MB): a zip bomb, or a document carrying that much media",
        )


def check_chars(stage: Stage, chars: int, limits: ReadLimits, where: str = "") -> None:
    """Refuse a document whose text is over the char cap; `where` says where it passed it."""
    if chars > limits.max_chars:
        raise DocumentFailed(
            stage, f"the text is over the limit of {limits.max_chars:,} characters "
            f"(CLAUSEMILL_MAX_DOCUMENT_CHARS): {chars:,}{where}",
        )


def check_text_bytes(stage: Stage, size_bytes: int, limits: ReadLimits) -> None:
    """Refuse a text file too large to hold under the char cap in any encoding, before reading it."""
    if size_bytes > MAX_BYTES_PER_CHAR * limits.max_chars:
        raise DocumentFailed(
            stage, f"the text is over the limit of {limits.max_chars:,} characters (CLAUSEMILL_MAX_DOCUMENT_CHARS): "
            f"the file has {size_bytes:,} bytes, more than {MAX_BYTES_PER_CHAR} per allowed character",
        )


def check_segments(stage: Stage, segments: int, limits: ReadLimits) -> None:
    if segments > limits.max_segments:
        raise DocumentFailed(
            stage, f"{segments:,} segments, over the limit of {limits.max_segments:,} (CLAUSEMILL_MAX_SEGMENTS)",
        )
