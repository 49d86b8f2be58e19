"""A contract page as a PNG for the item page, with the evidence boxed on it.

Pages are drawn by PDFium (the parser's own renderer, pipelines/parsers/pdf.py, so the image
has the geometry the word boxes were measured on) and cached under the data folder, keyed
by the document's sha256, the page and the scale: the same bytes draw the same page, so a
re-audited or duplicated contract shares its images and nothing ever goes stale.  The boxes
are drawn on a copy at each request; they differ per item, the drawing is cheap and the
rendering is not.

The rendering is a parse of untrusted bytes like OCR's, so it runs the same way: in a child
process with the parse memory limit and OCR's time limit (pipelines/parsers/sandbox.py), after
the page-pixel check; a page that needs more is unavailable, and the app keeps serving.

Boxes are (x0, top, x1, bottom) in PDF points from the top-left of the page as displayed
(pipelines.datamodel.Box): the parser already flipped PDF's bottom-up y axis, so a point
maps to the pixel `point × scale` on both axes.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw

from pipelines.dag import Stage
from pipelines.datamodel import Box, DocumentFailed
from pipelines.parsers.limits import ReadLimits, current_limits
from pipelines.parsers.pdf import POINTS_PER_INCH, PdfParser
from pipelines.parsers.sandbox import parse_isolated

SCALE = 1.5
"""Pixels per point: 108 dpi, a US Letter page 918 px wide, legible beside the item's text."""
HIGHLIGHT = (255, 200, 0, 90)
OUTLINE = (220, 30, 30, 255)
PAD_PT = 2.0


class PageUnavailable(Exception):
    """The page cannot be drawn (the file moved or changed, or has no such page); the message
    says which, for the reviewer, and never where the file lies on the server (the caller
    names the document and the page, and logs the path for the operator)."""


def page_png(cache_dir: Path, pdf: Path, sha256: str, page: int, boxes: Sequence[Box], scale: float = SCALE,
             limits: ReadLimits | None = None) -> bytes:
    """Page `page` (1-based) of `pdf` as PNG bytes, each box highlighted and outlined."""
    plain = _cached_page(cache_dir, pdf, sha256, page, scale, limits or current_limits())
    image = Image.open(io.BytesIO(plain)).convert("RGBA")
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for box in boxes:
        draw.rectangle(_pixels(box, scale), fill=HIGHLIGHT)
    if boxes:  # one outline around the passage, not a cage around each of its lines
        around = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
        draw.rectangle(_pixels(around, scale, pad=2 * PAD_PT), outline=OUTLINE, width=3)
    out = io.BytesIO()
    Image.alpha_composite(image, overlay).convert("RGB").save(out, format="PNG", optimize=False)
    return out.getvalue()


def _pixels(box: Box, scale: float, pad: float = PAD_PT) -> tuple[float, float, float, float]:
    x0, top, x1, bottom = box
    return (x0 - pad) * scale, (top - pad) * scale, (x1 + pad) * scale, (bottom + pad) * scale


def _cached_page(cache_dir: Path, pdf: Path, sha256: str, page: int, scale: float, limits: ReadLimits) -> bytes:
    """The plain page as PNG, rendered once.  The file is checked against the sha256 the audit
    recorded before its first rendering, so a contract replaced on disk is never shown as the
    one that was audited.  Written to a temporary name and renamed: a reader never sees half."""
    cached = cache_dir / f"{sha256}-p{page}-x{scale:g}.png"
    if cached.exists():
        return cached.read_bytes()
    try:
        data = pdf.read_bytes()
    except OSError as error:
        raise PageUnavailable(f"the contract file cannot be read ({error.strerror})") from error
    if hashlib.sha256(data).hexdigest() != sha256:
        raise PageUnavailable("the contract file changed since it was audited")
    dpi = round(scale * POINTS_PER_INCH)
    try:
        png = base64.b64decode(parse_isolated(Stage.OCR, lambda: _render_png(pdf, page, dpi, limits), limits,
                                              f"to draw page {page}"))
    except DocumentFailed as error:
        raise PageUnavailable(f"page {page} cannot be drawn: {error.reason}") from error
    cache_dir.mkdir(parents=True, exist_ok=True)
    staging = cached.with_name(f".{cached.name}.{os.getpid()}.{threading.get_ident()}")
    staging.write_bytes(png)
    staging.replace(cached)
    return png


def _render_png(pdf: Path, page: int, dpi: int, limits: ReadLimits) -> str:
    """In the child: the page as base64 PNG (the child's result travels as JSON)."""
    out = io.BytesIO()
    PdfParser().render(pdf, page, dpi=dpi, limits=limits).image.save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode("ascii")
