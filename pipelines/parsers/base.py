"""What every file kind's parser offers the stages, so no stage branches on the kind.

A parser raises `DocumentFailed` for the stage that calls it: `sniff` and `survey` run in
ingest, `extract` in extract, `render` in OCR.  The reason names what is wrong with the file,
since the user reads it in the batch report.  Each takes the `ReadLimits` it must keep
(pipelines/parsers/limits.py; None: this process's settings) and checks them before the work;
the stages call them inside a child process (pipelines/parsers/sandbox.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from PIL import Image

from pipelines.datamodel import DocumentKind, PageText
from pipelines.parsers.limits import ReadLimits


@dataclass(frozen=True)
class RenderedPage:
    """A page as pixels for OCR, with its size in points so OCR boxes match text-layer boxes."""

    image: Image.Image
    width: float
    height: float


@dataclass(frozen=True)
class Survey:
    """What ingest learns by opening a file: its pages, and what had to be done to read it
    ("repaired by qpdf", "decoded as UTF-16"), for the document's facts."""

    page_count: int
    notes: tuple[str, ...] = ()


class Parser(Protocol):
    """The reader of one file kind; stateless, so the registry's one instance serves all."""

    kind: DocumentKind

    def sniff(self, path: Path, head: bytes, limits: ReadLimits | None = None) -> bool:
        """Whether the file's first bytes (`head`) are this kind.

        Raises instead of answering False when the file claims this kind but cannot be one
        (a ZIP without a Word document, an HTML page), so the user learns what the file is.
        """
        ...

    def survey(self, path: Path, limits: ReadLimits | None = None) -> Survey:
        """Pages for the page limit, read as extraction will read them, and notes on the reading."""
        ...

    def count_pages(self, path: Path, limits: ReadLimits | None = None) -> int:
        """`survey(path).page_count`."""
        ...

    def extract(self, path: Path, limits: ReadLimits | None = None) -> list[PageText]:
        """Every page's text and word boxes; a page without text is left for OCR."""
        ...


@runtime_checkable
class PageRenderer(Protocol):
    """A parser whose pages can be drawn for OCR.  Only PDF: a DOCX or text file has no page
    image, and its text is never missing, so nothing of it ever needs OCR."""

    def render(self, path: Path, page_number: int, dpi: int, limits: ReadLimits | None = None) -> RenderedPage:
        """Page `page_number` (1-based) as a grayscale image at `dpi`, refused over the pixel cap."""
        ...
