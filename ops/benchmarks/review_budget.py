"""How many of the machine's errors does a budgeted review queue put in front of a person?

For each contract of an audited batch and each CUAD category, the machine makes a presence
call: the category is reported when its best candidate reaches the playbook's `present`
threshold.  The call is an error when CUAD's experts disagree (they annotated the category in
that contract, or did not).  A review item on that (contract, category) lets a reviewer fix
it: accept a clause that was under the threshold, or reject one that was over it.  This
benchmark recomputes the queue from the batch's stored raw findings with at most N items per
contract (N = 3, 5, 10 and unlimited; the audit sample off, so only urgency chooses) and
reports the share of errors that reach the queue, with the items per contract it costs.

    CLAUSEMILL_DATA_DIR=/tmp/iq-val/data python -m pipelines.cli audit <validation PDFs> -o /tmp/iq-val/out
    python ops/benchmarks/review_budget.py --data /tmp/iq-val/data

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from issue_quotes import SPANS, assess  # noqa: E402

from pipelines.assessment import DocumentAssessment  # noqa: E402
from pipelines.categories import CUAD_CATEGORIES  # noqa: E402
from pipelines.review.budget import Budget, best_per_category  # noqa: E402

CAPS = (3, 5, 10, None)


def gold_presence(filenames: set[str]) -> dict[str, set[str]]:
    """Per contract, the categories CUAD's experts annotated in it."""
    present: dict[str, set[str]] = defaultdict(set)
    for line in SPANS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["filename"] in filenames:
            present[row["filename"]].add(row["category"])
    return present


def errors(filename: str, assessment: DocumentAssessment, gold: set[str]) -> set[str]:
    """Categories whose presence call disagrees with the experts."""
    threshold = assessment.thresholds.present
    best = {f.category: f for f in best_per_category(m.finding for m in assessment.findings)}
    called = {c for c, f in best.items() if f.confidence >= threshold}
    return {c for c in CUAD_CATEGORIES if (c in called) != (c in gold)}


def measure(data_dir: Path, cap: int | None) -> dict:
    assessments = assess(data_dir, Budget(per_contract=cap if cap is not None else 10**6, sample_rate=0.0))
    gold = gold_presence(set(assessments))
    total = caught = items = 0
    for filename, a in assessments.items():
        wrong = errors(filename, a, gold.get(filename, set()))
        reviewed = {r.finding.category for r in a.review}
        total += len(wrong)
        caught += len(wrong & reviewed)
        items += len(a.review)
    return {"contracts": len(assessments), "errors": total, "caught": caught, "items": items}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="The audit's CLAUSEMILL_DATA_DIR.")
    args = parser.parse_args()
    print("| items per contract (cap) | items per contract (mean) | machine errors in the queue |\n| --- | ---: | ---: |")
    for cap in CAPS:
        r = measure(args.data, cap)
        share = r["caught"] / r["errors"] if r["errors"] else 0.0
        print(f"| {cap if cap is not None else 'no cap'} | {r['items'] / r['contracts']:.1f} | "
              f"{r['caught']}/{r['errors']} ({share:.0%}) |")


if __name__ == "__main__":
    main()
