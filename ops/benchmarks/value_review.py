"""Which wrong key-term values does review ask a person about, and how many of its questions are about wrong values?

A value item (pipelines/review/value_items.py) asks a reviewer for a key term's value.  It is
worth its place when the value it asks about is wrong, and review catches a wrong value only
when it asks about it.  This reads every training contract (CUAD contracts not in
docs/validation_split.txt) as the rules analyser does, its value findings from
pipelines.terms.findings.value_findings over each PDF's text layer (cached by
keyterm_values.py) and the segment stage's segments, and assesses them with the default
playbook as of AS_OF (ops/benchmarks/deadlines.py's fixed day), the audit sample off, three
ways:

- "value_items": every item value_items gives, before anything else is done with it;
- "queue": aggregate_document's review items with no cap per contract, after within_budget
  made items quoting the same text one (a field whose item was merged into another field's
  counts as not asked: the reviewer is asked for the other field's value);
- "within 5": aggregate_document with the default cap of 5 items per contract.

Only value findings are given, as the brief of this measure is the value items alone: presence
items do not compete for the 5 places here (in a real audit they do, and fewer value items
would stay), and no clause finding can state a second reading of a date, so value_items's
"two readings disagree" reason does not fire.

Each value is scored as value_confidence.py scores it (keyterm_values.py's comparison with
CUAD's normalized answers; a value shown where CUAD has none is wrong; Parties is right only
when every name of CUAD's answer is matched and no name is extra).  Per field: precision is
the share of asked values that are wrong, recall the share of wrong values asked about; and the
same for the values the next deadline as of AS_OF is computed from (value_items's own
reading of which those are).  Items on Contract Type and Initial Term, which CUAD does not
answer, are counted but not scored.

    python ops/benchmarks/value_review.py [--jobs 2]

It runs on the training split only and refuses the validation split.  CUAD: CC BY 4.0, The
Atticus Project.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import keyterm_values as kv  # noqa: E402
import value_confidence as vc  # noqa: E402
from deadlines import AS_OF  # noqa: E402

from pipelines.aggregate import aggregate_document  # noqa: E402
from pipelines.assessment import ReviewItem  # noqa: E402
from pipelines.datamodel import document_text  # noqa: E402
from pipelines.playbook import load_playbook  # noqa: E402
from pipelines.review.budget import Budget  # noqa: E402
from pipelines.review.value_items import QUESTION, deadline_values, value_items  # noqa: E402
from pipelines.stages.segment import segment_document  # noqa: E402
from pipelines.terms import CONTRACT_TYPE  # noqa: E402
from pipelines.terms.findings import value_findings  # noqa: E402

TEXT = kv.REPO / "out" / "keyterm_values" / "text"
"""Where keyterm_values.py caches each PDF's text layer."""
STAGES = ("value_items", "queue", "within 5")
CAPPED = Budget(sample_rate=0.0, as_of=AS_OF)
UNCAPPED = Budget(per_contract=sys.maxsize, sample_rate=0.0, as_of=AS_OF)
REASONS = {
    "The next deadline": "a coming deadline depends on it",
    "The term runs": "the term's start is no date",
    "Two readings of the": "two readings of a date disagree",
    "What is the": "unsure (under review_below)",
}
"""How value_items's reasons begin, and what each says."""
BLANK_NEEDED = "blank the playbook needs"
"""The reason that begins with the field's name (value_items: "<field> is not stated ...")."""
OTHER = "other (a reason this benchmark does not know)"


@dataclass(frozen=True)
class Value:
    """One field of one contract: whether CUAD says its value is wrong (None where CUAD gives no
    answer for the field), whether the next deadline depends on it, and why each stage asked
    about it (None where it did not)."""

    field: str
    wrong: bool | None
    deadline: bool
    asked: tuple[str | None, ...]


def reason_of(item: ReviewItem) -> str:
    """Which of value_items's reasons the item was asked for (module REASONS)."""
    if item.reason.startswith(f"{item.finding.category} is not stated"):
        return BLANK_NEEDED
    return next((label for start, label in REASONS.items() if item.reason.startswith(start)), OTHER)


def assess_one(row: dict[str, str]) -> tuple[list[Value], tuple[int, ...]]:
    """A contract's values with what each stage asked, and how many value items each stage gave."""
    pages = kv.contract_pages(kv.CUAD / "pdf" / row["pdf"], TEXT)
    if not any(p.text.strip() for p in pages):
        return [], (0,) * len(STAGES)
    text, _ = document_text(pages)
    findings = value_findings(text, segment_document(pages))
    playbook = load_playbook(None)
    uncapped = aggregate_document(findings, playbook, len(pages), UNCAPPED)
    capped = aggregate_document(findings, playbook, len(pages), CAPPED)
    terms = uncapped.key_terms
    contract_type = terms.get(CONTRACT_TYPE)
    flagged = value_items(terms, [m.finding for m in uncapped.findings],
                          playbook.for_type(contract_type.value if contract_type else None), UNCAPPED)
    stages = [flagged, *([i for i in a.review if i.parts.get("question") == QUESTION] for a in (uncapped, capped))]
    asked = [{i.finding.category: reason_of(i) for i in items} for items in stages]
    hinges, _ = deadline_values(terms, AS_OF)
    values = [Value(field, not vc.right(field, {"value": term.value, "detail": term.detail}, row), field in hinges,
                    tuple(a.get(field) for a in asked))
              for field, term in terms.items() if field in vc.FIELDS]
    values += [Value(field, None, field in hinges, tuple(a.get(field) for a in asked))
               for field in dict.fromkeys(f for a in asked for f in a) if field not in vc.FIELDS]
    return values, tuple(len(items) for items in stages)


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.2f}" if whole else "—"


def field_table(values: list[Value], title: str) -> None:
    """Per field and stage: values asked about (those wrong), precision and recall."""
    print(f"\n{title}\n")
    print("| field | values | wrong | " + " | ".join(f"{s}: asked (wrong) | precision | recall" for s in STAGES) + " |")
    print("| --- | ---: | ---: |" + " ---: | ---: | ---: |" * len(STAGES))
    for field in (*vc.FIELDS, "all fields"):
        rows = [v for v in values if v.wrong is not None and field in (v.field, "all fields")]
        if not rows:
            continue
        wrong = sum(v.wrong for v in rows)
        cells = []
        for k in range(len(STAGES)):
            asked = [v for v in rows if v.asked[k]]
            hit = sum(v.wrong for v in asked)
            cells.append(f"{len(asked)} ({hit}) | {_share(hit, len(asked))} | {_share(hit, wrong)}")
        print(f"| {field} | {len(rows)} | {wrong} | " + " | ".join(cells) + " |")


def reason_table(values: list[Value]) -> None:
    """Per reason an item was asked for (value_items's items), how often the value was wrong."""
    print("\n| asked because (value_items) | items | scored | wrong | precision |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for reason in (*REASONS.values(), BLANK_NEEDED, OTHER):
        asked = [v for v in values if v.asked[0] == reason]
        if reason == OTHER and not asked:
            continue
        scored = [v for v in asked if v.wrong is not None]
        hit = sum(v.wrong for v in scored)
        print(f"| {reason} | {len(asked)} | {len(scored)} | {hit} | {_share(hit, len(scored))} |")


def contract_table(counts: list[tuple[int, ...]], values: list[Value]) -> None:
    """Per stage: value items per contract and the share of contracts with one."""
    print("\n| stage | value items | unscored (no CUAD answer) | per contract: mean | max "
          "| contracts with at least one |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for k, stage in enumerate(STAGES):
        per = [c[k] for c in counts]
        unscored = Counter(v.field for v in values if v.asked[k] and v.wrong is None)
        print(f"| {stage} | {sum(per)} | {', '.join(f'{f} {n}' for f, n in unscored.items()) or '0'} "
              f"| {sum(per) / len(per):.2f} | {max(per)} | {_share(sum(c > 0 for c in per), len(per))} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("train", "validation"), default="train",
                        help="train only: the validation split is never scored here")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if args.split != "train":
        parser.error("the validation split is held out: value review is measured on train only")
    if not kv.CUAD.exists():
        sys.exit(f"CUAD is not at {kv.CUAD}: this benchmark needs ../shared/data/cuad")
    TEXT.mkdir(parents=True, exist_ok=True)
    rows = kv.split_rows("train")
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(assess_one, rows, chunksize=4))
    values = [v for vs, _ in results for v in vs]
    counts = [c for _, c in results]
    print(f"\ntrain split: {len(rows)} contracts, as of {AS_OF}, default playbook, audit sample off. "
          "'within 5' is the default cap with value items alone: in a real audit presence items compete "
          "for the same 5 places.")
    field_table(values, "All values")
    field_table([v for v in values if v.deadline], f"Values the next deadline as of {AS_OF} depends on")
    reason_table(values)
    contract_table(counts, values)


if __name__ == "__main__":
    main()
