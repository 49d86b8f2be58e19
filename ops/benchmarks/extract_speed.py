"""How fast are text extraction and OCR on CUAD, and how well does OCR read?

Times clausemill's `extract_text_layer` (pypdfium2) against pdfplumber's `extract_words` on
the same PDFs in one run, then OCRs the real scan in data/cuad/scanned/ at each DPI asked
for, scoring the words against CUAD's own (ABBYY) OCR of that scan.  ABBYY made errors too,
so the score is a comparison, not an absolute accuracy; the non-word rate (words no other
CUAD contract uses) is a second view, and the listed disagreements a third.

    python ops/benchmarks/extract_speed.py --pdfs 20 --dpi 300 200
"""
from __future__ import annotations

import argparse
import difflib
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import pdfplumber  # noqa: E402

from pipelines.stages.extract import extract_text_layer  # noqa: E402
from pipelines.stages.ocr import ocr_page  # noqa: E402

CUAD = REPO.parent / "shared" / "data" / "cuad"
TOKEN = re.compile(r"[A-Za-z0-9]+")


def pypdfium2_pages_per_s(pdfs: list[Path]) -> tuple[int, float]:
    start = time.perf_counter()
    pages = sum(len(extract_text_layer(pdf, "pdf")) for pdf in pdfs)
    return pages, pages / (time.perf_counter() - start)


def pdfplumber_pages_per_s(pdfs: list[Path]) -> tuple[int, float]:
    start = time.perf_counter()
    pages = 0
    for pdf in pdfs:
        with pdfplumber.open(pdf) as document:
            for page in document.pages:
                page.extract_words()
                pages += 1
    return pages, pages / (time.perf_counter() - start)


def ocr_run(scan: Path, dpi: int, pages: int) -> tuple[float, list[str]]:
    """Seconds per page and the recognised tokens of the first `pages` pages."""
    start = time.perf_counter()
    tokens: list[str] = []
    for number in range(1, pages + 1):
        tokens += TOKEN.findall(ocr_page(scan, number, dpi=dpi).text)
    return (time.perf_counter() - start) / pages, tokens


def matched_tokens(tokens: list[str], reference: list[str]) -> int:
    """How many tokens the two sequences share in order (difflib alignment, case-insensitive)."""
    matcher = difflib.SequenceMatcher(None, [t.lower() for t in tokens], [t.lower() for t in reference], autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks())


def agreement(tokens: list[str], reference: list[str]) -> float:
    """Share of reference tokens matched in order."""
    return matched_tokens(tokens, reference) / len(reference)


def cuad_vocabulary(exclude: str) -> frozenset[str]:
    """Lower-cased words of every CUAD text but the scan's own: what real contract words are."""
    vocabulary: set[str] = set()
    for txt in (CUAD / "txt").iterdir():
        if txt.stem != exclude:
            vocabulary.update(t.lower() for t in TOKEN.findall(txt.read_text(encoding="utf-8")))
    return frozenset(vocabulary)


def non_word_rate(tokens: list[str], vocabulary: frozenset[str]) -> float:
    """Share of alphabetic tokens (3+ letters) no CUAD contract uses: mostly misreadings."""
    words = [t.lower() for t in tokens if t.isalpha() and len(t) >= 3]
    return sum(w not in vocabulary for w in words) / len(words)


def disagreements(a: list[str], b: list[str], limit: int) -> list[str]:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    rows = [
        f"  {' '.join(a[i1:i2])!r} vs {' '.join(b[j1:j2])!r}"
        for op, i1, i2, j1, j2 in matcher.get_opcodes()
        if op != "equal"
    ]
    return rows[:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdfs", type=int, default=20, help="CUAD PDFs to time extraction on")
    parser.add_argument("--dpi", type=int, nargs="*", default=[300, 200], help="OCR resolutions to compare")
    parser.add_argument("--ocr-pages", type=int, default=8, help="pages of the scan to OCR per DPI")
    args = parser.parse_args()
    if not CUAD.is_dir():
        sys.exit(f"CUAD data not found at {CUAD}")

    pdfs = sorted((CUAD / "pdf").iterdir())[: args.pdfs]
    pages, fast = pypdfium2_pages_per_s(pdfs)
    _, slow = pdfplumber_pages_per_s(pdfs)
    print(f"extraction over {len(pdfs)} PDFs, {pages} pages:")
    print(f"  pypdfium2 extract_text_layer  {fast:8.1f} pages/s")
    print(f"  pdfplumber extract_words      {slow:8.1f} pages/s")
    print(f"  ratio                         {fast / slow:8.1f}x")

    scan = next((CUAD / "scanned").iterdir())
    reference = TOKEN.findall((CUAD / "txt" / f"{scan.stem}.txt").read_text())
    runs = {dpi: ocr_run(scan, dpi, args.ocr_pages) for dpi in args.dpi}
    vocabulary = cuad_vocabulary(exclude=scan.stem)
    print(f"OCR of {scan.name}, {args.ocr_pages} pages, OMP_THREAD_LIMIT=1:")
    for dpi, (seconds, tokens) in runs.items():
        score, unknown = agreement(tokens, reference), non_word_rate(tokens, vocabulary)
        print(f"  {dpi} dpi  {seconds:5.2f} s/page  {len(tokens)} words, {score:.3f} agreement with ABBYY, "
              f"{unknown:.2%} non-words")
    if len(runs) >= 2:
        (dpi_a, (_, a)), (dpi_b, (_, b)) = list(runs.items())[:2]
        print(f"where {dpi_a} dpi and {dpi_b} dpi read differently:")
        print("\n".join(disagreements(a, b, limit=40)))


if __name__ == "__main__":
    main()
