"""predictions.jsonl: clause spans in the format shared/tools/cuad_score.py scores.

Each merged finding of a CUAD category contributes every distinct text its evidence quotes:
sources disagree on span width (a rule's phrase, the model's sentence) and CUAD's Jaccard match
rewards whichever is closer to the annotation.  Its likeliest quote goes out at the merged
confidence, and each other at its own confidence plus what the merge added to the likeliest
(agreement between sources raises every one of them), never above the merged one.  Writing
every quote at the merged confidence, as before, ranked a key term's wide quotes beside its
exact one: a date called effective (0.98) merges with the takes-effect clause around it (0.25),
and the clause went out at 0.98 too, a miss at the top of the ranking.  On the audit of the 335
training contracts this raised AUPR from 0.695 to 0.701 on the 50 calibration contracts and from
0.856 to 0.862 on the 285 fitting ones (Effective Date 0.61 -> 0.72 over all 335; docs/ACCURACY.md).
Candidates under the playbook's floor are kept, because the metric sweeps every threshold.
Playbook issues are not clauses and are left out.

Texts are written in plain form: typographic quotes as ASCII ones, a Greek question mark as the
semicolon it stands for, and each run of whitespace as one space (`start`/`end` still point into
the document's own text).  CUAD's answers are written that way, while a PDF's text layer keeps
“Company” and its line breaks; the scorer compares word sets (where “Company” is not "Company")
and, for Parties, looks for the answer inside the text.  On the 335 training contracts' audit
this raised the recall of the predictions at threshold 0 from 0.910 to 0.922 on the 50
calibration contracts, Parties from 0.916 to 0.968 (docs/ACCURACY.md).

A line that repeats, nearly word for word, a line ranked at or above it for the same contract and
category is left out: the evidence of merged findings and the model's wider spans overlap, and a
near copy adds nothing for someone searching the lower ranks, while the scorer counts it against
precision whenever its original missed.  The cut (`NEAR_COPY`) was set on the audit of the 335
training contracts, where it drops a tenth of the lines and no answer (docs/ACCURACY.md).
"""
from __future__ import annotations

import json
from pathlib import Path

from pipelines.assessment import Assessed
from pipelines.datamodel import MergedFinding
from pipelines.categories import CUAD_CATEGORIES

# Most of CUAD's PDFs (372 of 419) set their semicolons as U+037E GREEK QUESTION MARK, which is
# canonically a semicolon; the scorer strips only ";" from a word ("hereunder;" stays a word of its own).
_PLAIN = str.maketrans({"“": '"', "”": '"', "„": '"', "‟": '"', "‘": "'", "’": "'", "‚": "'", "‛": "'",
                        "\u037e": ";"})


NEAR_COPY = 0.85
"""Share of common words (Jaccard, as CUAD's scorer counts them) from which a line is a near copy."""
_SCORER_DROPS = str.maketrans({".": "", ",": "", ";": "", ":": "", "/": " "})


def plain_text(text: str) -> str:
    """`text` with ASCII quotes and semicolons and single spaces, as CUAD writes its answers."""
    return " ".join(text.translate(_PLAIN).split())


def _scored_words(text: str) -> frozenset[str]:
    return frozenset(text.translate(_SCORER_DROPS).lower().split())


def _without_near_copies(lines: list[dict]) -> list[dict]:
    """`lines` less each line that is a near copy of one ranked at or above it (ties: the order given)."""
    ranked: dict[tuple[str, str], list[frozenset[str]]] = {}
    dropped = set()
    for index in sorted(range(len(lines)), key=lambda i: -lines[i]["probability"]):
        line = lines[index]
        words = _scored_words(line["text"])
        above = ranked.setdefault((line["document"], line["category"]), [])
        if any(len(words & kept) >= NEAR_COPY * len(words | kept) for kept in above):
            dropped.add(index)
        else:
            above.append(words)
    return [line for index, line in enumerate(lines) if index not in dropped]


def prediction_lines(assessed: list[Assessed]) -> list[dict]:
    lines = []
    for doc, a in assessed:
        if a is None:
            continue
        for m in a.findings:
            if m.finding.category in CUAD_CATEGORIES:
                lines += _quote_lines(doc.filename, m)
    return _without_near_copies(lines)


def _quote_lines(filename: str, merged: MergedFinding) -> list[dict]:
    """One line per distinct plain text the evidence quotes, at its own confidence shifted by what
    the merge added to (or, after the quote checks, took from) the likeliest quote."""
    confidence = merged.finding.confidence
    shift = confidence - max((e.confidence for e in merged.evidence), default=confidence)
    lines: dict[str, dict] = {}
    for e in sorted(merged.evidence, key=lambda e: e.end - e.start):
        text = plain_text(e.text)
        probability = max(0.0, min(confidence, round(e.confidence + shift, 4)))
        if text and (text not in lines or probability > lines[text]["probability"]):
            lines[text] = {"document": filename, "category": merged.finding.category, "text": text,
                           "probability": probability, "start": e.start, "end": e.end, "page": e.page}
    return list(lines.values())


def write_predictions(assessed: list[Assessed], path: Path) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for line in prediction_lines(assessed):
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path
