"""The synthetic samples are what the demo and the end-to-end tests trust as ground truth, so
these tests check the files themselves: what a PDF's text layer really holds, what OCR reads
from the scan, and that the broken files really fail to open."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import docx
import pypdfium2 as pdfium
import pytest
import pytesseract

from pipelines.categories import CUAD_CATEGORIES
from pipelines.samples import CATEGORIES, MANIFEST, SampleFile, generate_contract, write_samples
from pipelines.samples.broken import PASSWORD
from pipelines.samples.contracts import KEY_TERMS
from pipelines.samples.language import formal_date, long_date

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[SampleFile]]:
    folder = tmp_path_factory.mktemp("samples")
    return folder, write_samples(folder)


@pytest.fixture(scope="module")
def manifest(written: tuple[Path, list[SampleFile]]) -> dict:
    return json.loads((written[0] / MANIFEST).read_text(encoding="utf-8"))


def _normalized(text: str) -> str:
    return " ".join(text.split())


def _pdf_text(path: Path) -> str:
    document = pdfium.PdfDocument(str(path))
    try:
        return "\n".join(page.get_textpage().get_text_range() for page in document)
    finally:
        document.close()


def test_manifest_lists_every_file_with_its_outcome(written: tuple[Path, list[SampleFile]], manifest: dict) -> None:
    folder, samples = written
    entries = manifest["files"]
    assert entries == [sample.manifest_entry() for sample in samples]
    assert sorted(e["file"] for e in entries) == sorted(p.name for p in folder.iterdir() if p.name != MANIFEST)
    assert Counter(e["variant"] for e in entries) == {"text-pdf": 6, "scanned-pdf": 1, "txt": 1, "docx": 1, "broken": 4}
    assert {e["file"] for e in entries if e["status"] == "failed"} == {
        "truncated.pdf", "encrypted.pdf", "empty.pdf", "not-a-pdf.pdf"}
    good = [e for e in entries if e["status"] == "done"]
    assert len(good) == 9
    for entry in good:
        assert set(entry["clauses"]) <= set(CUAD_CATEGORIES)
        assert set(KEY_TERMS) <= set(entry["clauses"])
        assert 9 <= len(entry["clauses"]) <= 24
        assert entry["clauses"]["Document Name"] == entry["title"]
        assert all(p["name"] in entry["clauses"]["Parties"] for p in entry["parties"])
        assert entry["governing_law"].split(",")[0] in entry["clauses"]["Governing Law"]
        assert not set(entry["lookalikes"]) & {"Anti-Assignment", "Exclusivity"} & set(entry["clauses"])
    covered = set().union(*(e["clauses"] for e in good))
    assert covered == set(CATEGORIES) == set(CUAD_CATEGORIES)
    assert len({e["title"] for e in good}) >= 4


def test_clause_spans_index_the_text() -> None:
    for seed in range(1, 31):
        contract = generate_contract(seed, short=seed % 3 == 0, prefer=CATEGORIES if seed % 2 else ())
        text = contract.text
        assert contract.clauses.keys() == contract.clause_spans.keys()
        for category, (start, end) in contract.clause_spans.items():
            assert text[start:end] == contract.clauses[category]
            assert text[start:end] == text[start:end].strip()
        for category, (start, end) in contract.lookalike_spans.items():
            assert text[start:end] == contract.lookalikes[category]
        assert contract.clauses["Agreement Date"] in (long_date(contract.agreement_date),
                                                      formal_date(contract.agreement_date))
        assert contract.clauses["Effective Date"] in (long_date(contract.effective_date),
                                                      formal_date(contract.effective_date))
        expires, effective = contract.expiration_date, contract.effective_date
        assert (expires.year - effective.year, expires.month) == (contract.term_years, effective.month)
        assert ("Renewal Term" in contract.clauses) == (contract.renewal is not None)
        has_notice = "Notice Period To Terminate Renewal" in contract.clauses
        assert has_notice == bool(contract.renewal and contract.renewal.automatic)
        if has_notice:
            assert f"({contract.notice_days}) days" in contract.clauses["Notice Period To Terminate Renewal"]


def test_generation_is_deterministic_across_processes(written: tuple[Path, list[SampleFile]], tmp_path: Path,
                                                       manifest: dict) -> None:
    again = write_samples(tmp_path)
    assert (tmp_path / MANIFEST).read_text(encoding="utf-8") == json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    for first, second in zip(written[1], again):
        if first.variant in ("text-pdf", "scanned-pdf", "txt"):
            assert first.path.read_bytes() == second.path.read_bytes(), first.path.name
    # Set iteration order changes with the hash seed; the contracts must not.
    script = ("import hashlib\nfrom pipelines.samples import CATEGORIES, generate_contract\n"
              "print([hashlib.sha256(generate_contract(s, prefer=set(CATEGORIES)).text.encode()).hexdigest()"
              " for s in range(1, 6)])")
    outputs = {subprocess.run([sys.executable, "-c", script], cwd=REPO, check=True, capture_output=True, text=True,
                              env=os.environ | {"PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    here = [hashlib.sha256(generate_contract(s, prefer=set(CATEGORIES)).text.encode()).hexdigest() for s in range(1, 6)]
    assert outputs == {f"{here}\n"}


def test_text_pdfs_text_layer_holds_every_clause(written: tuple[Path, list[SampleFile]]) -> None:
    for sample in written[1]:
        if sample.variant != "text-pdf":
            continue
        assert sample.contract and sample.pages and 3 <= sample.pages <= 6
        layer = _normalized(_pdf_text(sample.path))
        for category, clause in sample.contract.clauses.items():
            assert _normalized(clause) in layer, (sample.path.name, category)
        assert "Page 1" in layer and f"Page {sample.pages}" in layer


def test_txt_and_docx_hold_exactly_the_contract_text(written: tuple[Path, list[SampleFile]]) -> None:
    by_variant = {s.variant: s for s in written[1]}
    txt, word = by_variant["txt"], by_variant["docx"]
    assert txt.contract and word.contract
    assert txt.path.read_text(encoding="utf-8") == txt.contract.text + "\n"
    paragraphs = [p.text for p in docx.Document(str(word.path)).paragraphs]
    assert "\n\n".join(paragraphs) == word.contract.text


def test_scanned_pdf_has_no_text_layer_but_ocr_reads_it(written: tuple[Path, list[SampleFile]],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    scan = next(s for s in written[1] if s.variant == "scanned-pdf")
    assert scan.contract and scan.pages and 2 <= scan.pages <= 3
    document = pdfium.PdfDocument(str(scan.path))
    try:
        assert len(document) == scan.pages
        assert all(page.get_textpage().count_chars() == 0 for page in document)
        image = document[0].render(scale=200 / 72, grayscale=True).to_pil()
    finally:
        document.close()
    monkeypatch.setenv("OMP_THREAD_LIMIT", "1")
    top = image.crop((0, 0, image.width, image.height // 3))  # title and preamble; a third of the work
    read = _normalized(pytesseract.image_to_string(top)).upper()
    for word in scan.contract.title.split():
        assert word in read
    assert scan.contract.parties[0].name.split()[0].upper() in read


def test_broken_files_do_not_open(written: tuple[Path, list[SampleFile]]) -> None:
    folder = written[0]
    for name in ("truncated.pdf", "encrypted.pdf", "not-a-pdf.pdf", "empty.pdf"):
        with pytest.raises(pdfium.PdfiumError):
            pdfium.PdfDocument(str(folder / name))
    assert (folder / "empty.pdf").stat().st_size == 0
    assert (folder / "truncated.pdf").read_bytes().startswith(b"%PDF-")  # a PDF, only cut short
    assert not (folder / "not-a-pdf.pdf").read_bytes().startswith(b"%PDF")
    locked = pdfium.PdfDocument(str(folder / "encrypted.pdf"), password=PASSWORD)  # intact behind its password
    try:
        assert len(locked) >= 1 and locked[0].get_textpage().count_chars() > 0
    finally:
        locked.close()
