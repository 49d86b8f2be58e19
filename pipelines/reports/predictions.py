"""predictions.jsonl: clause spans in the format shared/tools/cuad_score.py scores.

Each merged finding of a CUAD category contributes every distinct text its evidence quotes,
all at the merged confidence: sources disagree on span width (a rule's phrase, the model's
sentence) and CUAD's Jaccard match rewards whichever is closer to the annotation, while
agreement between sources should raise every one of them.  Candidates under the playbook's
floor are kept, because the metric sweeps every threshold.  Playbook issues are not clauses
and are left out.
"""
from __future__ import annotations

import json
from pathlib import Path

from pipelines.aggregate import Assessed
from pipelines.categories import CUAD_CATEGORIES


def prediction_lines(assessed: list[Assessed]) -> list[dict]:
    lines = []
    for doc, a in assessed:
        if a is None:
            continue
        for m in a.findings:
            if m.finding.category not in CUAD_CATEGORIES:
                continue
            seen = set()
            for e in sorted(m.evidence, key=lambda e: e.end - e.start):
                if not e.text.strip() or e.text in seen:
                    continue
                seen.add(e.text)
                lines.append({"document": doc.filename, "category": m.finding.category, "text": e.text,
                              "probability": m.finding.confidence, "start": e.start, "end": e.end, "page": e.page})
    return lines


def write_predictions(assessed: list[Assessed], path: Path) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for line in prediction_lines(assessed):
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path
