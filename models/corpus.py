"""Labelled contracts for training: CUAD's texts and spans, cut by the product's own segmenter.

A segment is labelled with a category when it overlaps an annotated span of that category by
at least half of the shorter of the two: the segment lies mostly inside the clause (a long
clause spanning several segments labels each of them) or the clause lies mostly inside the
segment (a short clause inside a long sentence).  These are semantic labels; whether a
segment, or a run of neighbours, would also match CUAD's Jaccard >= 0.5 criterion is the
candidate builder's concern (models/candidates.py), measured in MODEL_CARD.md.

Reviewers' decisions (`clausemill review export --training`) come in the same format with
two differences: each span row says whether the reviewer confirmed it (`label`), and a
document is labelled only where someone decided.  Its other segments are unknown, not
negatives (nobody read them), so training leaves them out (`LabelledDocument.reviewed`).
"""
from __future__ import annotations

import csv
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipelines.datamodel import PageText, Segment
from pipelines.stages.segment import segment_document

OVERLAP_SHARE = 0.5


@dataclass(frozen=True)
class LabelledDocument:
    """A plain-text contract and its annotated spans (category, start, end) as char offsets."""

    name: str
    text: str
    spans: tuple[tuple[str, int, int], ...]
    reviewed: tuple[tuple[int, int], ...] | None = None
    """For a document labelled by reviewers: the char spans they decided.  Only segments that
    overlap one are labelled (with `spans`, the confirmed ones); None for a fully annotated
    document such as CUAD's."""

    def reviewed_segments(self, segments: list[Segment]) -> np.ndarray:
        """Indices of the segments a reviewer's decision labels (every one for a full document)."""
        if self.reviewed is None:
            return np.arange(len(segments))
        mask = segment_labels(segments, tuple(("reviewed", s, e) for s, e in self.reviewed), ("reviewed",))
        return np.flatnonzero(mask[:, 0])

    def segments(self) -> list[Segment]:
        """The segments the pipeline would cut: the text is one plain page, as CUAD's txt/ files are."""
        return segment_document([PageText(number=1, text=self.text, source="plain")])


def load_cuad(data_dir: Path) -> list[LabelledDocument]:
    """Every contract of a CUAD folder (files.csv, txt/, spans.jsonl), named by its PDF file name."""
    spans: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
    with open(data_dir / "spans.jsonl", encoding="utf-8") as stream:
        for line in stream:
            span = json.loads(line)
            spans[span["filename"]].append((span["category"], int(span["start"]), int(span["end"])))
    with open(data_dir / "files.csv", newline="", encoding="utf-8") as stream:
        rows = sorted(csv.DictReader(stream), key=lambda row: row["master_clauses_filename"])
    return [
        LabelledDocument(
            name=Path(row["pdf"]).name,
            text=(data_dir / row["txt"]).read_text(encoding="utf-8"),
            spans=tuple(spans[row["master_clauses_filename"]]),
        )
        for row in rows
    ]


def load_reviewed(folder: Path) -> list[LabelledDocument]:
    """The contracts of a `clausemill review export --training` folder (files.csv, txt/,
    spans.jsonl whose rows carry `label`): confirmed spans are positives, and every decided
    span, confirmed or rejected, bounds where the document is labelled."""
    confirmed: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
    decided: dict[str, list[tuple[int, int]]] = defaultdict(list)
    with open(folder / "spans.jsonl", encoding="utf-8") as stream:
        for line in stream:
            span = json.loads(line)
            start, end = int(span["start"]), int(span["end"])
            decided[span["filename"]].append((start, end))
            if span.get("label", True):
                confirmed[span["filename"]].append((span["category"], start, end))
    with open(folder / "files.csv", newline="", encoding="utf-8") as stream:
        rows = sorted(csv.DictReader(stream), key=lambda row: row["master_clauses_filename"])
    return [
        LabelledDocument(name=Path(row.get("pdf") or row["master_clauses_filename"]).name,
                         text=(folder / row["txt"]).read_text(encoding="utf-8"),
                         spans=tuple(confirmed[row["master_clauses_filename"]]),
                         reviewed=tuple(decided[row["master_clauses_filename"]]))
        for row in rows
    ]


def read_split(path: Path) -> set[str]:
    """The validation contracts' PDF names (docs/validation_split.txt, shared with the rules).

    The file is drawn once by ops/benchmarks/rules_accuracy.py so that rules and model are
    tuned and measured on the same contracts; training refuses to draw its own.
    """
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run ops/benchmarks/rules_accuracy.py score once to draw it")
    return {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


def segment_labels(segments: list[Segment], spans: tuple[tuple[str, int, int], ...],
                   categories: tuple[str, ...]) -> np.ndarray:
    """[n_segments, n_categories] bool: the overlap labels described above."""
    column = {c: i for i, c in enumerate(categories)}
    labels = np.zeros((len(segments), len(categories)), dtype=bool)
    starts = np.array([s.start for s in segments])
    ends = np.array([s.end for s in segments])
    for category, start, end in spans:
        if category not in column or end <= start:
            continue
        overlap = np.minimum(ends, end) - np.maximum(starts, start)
        shorter = np.minimum(ends - starts, end - start)
        labels[:, column[category]] |= (overlap > 0) & (overlap >= OVERLAP_SHARE * shorter)
    return labels
