"""Writing a synthetic contract as the files clients send: PDF, scanned PDF, text, Word.

Every format carries the same words as `SyntheticContract.text`, so one set of expected
clauses serves them all; only layout differs (wrapping, page footers, OCR noise).
"""
from __future__ import annotations

import io
import random
from pathlib import Path
from xml.sax.saxutils import escape

import docx
import pypdfium2 as pdfium
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Pt
from PIL import Image
from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, KeepTogether, Paragraph, SimpleDocTemplate

from pipelines.samples.contracts import SyntheticContract

_BODY = ParagraphStyle("body", fontName="Times-Roman", fontSize=11, leading=14, alignment=TA_JUSTIFY, spaceAfter=7)
_STYLES = {
    "title": ParagraphStyle("title", fontName="Times-Bold", fontSize=14, leading=18, alignment=TA_CENTER,
                            spaceAfter=16),
    "heading": ParagraphStyle("heading", fontName="Times-Bold", fontSize=11, leading=14, spaceBefore=8,
                              spaceAfter=6, keepWithNext=1),
    "body": _BODY,
    "signature": ParagraphStyle("signature", parent=_BODY, alignment=0, spaceBefore=14),
}


def pdf_bytes(contract: SyntheticContract) -> tuple[bytes, int]:
    """The contract as a letter-size PDF with a real text layer, and its page count.

    Paragraphs are kept whole on one page, so no page footer ever interrupts a clause in the
    extracted text.  `invariant=1` drops timestamps and random ids: same contract, same bytes.
    """
    buffer = io.BytesIO()
    document = SimpleDocTemplate(buffer, pagesize=LETTER, leftMargin=inch, rightMargin=inch, topMargin=inch,
                                 bottomMargin=inch, invariant=1)
    flowables: list[Flowable] = []
    for block in contract.blocks:
        markup = "<br/>".join(escape(line) for line in block.text.split("\n"))
        if block.lead:
            markup = f"<b>{escape(block.lead)}</b> {markup}"
        paragraph = Paragraph(markup, _STYLES[block.style])
        flowables.append(paragraph if block.style == "heading" else KeepTogether([paragraph]))
    document.build(flowables, onFirstPage=_footer, onLaterPages=_footer)
    return buffer.getvalue(), document.page


def _footer(canvas: Canvas, document: SimpleDocTemplate) -> None:
    canvas.saveState()
    canvas.setFont("Times-Roman", 9)
    canvas.drawCentredString(LETTER[0] / 2, 0.5 * inch, f"Page {document.page}")
    canvas.restoreState()


def write_text_pdf(contract: SyntheticContract, path: Path) -> int:
    """Writes the contract as a PDF with a text layer; returns its page count."""
    data, pages = pdf_bytes(contract)
    path.write_bytes(data)
    return pages


def write_scanned_pdf(contract: SyntheticContract, path: Path, dpi: int = 150) -> int:
    """Writes the contract as a scan would arrive: page images only, no text layer.

    The text PDF's pages are rasterised, tilted a fraction of a degree and speckled, so OCR
    meets the small imperfections of a real scanner.  Returns the page count.
    """
    rng = random.Random(contract.seed)
    document = pdfium.PdfDocument(pdf_bytes(contract)[0])
    try:
        scans = [_scanned(page.render(scale=dpi / 72, grayscale=True).to_pil(), rng) for page in document]
    finally:
        document.close()
    scanned_on = contract.agreement_date.timetuple()  # not the current time, so the bytes repeat
    scans[0].save(path, "PDF", save_all=True, append_images=scans[1:], resolution=float(dpi), title="Scan",
                  creationDate=scanned_on, modDate=scanned_on)
    return len(scans)


def _scanned(page: Image.Image, rng: random.Random) -> Image.Image:
    page = page.convert("L").rotate(rng.uniform(-0.5, 0.5), resample=Image.Resampling.BICUBIC, fillcolor=255)
    noise = Image.frombytes("L", page.size, rng.randbytes(page.width * page.height))
    return Image.blend(page, noise, 0.06)


def write_txt(contract: SyntheticContract, path: Path) -> None:
    path.write_text(contract.text + "\n", encoding="utf-8")


def write_docx(contract: SyntheticContract, path: Path) -> None:
    """Writes the contract as a Word document, one Word paragraph per block.

    Signature lines are line breaks inside one paragraph, so each Word paragraph's text is
    exactly a block's text.
    """
    document = docx.Document()
    document.styles["Normal"].font.name = "Times New Roman"
    document.styles["Normal"].font.size = Pt(11)
    for block in contract.blocks:
        paragraph = document.add_paragraph()
        if block.style == "title":
            paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
        if block.lead:
            paragraph.add_run(block.lead).bold = True
            paragraph.add_run(" ")
        run = paragraph.add_run(block.text)  # python-docx turns "\n" into line breaks
        run.bold = block.style in ("title", "heading")
        if block.style == "title":
            run.font.size = Pt(14)
    document.save(str(path))
