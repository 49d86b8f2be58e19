"""Which library should read which part of a PDF?  PDFium against the candidates, in one run.

1. Drawing pages for OCR: PDFium (pypdfium2, what `ocr_page` uses) against poppler (pdf2image,
   its fallback) at one DPI on the real scan in data/cuad/scanned/: seconds per page to draw,
   and the word agreement of Tesseract's reading of each image with CUAD's own (ABBYY) text,
   scored as extract_speed.py scores OCR.
2. Text of pages with tables: clausemill's PDFium text layer against pdfplumber's
   `extract_text` on CUAD pages where pdfplumber's `find_tables()` finds a ruled table inside
   the page (at least 2 x 2 cells; the page-sized frames some EDGAR filings draw around all
   their text do not count).  Ruled tables are drawn with vector paths, so only pages with
   at least --min-paths path objects (PDFium counts them in about a millisecond) are given to
   the slow `find_tables`.  Each page is scored against its stretch of CUAD's txt/ file,
   located by the word trigrams that occur once in that file: agreement is the share of the
   stretch's words an extractor gives in order, precision the share of its words that are in
   the stretch in order.

    python ops/benchmarks/parser_choices.py --table-pages 40 --ocr-pages 8 --dpi 300
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import pdfplumber  # noqa: E402
import pypdfium2.raw as pdfium_c  # noqa: E402
from extract_speed import CUAD, TOKEN, agreement, disagreements, matched_tokens  # noqa: E402

from pipelines.dag import Stage  # noqa: E402
from pipelines.parsers.base import RenderedPage  # noqa: E402
from pipelines.parsers.pdf import open_pdf, pdfium_render, poppler_render, text_layer_page  # noqa: E402
from pipelines.stages.ocr import ocr_image  # noqa: E402

_ANCHOR = 3  # words per anchor n-gram


# drawing pages for OCR --------------------------------------------------------------------


def pdfium_page(scan: Path, number: int, dpi: int) -> RenderedPage:
    with open_pdf(scan, Stage.OCR) as pdf:  # opened per page, as each OCR task does
        return pdfium_render(pdf, number, dpi)


def render_run(
    scan: Path, render: Callable[[Path, int, int], RenderedPage], dpi: int, pages: int
) -> tuple[float, float, list[str]]:
    """Seconds per page to draw and to OCR, and the recognised tokens, for one renderer."""
    draw = read = 0.0
    tokens: list[str] = []
    for number in range(1, pages + 1):
        start = time.perf_counter()
        page = render(scan, number, dpi)
        drawn = time.perf_counter()
        tokens += TOKEN.findall(ocr_image(page, number, dpi).text)
        draw, read = draw + drawn - start, read + time.perf_counter() - drawn
    return draw / pages, read / pages, tokens


# text of pages with tables ----------------------------------------------------------------


@dataclass
class TablePage:
    pdf: Path
    index: int
    find_tables_s: float
    pdfium_tokens: list[str]
    pdfium_s: float
    plumber_tokens: list[str]
    plumber_s: float
    reference: list[str]  # the page's stretch of CUAD's text


def ruled_candidates(pdfs: list[Path], min_paths: int) -> list[tuple[Path, int]]:
    """(PDF, page index) of pages drawing at least `min_paths` vector paths."""
    candidates = []
    for path in pdfs:
        with open_pdf(path, Stage.EXTRACT) as pdf:
            for index in range(len(pdf)):
                page = pdf[index]
                paths = sum(1 for _ in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=2))
                page.close()
                if paths >= min_paths:
                    candidates.append((path, index))
    return candidates


def has_table(page: pdfplumber.page.Page) -> bool:
    """A ruled table of 2 x 2 cells or more that lies inside the page."""
    return any(
        table.bbox[1] >= 0 and table.bbox[3] <= page.height and len(table.rows) >= 2 and len(table.rows[0].cells) >= 2
        for table in page.find_tables()
    )


def read_table_page(path: Path, index: int, find_tables_s: float, reference: list[str]) -> TablePage | None:
    """Both extractions of the page and its reference stretch.

    Each is timed on an open document, as extraction reads every page of a document it has
    opened once; pdfplumber's page is fresh, so its layout analysis counts.
    """
    with open_pdf(path, Stage.EXTRACT) as pdf:
        start = time.perf_counter()
        pdfium_text = text_layer_page(pdf, index).text
        pdfium_s = time.perf_counter() - start
    with pdfplumber.open(path) as document:
        page = document.pages[index]
        start = time.perf_counter()
        plumber_text = page.extract_text()
        plumber_s = time.perf_counter() - start
    pdfium_tokens, plumber_tokens = TOKEN.findall(pdfium_text), TOKEN.findall(plumber_text)
    stretch = reference_stretch([pdfium_tokens, plumber_tokens], reference)
    if stretch is None:
        return None
    return TablePage(path, index, find_tables_s, pdfium_tokens, pdfium_s, plumber_tokens, plumber_s, stretch)


def reference_stretch(readings: list[list[str]], reference: list[str]) -> list[str] | None:
    """The part of the document's reference text the page holds, the same for every reading.

    Anchored on word trigrams that occur once in the reference; anchors further from their
    median than 1.5 page lengths (a repeated heading, a table cell's stray trigram) are dropped.
    """
    lower = [t.lower() for t in reference]
    grams = Counter(tuple(lower[i : i + _ANCHOR]) for i in range(len(lower) - _ANCHOR + 1))
    where = {tuple(lower[i : i + _ANCHOR]): i for i in range(len(lower) - _ANCHOR + 1)}
    anchors = sorted(
        where[gram]
        for tokens in readings
        for gram in (tuple(t.lower() for t in tokens[i : i + _ANCHOR]) for i in range(len(tokens) - _ANCHOR + 1))
        if grams.get(gram) == 1
    )
    if len(anchors) < 10:
        return None
    median, length = anchors[len(anchors) // 2], max(len(tokens) for tokens in readings)
    kept = [a for a in anchors if abs(a - median) <= 1.5 * length]
    return reference[kept[0] : kept[-1] + _ANCHOR]


def table_pages(pdfs: list[Path], wanted: int, per_pdf: int, min_paths: int, seed: int) -> tuple[list[TablePage], int, int]:
    """Up to `wanted` table pages, at most `per_pdf` from one PDF, from a seeded shuffle of the
    candidates; also how many candidates there were and how many `find_tables` checked."""
    candidates = ruled_candidates(pdfs, min_paths)
    random.Random(seed).shuffle(candidates)
    taken: Counter[Path] = Counter()
    references: dict[Path, list[str]] = {}
    found: list[TablePage] = []
    checked = 0
    for path, index in candidates:
        if len(found) == wanted:
            break
        if taken[path] == per_pdf:
            continue
        checked += 1
        with pdfplumber.open(path) as document:
            page = document.pages[index]
            start = time.perf_counter()
            table = has_table(page)
            find_tables_s = time.perf_counter() - start
        if not table:
            continue
        if path not in references:
            references[path] = TOKEN.findall((CUAD / "txt" / f"{path.stem}.txt").read_text(encoding="utf-8"))
        reading = read_table_page(path, index, find_tables_s, references[path])
        if reading is not None:
            found.append(reading)
            taken[path] += 1
    return found, len(candidates), checked


def report_tables(pages: list[TablePage]) -> None:
    def pooled(get_tokens: Callable[[TablePage], list[str]]) -> tuple[float, float]:
        """(agreement, precision) over all pages' words at once, so long pages weigh more."""
        matched = [matched_tokens(get_tokens(p), p.reference) for p in pages]
        return (
            sum(matched) / sum(len(p.reference) for p in pages),
            sum(matched) / sum(len(get_tokens(p)) for p in pages),
        )

    pdfium_scores = pooled(lambda p: p.pdfium_tokens)
    plumber_scores = pooled(lambda p: p.plumber_tokens)
    per_page = [(agreement(p.pdfium_tokens, p.reference), agreement(p.plumber_tokens, p.reference)) for p in pages]
    ms = 1000 / len(pages)
    print(f"  {'':28} {'agreement':>9} {'precision':>9} {'ms/page':>8}")
    print(f"  {'PDFium text layer':28} {pdfium_scores[0]:9.3f} {pdfium_scores[1]:9.3f} {sum(p.pdfium_s for p in pages) * ms:8.1f}")
    print(f"  {'pdfplumber extract_text':28} {plumber_scores[0]:9.3f} {plumber_scores[1]:9.3f} {sum(p.plumber_s for p in pages) * ms:8.1f}")
    print(f"  {'pdfplumber find_tables':28} {'':9} {'':9} {sum(p.find_tables_s for p in pages) * ms:8.1f}")
    better = sum(plumber > by_pdfium + 0.005 for by_pdfium, plumber in per_page)
    worse = sum(plumber < by_pdfium - 0.005 for by_pdfium, plumber in per_page)
    print(f"  pdfplumber agrees better on {better} pages, worse on {worse}, the same (±0.005) on {len(pages) - better - worse}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table-pages", type=int, default=40, help="pages with tables to compare extraction on")
    parser.add_argument("--per-pdf", type=int, default=2, help="at most this many table pages from one PDF")
    parser.add_argument("--min-paths", type=int, default=20, help="vector paths that make a page worth find_tables")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ocr-pages", type=int, default=8, help="pages of the scan to draw and OCR per renderer")
    parser.add_argument("--dpi", type=int, default=300)
    args = parser.parse_args()
    if not CUAD.is_dir():
        sys.exit(f"CUAD data not found at {CUAD}")

    scan = next((CUAD / "scanned").iterdir())
    reference = TOKEN.findall((CUAD / "txt" / f"{scan.stem}.txt").read_text())
    runs = {
        name: render_run(scan, render, args.dpi, args.ocr_pages)
        for name, render in (("PDFium", pdfium_page), ("poppler", poppler_render))
    }
    print(f"drawing {scan.name} for OCR, {args.ocr_pages} pages at {args.dpi} dpi, OMP_THREAD_LIMIT=1:")
    for name, (draw, read, tokens) in runs.items():
        print(f"  {name:8} draw {draw:5.2f} s/page  OCR {read:5.2f} s/page  {len(tokens)} words, "
              f"{agreement(tokens, reference):.3f} agreement with ABBYY")
    print("where the two images read differently:")
    print("\n".join(disagreements(runs["PDFium"][2], runs["poppler"][2], limit=20)) or "  nowhere")

    start = time.perf_counter()
    pdfs = sorted((CUAD / "pdf").iterdir())
    pages, candidates, checked = table_pages(pdfs, args.table_pages, args.per_pdf, args.min_paths, args.seed)
    print(f"text of {len(pages)} table pages from {len({p.pdf for p in pages})} PDFs ({candidates} pages of "
          f"{len(pdfs)} PDFs draw >= {args.min_paths} paths; find_tables checked {checked}; "
          f"{time.perf_counter() - start:.0f} s):")
    report_tables(pages)


if __name__ == "__main__":
    main()
