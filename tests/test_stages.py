"""The document stages on real files: ingest, text-layer extraction, OCR, segmentation.

Every input is generated here (reportlab, Pillow, pikepdf, python-docx) so the tests need no
sample data; the CUAD checks at the end use ../shared beside the repo and skip without it.
"""
from __future__ import annotations

import hashlib
import os
import re
import zipfile
from pathlib import Path

import docx
import pikepdf
import pytest
from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from pipelines.datamodel import DocumentFailed, PageText, document_text
from pipelines.stages.extract import extract_text_layer
from pipelines.stages.ingest import inspect_file
from pipelines.stages.ocr import ocr_page
from pipelines.stages.segment import MAX_SEGMENT_CHARS, segment_document

CUAD = Path(__file__).resolve().parents[2] / "shared" / "data" / "cuad"
PAGE_HEIGHT = letter[1]

PAGE_ONE_LINES = [
    "MASTER SUPPLY AGREEMENT",
    "",
    "1. Parties. Acme Corp. and Beta Holdings Inc. agree to the terms below.",
    "The price is 1.5 U.S. dollars per unit as set out in Section 12.3 hereof.",
    "",
    "2. Term. This Agreement runs for two years.",
]
PAGE_TWO_LINES = [
    "3. Governing Law. The laws of the State of Delaware govern this Agreement.",
]
SCANNED_WORDS = ["CONFIDENTIAL", "LICENSE", "AGREEMENT", "Licensor", "grants", "exclusive"]


def _write_text_pdf(path: Path) -> None:
    """Two pages of Helvetica 11 at 14 pt line pitch; an empty line leaves a paragraph gap."""
    pdf = canvas.Canvas(str(path), pagesize=letter)
    for lines in (PAGE_ONE_LINES, PAGE_TWO_LINES):
        pdf.setFont("Helvetica", 11)
        for row, line in enumerate(lines):
            pdf.drawString(72, 720 - 14 * row, line)
        pdf.showPage()
    pdf.save()


def _write_image_pdf(path: Path) -> None:
    """A one-page scan: text drawn into a 200-dpi bitmap saved as an image-only PDF."""
    image = Image.new("L", (1700, 2200), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=48)
    lines = ["CONFIDENTIAL LICENSE AGREEMENT", "The Licensor grants an exclusive license", "to the Licensee."]
    for row, line in enumerate(lines):
        draw.text((150, 200 + 90 * row), line, fill=0, font=font)
    image.save(path, "PDF", resolution=200.0)


def _write_docx(path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("SERVICES AGREEMENT")
    document.add_paragraph("The Supplier shall provide the Services.\tThe Customer shall pay.")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Fee"
    table.cell(0, 1).text = "USD 100"
    document.save(str(path))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("stage-inputs")
    paths = {name: folder / name for name in (
        "text.pdf", "scan.pdf", "encrypted.pdf", "owner-only.pdf", "truncated.pdf", "empty.pdf",
        "image.pdf", "contract.txt", "contract.docx", "archive.docx", "binary.bin",
    )}
    _write_text_pdf(paths["text.pdf"])
    _write_image_pdf(paths["scan.pdf"])
    with pikepdf.open(paths["text.pdf"]) as pdf:
        pdf.save(paths["encrypted.pdf"], encryption=pikepdf.Encryption(user="secret", owner="owner"))
        pdf.save(paths["owner-only.pdf"], encryption=pikepdf.Encryption(user="", owner="owner"))
    data = paths["text.pdf"].read_bytes()
    paths["truncated.pdf"].write_bytes(data[: len(data) // 2])
    paths["empty.pdf"].write_bytes(b"")
    Image.new("RGB", (20, 20), "white").save(paths["image.pdf"], "PNG")
    paths["contract.txt"].write_bytes("First page, café terms.\r\nSecond line.\fSecond page.\n".encode())
    _write_docx(paths["contract.docx"])
    paths["binary.bin"].write_bytes(bytes(range(256)) * 8)
    with zipfile.ZipFile(paths["archive.docx"], "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    return paths


# ingest ---------------------------------------------------------------------------------------


def test_ingest_reads_facts_of_a_pdf(files: dict[str, Path]) -> None:
    facts = inspect_file(files["text.pdf"], max_file_mb=10, max_pages=100)
    assert facts.kind == "pdf"
    assert facts.page_count == 2
    assert facts.size_bytes == files["text.pdf"].stat().st_size
    assert facts.sha256 == hashlib.sha256(files["text.pdf"].read_bytes()).hexdigest()


def test_ingest_sniffs_kind_from_content(files: dict[str, Path]) -> None:
    assert inspect_file(files["contract.txt"], 10, 100).kind == "txt"
    assert inspect_file(files["contract.txt"], 10, 100).page_count == 2  # pages split at form feeds
    assert inspect_file(files["contract.docx"], 10, 100).kind == "docx"
    assert inspect_file(files["owner-only.pdf"], 10, 100).page_count == 2  # no user password: readable


@pytest.mark.parametrize(
    ("name", "max_pages", "reason"),
    [
        ("empty.pdf", 100, "file is empty (0 bytes)"),
        ("encrypted.pdf", 100, "PDF is encrypted (password required)"),
        ("truncated.pdf", 100, "PDF is corrupt or truncated: "),
        ("image.pdf", 100, "not a PDF, DOCX or text file: starts with PNG image signature"),
        ("binary.bin", 100, "not a PDF, DOCX or text file: binary data of unknown type"),
        ("archive.docx", 100, "not a PDF, DOCX or text file: ZIP archive without word/document.xml"),
        ("text.pdf", 1, "2 pages exceeds the limit of 1 (CLAUSEMILL_MAX_PAGES)"),
    ],
)
def test_ingest_rejects_with_a_reason(files: dict[str, Path], name: str, max_pages: int, reason: str) -> None:
    with pytest.raises(DocumentFailed) as failure:
        inspect_file(files[name], max_file_mb=10, max_pages=max_pages)
    assert failure.value.stage == "ingest"
    assert failure.value.reason.startswith(reason)


def test_ingest_rejects_files_over_the_size_limit(files: dict[str, Path]) -> None:
    with pytest.raises(DocumentFailed, match=r"over the limit of 0.001 MB \(CLAUSEMILL_MAX_FILE_MB\)"):
        inspect_file(files["text.pdf"], max_file_mb=0.001, max_pages=100)


# extract --------------------------------------------------------------------------------------


def _assert_words_consistent(page: PageText) -> None:
    assert page.words
    for word in page.words:
        assert page.text[word.start : word.end] == word.text
        x0, top, x1, bottom = word.box
        assert 0 <= x0 <= x1 <= page.width and 0 <= top <= bottom <= page.height, word


def test_extract_text_pdf_gives_clean_text_and_word_boxes(files: dict[str, Path]) -> None:
    pages = extract_text_layer(files["text.pdf"], "pdf")
    assert [p.number for p in pages] == [1, 2]
    assert all(p.source == "text-layer" and not p.needs_ocr for p in pages)
    assert "\r" not in pages[0].text
    assert pages[0].text.startswith("MASTER SUPPLY AGREEMENT\n\n1. Parties.")  # paragraph gap -> blank line
    assert "Acme Corp. and Beta Holdings Inc. agree to the terms below.\nThe price" in pages[0].text
    assert pages[1].text == PAGE_TWO_LINES[0]
    for page in pages:
        _assert_words_consistent(page)
    number = next(w for w in pages[0].words if w.text == "1.")
    # Drawn at x=72 on the baseline 720 - 2 * 14 points above the bottom edge; digits sit on it.
    assert number.box[0] == pytest.approx(72, abs=1.5)  # tight glyph box: side bearing
    assert number.box[3] == pytest.approx(PAGE_HEIGHT - (720 - 28), abs=0.5)


def test_extract_marks_image_only_pages_for_ocr(files: dict[str, Path]) -> None:
    [page] = extract_text_layer(files["scan.pdf"], "pdf")
    assert page.text == "" and page.words == []
    assert page.needs_ocr


def test_extract_plain_text_splits_pages_at_form_feeds(files: dict[str, Path]) -> None:
    pages = extract_text_layer(files["contract.txt"], "txt")
    assert [(p.number, p.text, p.source) for p in pages] == [
        (1, "First page, café terms.\nSecond line.", "plain"),
        (2, "Second page.\n", "plain"),
    ]


def test_extract_docx_keeps_paragraphs_tabs_and_tables(files: dict[str, Path]) -> None:
    [page] = extract_text_layer(files["contract.docx"], "docx")
    assert page.source == "plain"
    assert page.text == (
        "SERVICES AGREEMENT\n\nThe Supplier shall provide the Services.\tThe Customer shall pay.\n\nFee\tUSD 100"
    )


# OCR ------------------------------------------------------------------------------------------


def test_ocr_reads_the_scanned_page(files: dict[str, Path]) -> None:
    page = ocr_page(files["scan.pdf"], 1, dpi=200)
    assert os.environ["OMP_THREAD_LIMIT"] == "1"
    assert page.source == "ocr" and page.number == 1
    assert (page.width, page.height) == pytest.approx((612, 792))  # 1700 x 2200 px at 200 dpi
    assert [w for w in SCANNED_WORDS if w not in page.text.split()] == []
    assert page.text.count("\n") >= 1  # one line per printed line
    _assert_words_consistent(page)
    licensor = next(w for w in page.words if w.text == "Licensor")
    assert licensor.box[1] == pytest.approx((200 + 90) * 72 / 200, abs=6)  # drawn at y=290 px


def test_ocr_rejects_a_page_that_does_not_exist(files: dict[str, Path]) -> None:
    with pytest.raises(DocumentFailed, match="page 3 does not exist"):
        ocr_page(files["scan.pdf"], 3)


# segment --------------------------------------------------------------------------------------


def _plain_pages(*texts: str) -> list[PageText]:
    return [PageText(number=i, text=text, source="plain") for i, text in enumerate(texts, start=1)]


def _assert_segments_partition(pages: list[PageText]) -> None:
    """Offsets index the document text; each non-space char is in exactly one segment, on its page."""
    text, starts = document_text(pages)
    segments = segment_document(pages)
    owner = [0] * len(text)
    for index, segment in enumerate(segments):
        assert segment.index == index
        assert text[segment.start : segment.end] == segment.text
        assert segment.text == segment.text.strip()
        page_start = starts[segment.page - 1]
        assert page_start <= segment.start < segment.end <= page_start + len(pages[segment.page - 1].text)
        for position in range(segment.start, segment.end):
            owner[position] += 1
    assert all(count == (0 if char.isspace() else 1) for char, count in zip(text, owner) if not char.isspace())
    assert all(count <= 1 for count in owner)


def test_segments_partition_the_extracted_pdf(files: dict[str, Path]) -> None:
    pages = extract_text_layer(files["text.pdf"], "pdf")
    _assert_segments_partition(pages)
    segments = segment_document(pages)
    assert [s.page for s in segments][-1] == 2
    for segment in segments:
        page = pages[segment.page - 1]
        x0, top, x1, bottom = segment.box
        assert 0 <= x0 < x1 <= page.width and 0 <= top < bottom <= page.height


def test_segments_split_sentences_but_not_abbreviations_or_numbers() -> None:
    text = (
        "1. Parties. Acme Corp. and Beta Holdings Inc. agree to the terms below. "
        "The price is 1.5 U.S. dollars per unit as set out in Section 12.3 hereof. "
        "Notices go to John F. Smith, No. 5 Main St. in Dover! Payment is due in full as stated in Exhibit A. "
        "Any dispute goes to court."
    )
    texts = [s.text for s in segment_document(_plain_pages(text))]
    assert texts == [
        "1. Parties. Acme Corp. and Beta Holdings Inc. agree to the terms below.",
        "The price is 1.5 U.S. dollars per unit as set out in Section 12.3 hereof.",
        "Notices go to John F. Smith, No. 5 Main St. in Dover!",
        "Payment is due in full as stated in Exhibit A.",
        "Any dispute goes to court.",
    ]


def test_segments_split_at_blank_lines_and_headings() -> None:
    text = (
        "ARTICLE 4 TERMINATION\n\n"
        "4.1 Either party may terminate this Agreement on notice:\n"
        "(a) if the other party breaches it;\n"
        "(b) if the other party becomes insolvent.\n"
        "The notice must be in writing and signed by\n"
        "(c) an officer of the party."
    )
    texts = [s.text for s in segment_document(_plain_pages(text))]
    assert texts == [
        "ARTICLE 4 TERMINATION",
        "4.1 Either party may terminate this Agreement on notice:",
        "(a) if the other party breaches it;",
        "(b) if the other party becomes insolvent.",
        "The notice must be in writing and signed by\n(c) an officer of the party.",  # wrapped, not a heading
    ]


def test_segments_cap_long_clauses_and_merge_fragments() -> None:
    clause = "; ".join(f"the Licensee shall not use item {n} outside the Territory" for n in range(40)) + "."
    texts = [s.text for s in segment_document(_plain_pages("1.\n\n" + clause + " Ok."))]
    assert all(len(t) <= MAX_SEGMENT_CHARS for t in texts)
    assert len(texts) >= 3
    assert texts[0].startswith("1.\n\nthe Licensee")  # a lone heading number joins its clause
    assert texts[-1].endswith("Territory. Ok.")  # a tiny tail joins the sentence before it
    _assert_segments_partition(_plain_pages("1.\n\n" + clause + " Ok."))


def test_segments_never_cross_pages_and_skip_blank_pages() -> None:
    pages = _plain_pages("The first page ends mid", "", "sentence on the third page. A second sentence here.")
    _assert_segments_partition(pages)
    segments = segment_document(pages)
    assert [(s.page, s.text) for s in segments] == [
        (1, "The first page ends mid"),
        (3, "sentence on the third page."),
        (3, "A second sentence here."),
    ]
    assert all(s.box is None for s in segments)  # plain text has no word boxes


def test_segment_fails_a_document_without_text() -> None:
    blank = [PageText(number=1, text=" \n", source="ocr"), PageText(number=2, text="", source="ocr")]
    with pytest.raises(DocumentFailed, match="no text found: every page is blank after OCR"):
        segment_document(blank)


# CUAD -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cuad() -> Path:
    if not (CUAD / "pdf").is_dir():
        pytest.skip(f"CUAD data not found at {CUAD} (../shared beside the repo)")
    return CUAD


@pytest.mark.cuad
def test_cuad_pdf_extracts_and_segments(cuad: Path) -> None:
    pdf = sorted((cuad / "pdf").iterdir())[0]
    pages = extract_text_layer(pdf, "pdf")
    assert len(pages) == inspect_file(pdf, 200, 2000).page_count
    for page in pages:
        _assert_words_consistent(page)
    _assert_segments_partition(pages)
    reference = (cuad / "txt" / f"{pdf.stem}.txt").read_text(encoding="utf-8")
    extracted = set(re.findall(r"\w+", document_text(pages)[0]))
    assert len(extracted & set(re.findall(r"\w+", reference))) / len(extracted) > 0.95


@pytest.mark.cuad
def test_cuad_scan_ocr_reads_the_first_page(cuad: Path) -> None:
    scan = next((cuad / "scanned").iterdir())
    [empty] = extract_text_layer(scan, "pdf")[:1]
    assert empty.needs_ocr
    page = ocr_page(scan, 1)
    assert "NON-COMPETITION AGREEMENT AND RIGHT OF FIRST OFFER" in page.text
    assert "WESTERN COPPER CORPORATION" in page.text
    _assert_words_consistent(page)

