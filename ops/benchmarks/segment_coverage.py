"""Could clausemill's segments ever score on CUAD?  Segment granularity vs the Jaccard metric.

CUAD credits a predicted text only when its word-set Jaccard with an annotated clause is at
least 0.5.  A system that predicts whole segments can therefore only find the clauses some
segment (or a run of up to three neighbouring segments) overlaps that well.  For every
annotated span of the sampled contracts this reports the share of spans whose best Jaccard
reaches 0.5 with (a) one segment and (b) up to three consecutive segments, per CUAD category
group.  Each txt/ file is segmented as one page, since CUAD's offsets point into those texts;
`--source pdf` instead segments clausemill's own extraction of the PDFs, page by page, and lets
every segment (run) compete, since CUAD's offsets do not point into that text.

Jaccard follows CUAD's evaluation script (drop . , ; :, lower-case, "/" to space, word sets),
except that words split on any whitespace, not only " ", as PDF segments hold line breaks.

    python ops/benchmarks/segment_coverage.py --contracts 60 [--source pdf] [--by-category]
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from models.widening import cuad_words as words, word_jaccard as jaccard  # noqa: E402
from pipelines.datamodel import PageText, document_text  # noqa: E402
from pipelines.stages.extract import extract_text_layer  # noqa: E402
from pipelines.stages.segment import segment_document  # noqa: E402

CUAD = REPO.parent / "shared" / "data" / "cuad"
THRESHOLD = 0.5
MAX_RUN = 3
SHORT_ANSWER_CATEGORIES = frozenset({"document name", "parties", "agreement date", "effective date"})
"""Names and dates: a few words each, found by key-term extraction, never by a whole segment."""


def best_jaccards(text: str, spans: list[dict]) -> list[tuple[dict, float, float]]:
    """Per span: best Jaccard of one segment, and of a run of up to MAX_RUN segments.

    Only segments overlapping the span's offsets in `text` compete."""
    segments = segment_document([PageText(number=1, text=text, source="plain")])
    results = []
    for span in spans:
        target = words(span["text"])
        touching = [i for i, s in enumerate(segments) if s.start < span["end"] and s.end > span["start"]]
        runs = {
            (first, first + length)
            for i in touching
            for length in range(1, MAX_RUN + 1)
            for first in range(max(0, i - length + 1), i + 1)
            if first + length <= len(segments)
        }
        single = max((jaccard(words(segments[i].text), target) for i in touching), default=0.0)
        joined = max(
            (jaccard(words(text[segments[a].start : segments[b - 1].end]), target) for a, b in runs), default=0.0
        )
        results.append((span, single, joined))
    return results


def best_jaccards_anywhere(pages: list[PageText], spans: list[dict]) -> list[tuple[dict, float, float]]:
    """Like `best_jaccards` for a text without CUAD's offsets (the PDF's own text layer):
    every segment, and every run of up to MAX_RUN segments on one page, competes."""
    segments = segment_document(pages)
    text = document_text(pages)[0]
    singles = [words(s.text) for s in segments]
    runs = [
        words(text[segments[a].start : segments[a + length - 1].end])
        for length in range(2, MAX_RUN + 1)
        for a in range(len(segments) - length + 1)
        if segments[a].page == segments[a + length - 1].page
    ]
    results = []
    for span in spans:
        target = words(span["text"])
        single = max((jaccard(w, target) for w in singles), default=0.0)
        joined = max([single] + [jaccard(w, target) for w in runs])
        results.append((span, single, joined))
    return results


def category_groups() -> dict[str, str]:
    """Category (lower case) -> CUAD's group number, or the category itself where CUAD has none."""
    groups = {}
    with (CUAD / "category_descriptions.csv").open(encoding="utf-8-sig") as stream:
        for row in csv.DictReader(stream):
            category = row["Category (incl. context and answer)"].removeprefix("Category: ").strip().lower()
            group = row["Group"].removeprefix("Group: ").strip()
            groups[category] = f"group {group}" if group != "-" else "ungrouped"
    return groups


def pdf_paths_by_filename() -> dict[str, str]:
    """CUAD's annotation filename -> the PDF's path under data/cuad (names differ in case)."""
    with (CUAD / "files.csv").open(encoding="utf-8") as stream:
        return {row["master_clauses_filename"]: row["pdf"] for row in csv.DictReader(stream)}


def sample_spans(contracts: int) -> dict[str, list[dict]]:
    """Spans of `contracts` contracts spread evenly over CUAD's sorted file list."""
    by_txt: dict[str, list[dict]] = defaultdict(list)
    with (CUAD / "spans.jsonl").open(encoding="utf-8") as stream:
        for line in stream:
            span = json.loads(line)
            by_txt[span["txt"]].append(span)
    names = sorted(by_txt)
    step = max(1, len(names) // contracts)
    return {name: by_txt[name] for name in names[::step][:contracts]}


def report(rows: list[tuple[str, float, float]], label: str) -> None:
    ones = sum(single >= THRESHOLD for _, single, _ in rows)
    runs = sum(joined >= THRESHOLD for _, _, joined in rows)
    print(f"  {label:<40} {len(rows):6d} {ones / len(rows):8.1%} {runs / len(rows):10.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contracts", type=int, default=60)
    parser.add_argument("--by-category", action="store_true", help="also report every category")
    parser.add_argument(
        "--source", choices=["txt", "pdf"], default="txt",
        help="segment CUAD's txt/ (offsets known) or clausemill's own extraction of pdf/ (best anywhere)",
    )
    args = parser.parse_args()
    if not CUAD.is_dir():
        sys.exit(f"CUAD data not found at {CUAD}")

    groups = category_groups()
    pdf_paths = pdf_paths_by_filename()
    rows: list[tuple[str, float, float]] = []
    segment_count = 0
    for txt, spans in sample_spans(args.contracts).items():
        if args.source == "txt":
            pages = [PageText(number=1, text=(CUAD / txt).read_text(encoding="utf-8"), source="plain")]
            scored = best_jaccards(pages[0].text, spans)
        else:
            pages = extract_text_layer(CUAD / pdf_paths[spans[0]["filename"]], "pdf")
            scored = best_jaccards_anywhere(pages, spans)
        segment_count += len(segment_document(pages))
        rows += [(span["category"].lower(), single, joined) for span, single, joined in scored]

    print(f"{args.contracts} contracts ({args.source}), {segment_count} segments, {len(rows)} annotated spans")
    print(f"  {'spans with best Jaccard >= 0.5':<40} {'n':>6} {'1 segment':>8} {'<=3 segments':>10}")
    clauses = [row for row in rows if row[0] not in SHORT_ANSWER_CATEGORIES]
    report(clauses, "all clause categories (no names/dates)")
    report([row for row in rows if row[0] in SHORT_ANSWER_CATEGORIES], "names and dates (key terms' job)")
    for group in sorted(set(groups.values())):
        report([row for row in clauses if groups.get(row[0]) == group], group)
    if args.by_category:
        for category in sorted({row[0] for row in rows}):
            report([row for row in rows if row[0] == category], category)


if __name__ == "__main__":
    main()
