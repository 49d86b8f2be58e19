"""The parser registry on real files: kinds found by content, the one PDF open-failure path,
page counts, and the poppler fallback when PDFium cannot draw a page.

Every input is generated (reportlab, pikepdf, and test_stages.py's Pillow scan and python-docx
writers); the broken PDFs are broken the way real ones are, in their page tree or encryption
dictionary, so PDFium and poppler fail for real.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed
from pipelines.parsers import PARSERS, parser_for, renderer_for, sniff_kind
from pipelines.parsers.pdf import PdfParser, open_pdf, pdfium_render, poppler_render
from pipelines.stages.extract import extract_text_layer
from pipelines.stages.ocr import ocr_image, ocr_page
from test_stages import SCANNED_WORDS, _write_docx, _write_image_pdf  # the same generated inputs

SCAN_DPI = 200  # the resolution _write_image_pdf draws at


def _write_text_pdf(path: Path, pages: int) -> None:
    pdf = canvas.Canvas(str(path), pagesize=letter)
    for number in range(1, pages + 1):
        pdf.drawString(72, 720, f"Page {number} of the agreement.")
        pdf.showPage()
    pdf.save()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("parser-inputs")
    paths = {name: folder / name for name in (
        "three.pdf", "scan.pdf", "junk-first.pdf", "encrypted.pdf", "handler.pdf", "truncated.pdf",
        "page-unloadable.pdf", "page-missing.pdf", "contract.docx", "contract.txt", "letter.rtf", "page.txt",
        "named.pdf", "broken.docx", "sheet.docx", "blob.bin",
    )}
    _write_text_pdf(paths["three.pdf"], pages=3)
    _write_image_pdf(paths["scan.pdf"])
    three = paths["three.pdf"].read_bytes()
    paths["junk-first.pdf"].write_bytes(b"Content-Type: application/pdf\r\n\r\n" + three)  # a saved e-mail part
    paths["truncated.pdf"].write_bytes(three[: len(three) // 2])
    with pikepdf.open(paths["three.pdf"]) as pdf:
        pdf.save(paths["encrypted.pdf"], encryption=pikepdf.Encryption(user="secret", owner="owner"))
        pdf.save(paths["handler.pdf"], encryption=pikepdf.Encryption(user="", owner="owner", R=4))
    # Adobe's public-key handler in place of the standard one (same length: offsets stay valid).
    owner_only = paths["handler.pdf"].read_bytes()
    assert owner_only.count(b"/Filter /Standard") == 1
    paths["handler.pdf"].write_bytes(owner_only.replace(b"/Filter /Standard", b"/Filter /Adobe.PPK"))
    # A page typed /Pages: PDFium counts it but cannot load it; poppler draws it.
    with pikepdf.open(paths["scan.pdf"]) as pdf:
        pdf.Root.Pages.Kids[0].Type = pikepdf.Name.Pages
        pdf.save(paths["page-unloadable.pdf"])
    # A page tree that counts a page it does not hold: neither PDFium nor poppler finds page 2.
    _write_text_pdf(paths["page-missing.pdf"], pages=1)
    one = paths["page-missing.pdf"].read_bytes()
    assert one.count(b"/Count 1 ") == 1
    paths["page-missing.pdf"].write_bytes(one.replace(b"/Count 1 ", b"/Count 2 "))
    _write_docx(paths["contract.docx"])
    paths["contract.txt"].write_bytes(b"Page one.\fPage two.\fPage three.\f")
    paths["letter.rtf"].write_bytes(b"{\\rtf1\\ansi This Agreement is made ...}")
    paths["page.txt"].write_bytes(b"<!DOCTYPE html><html><body>Sign in to continue</body></html>")
    paths["named.pdf"].write_bytes(b"This Agreement is plain text.")
    paths["broken.docx"].write_bytes(b"PK\x03\x04" + b"\x00" * 64)
    with zipfile.ZipFile(paths["sheet.docx"], "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    paths["blob.bin"].write_bytes(bytes(range(256)) * 8)
    return paths


# the registry ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [("three.pdf", "pdf"), ("junk-first.pdf", "pdf"), ("contract.docx", "docx"), ("contract.txt", "txt")],
)
def test_each_kind_is_found_by_content(files: dict[str, Path], tmp_path: Path, name: str, kind: str) -> None:
    assert sniff_kind(files[name]) == kind
    renamed = tmp_path / "upload.bin"  # the name plays no part
    renamed.write_bytes(files[name].read_bytes())
    assert sniff_kind(renamed) == kind
    assert parser_for(kind, Stage.INGEST).kind == kind


def test_every_kind_has_one_parser() -> None:
    kinds = [parser.kind for parser in PARSERS]
    assert sorted(kinds) == ["docx", "pdf", "txt"]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("letter.rtf", "not a PDF, DOCX or text file: starts with RTF document signature"),  # text, but not plain
        ("page.txt", "not a contract file: an HTML/XML page"),
        ("named.pdf", "named .pdf but holds plain text"),
        ("broken.docx", "DOCX/ZIP is corrupt or truncated: "),
        ("sheet.docx", "not a PDF, DOCX or text file: ZIP archive without word/document.xml"),
        ("blob.bin", "not a PDF, DOCX or text file: binary data of unknown type"),
    ],
)
def test_files_no_parser_reads_are_refused_with_a_reason(files: dict[str, Path], name: str, reason: str) -> None:
    with pytest.raises(DocumentFailed) as failure:
        sniff_kind(files[name])
    assert failure.value.stage == Stage.INGEST
    assert failure.value.reason.startswith(reason)


def test_an_unknown_kind_fails_the_stage_that_asked() -> None:
    with pytest.raises(DocumentFailed) as failure:
        parser_for("xlsx", Stage.EXTRACT)
    assert failure.value.stage == Stage.EXTRACT
    assert failure.value.reason == "cannot read a 'xlsx' file: clausemill reads pdf, docx, txt"


def test_only_pdf_pages_are_drawn_for_ocr(files: dict[str, Path]) -> None:
    assert isinstance(renderer_for("pdf"), PdfParser)
    with pytest.raises(DocumentFailed, match="cannot OCR a docx file: it has no page images") as failure:
        ocr_page(files["contract.docx"], 1)
    assert failure.value.stage == Stage.OCR


# opening a PDF --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("encrypted.pdf", "PDF is encrypted (password required)"),
        ("handler.pdf", "PDF is encrypted with an unsupported security handler"),
        ("truncated.pdf", "PDF is corrupt or truncated: "),
    ],
)
def test_every_pdf_use_fails_to_open_the_same_way(files: dict[str, Path], name: str, reason: str) -> None:
    """Counting (ingest), extraction and rendering (OCR) share one open: same reason, own stage."""
    parser = PdfParser()
    uses = {
        Stage.INGEST: lambda: parser.count_pages(files[name]),
        Stage.EXTRACT: lambda: parser.extract(files[name]),
        Stage.OCR: lambda: parser.render(files[name], 1, SCAN_DPI),
    }
    for stage, use in uses.items():
        with pytest.raises(DocumentFailed) as failure:
            use()
        assert (failure.value.stage, failure.value.reason[: len(reason)]) == (stage, reason)


def test_open_pdf_closes_the_document_even_on_failure(files: dict[str, Path]) -> None:
    with pytest.raises(RuntimeError):
        with open_pdf(files["three.pdf"], Stage.EXTRACT) as pdf:
            assert len(pdf) == 3
            raise RuntimeError("a stage failed while the PDF was open")
    assert pdf.raw is None  # pypdfium2 drops the handle when the document is closed


# page counts ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind", "pages"),
    [("three.pdf", "pdf", 3), ("junk-first.pdf", "pdf", 3), ("contract.txt", "txt", 3), ("contract.docx", "docx", 1)],
)
def test_page_counts(files: dict[str, Path], name: str, kind: str, pages: int) -> None:
    parser = parser_for(kind, Stage.INGEST)
    assert parser.count_pages(files[name]) == pages
    assert len(parser.extract(files[name])) == pages  # ingest counts the pages extraction gives


# rendering for OCR ----------------------------------------------------------------------------


def test_poppler_draws_a_page_ocr_reads_as_pdfium_draws_it(files: dict[str, Path]) -> None:
    with open_pdf(files["scan.pdf"], Stage.OCR) as pdf:
        by_pdfium = ocr_image(pdfium_render(pdf, 1, SCAN_DPI), 1, SCAN_DPI)
    by_poppler = ocr_image(poppler_render(files["scan.pdf"], 1, SCAN_DPI), 1, SCAN_DPI)
    assert [w for w in SCANNED_WORDS if w not in by_poppler.text.split()] == []
    assert by_poppler.text.split() == by_pdfium.text.split()
    assert (by_poppler.width, by_poppler.height) == pytest.approx((by_pdfium.width, by_pdfium.height), abs=72 / SCAN_DPI)


def test_ocr_falls_back_to_poppler_when_pdfium_cannot_draw_the_page(files: dict[str, Path]) -> None:
    path = files["page-unloadable.pdf"]
    with open_pdf(path, Stage.OCR) as pdf, pytest.raises(pdfium.PdfiumError):
        pdfium_render(pdf, 1, SCAN_DPI)  # the failure is PDFium's own, not staged
    page = ocr_page(path, 1, dpi=SCAN_DPI)
    assert [w for w in SCANNED_WORDS if w not in page.text.split()] == []
    assert (page.width, page.height) == pytest.approx((612, 792))  # 1700 x 2200 px at 200 dpi
    licensor = next(w for w in page.words if w.text == "Licensor")
    assert licensor.box[1] == pytest.approx((200 + 90) * 72 / SCAN_DPI, abs=6)


def test_a_page_pdfium_cannot_load_goes_to_ocr_instead_of_failing_the_document(files: dict[str, Path]) -> None:
    pages = extract_text_layer(files["page-unloadable.pdf"], "pdf")
    assert [(p.number, p.text, p.needs_ocr) for p in pages] == [(1, "", True)]


def test_a_page_neither_renderer_can_draw_fails_naming_both(files: dict[str, Path]) -> None:
    with pytest.raises(DocumentFailed) as failure:
        PdfParser().render(files["page-missing.pdf"], 2, SCAN_DPI)
    assert failure.value.stage == Stage.OCR
    assert failure.value.reason.startswith("page 2 cannot be rendered: PDFium: Failed to load page")
    assert "; poppler: no image of the page" in failure.value.reason


def test_a_page_past_the_end_is_refused_before_drawing(files: dict[str, Path]) -> None:
    with pytest.raises(DocumentFailed, match=r"page 4 does not exist \(the PDF has 3 pages\)"):
        PdfParser().render(files["three.pdf"], 4, SCAN_DPI)
