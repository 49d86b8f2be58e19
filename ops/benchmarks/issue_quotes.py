"""Do issues quote the clause they name?  Issue quotes against CUAD's expert snippets.

An issue a lawyer cannot verify in its quote wastes their time: "Exclusivity" on "nothing in
this Agreement shall restrict...", a liability cap "found" in a signature block.  This
benchmark takes every risky-clause and value-check issue of an audited batch and asks whether
its quote overlaps an expert snippet of the issue's category in that contract
(`shared/data/cuad/spans.jsonl`).

Matching is by text, since the product reads the PDF and CUAD's offsets are into its txt
file: quote and snippet are sets of lower-cased alphanumeric words, and they overlap when
the smaller set is at least half inside the larger (|Q & S| / min(|Q|, |S|) >= 0.5), so a
quote inside a long snippet and a quote around a short one ("the laws of Delaware") both
count.  Each piece of a split snippet counts on its own and so do its pieces joined.

The issues are recomputed from the batch's stored raw findings (the SQLite database under
the audit's CLAUSEMILL_DATA_DIR) with the current code, twice: "before" with the playbook's
quote checks (pipelines.playbook.quotes) switched off, "after" with them on, so the
difference is theirs alone.  It also counts required clauses reported missing where the
experts found one.

    CLAUSEMILL_DATA_DIR=/tmp/iq-data python -m pipelines.cli audit <folder of the PDFs> -o /tmp/iq-out
    python ops/benchmarks/issue_quotes.py --data /tmp/iq-data [--errors] [--category Exclusivity]

Tune on a training-split batch only.  CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from sqlalchemy import create_engine, select  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from pipelines import aggregate  # noqa: E402
from pipelines.aggregate import aggregate_document  # noqa: E402
from pipelines.assessment import DocumentAssessment  # noqa: E402
from pipelines.datamodel import DocumentStatus  # noqa: E402
from pipelines.playbook import checks, load_playbook  # noqa: E402
from pipelines.review.budget import Budget  # noqa: E402
from pipelines.review.recalibration import Calibration  # noqa: E402
from storage import repository, schema  # noqa: E402

SPANS = REPO.parent / "shared" / "data" / "cuad" / "spans.jsonl"
ANALYSERS = ("rules", "model")  # the producers whose raw findings aggregation reads
CHECKED_KINDS = ("risky", "value")
MIN_OVERLAP = 0.5
_WORD = re.compile(r"[a-z0-9]+")

Snippets = dict[tuple[str, str], list[frozenset[str]]]


def words(text: str) -> frozenset[str]:
    """The lower-cased alphanumeric words of `text`, as a set."""
    return frozenset(_WORD.findall(text.casefold()))


def overlaps(quote: frozenset[str], snippet: frozenset[str]) -> bool:
    """Whether the smaller word set lies at least MIN_OVERLAP inside the larger one."""
    smaller = min(len(quote), len(snippet))
    return smaller > 0 and len(quote & snippet) / smaller >= MIN_OVERLAP


def load_snippets(filenames: set[str]) -> Snippets:
    """Expert snippets per (PDF name, category): each piece, and each split snippet joined."""
    pieces: dict[tuple[str, str, int], list[str]] = defaultdict(list)
    for line in SPANS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["filename"] in filenames:
            pieces[(row["filename"], row["category"], row["snippet_index"])].append(row["text"])
    snippets: Snippets = defaultdict(list)
    for (filename, category, _), texts in pieces.items():
        snippets[(filename, category)].extend(words(t) for t in texts)
        if len(texts) > 1:
            snippets[(filename, category)].append(words(" ".join(texts)))
    return snippets


def assess(data_dir: Path, budget: Budget = Budget(),
           calibration: Calibration | None = None) -> dict[str, DocumentAssessment]:
    """Each done document's assessment, recomputed from its stored raw findings."""
    playbook = load_playbook(None)
    engine = create_engine(f"sqlite:///file:{data_dir / 'clausemill.sqlite'}?mode=ro&uri=true")
    out: dict[str, DocumentAssessment] = {}
    with Session(engine) as session:
        for doc in session.scalars(select(schema.Document).where(schema.Document.status == DocumentStatus.DONE)):
            findings = repository.load_findings(session, doc.id, ANALYSERS)
            out[doc.filename] = aggregate_document(findings, playbook, doc.page_count, budget, calibration)
    return out


@contextmanager
def quote_checks_off() -> Iterator[None]:
    """The playbook as it was before quote checks: every quote states its clause (for issues,
    and for the presence call aggregation makes)."""
    with mock.patch.object(checks, "quote_problem", lambda category, text: None), \
            mock.patch.object(aggregate, "quote_problem", lambda category, text: None):
        yield


def score(assessments: dict[str, DocumentAssessment], snippets: Snippets) -> dict:
    """Issues checked, issues whose quote overlaps a snippet, per category; and "missing"s,
    with those where the experts found the clause."""
    total: Counter[str] = Counter()  # per category, and per issue kind
    hit: Counter[str] = Counter()
    missing: Counter[str] = Counter()
    wrong_missing: Counter[str] = Counter()
    misses: list[tuple[str, str, str]] = []
    for filename, assessment in assessments.items():
        for issue in assessment.issues:
            category = issue.finding.category
            expert = snippets.get((filename, category), [])
            if issue.kind == "missing":
                missing[category] += 1
                wrong_missing[category] += bool(expert)
                continue
            if issue.kind not in CHECKED_KINDS:
                continue
            total.update((category, issue.kind))
            quote = words(issue.finding.text)
            if any(overlaps(quote, s) for s in expert):
                hit.update((category, issue.kind))
            else:
                misses.append((category, filename, issue.finding.text))
    return {"total": total, "hit": hit, "missing": missing, "wrong_missing": wrong_missing, "misses": misses}


def _share(hit: int, total: int) -> str:
    return f"{hit}/{total} ({hit / total:.0%})" if total else "0/0"


def report(before: dict, after: dict, only: str | None) -> None:
    """Before/after overlap per category and overall, as a Markdown table."""
    categories = sorted((set(before["total"]) | set(after["total"])) - set(CHECKED_KINDS))
    print("| category | before | after |\n| --- | ---: | ---: |")
    for c in categories:
        if only in (None, c):
            print(f"| {c} | {_share(before['hit'][c], before['total'][c])} | {_share(after['hit'][c], after['total'][c])} |")
    for kind in CHECKED_KINDS:
        print(f"| **{kind} issues** | {_share(before['hit'][kind], before['total'][kind])} "
              f"| {_share(after['hit'][kind], after['total'][kind])} |")
    hits = [sum(r["hit"][k] for k in CHECKED_KINDS) for r in (before, after)]
    totals = [sum(r["total"][k] for k in CHECKED_KINDS) for r in (before, after)]
    print(f"| **all** | {_share(hits[0], totals[0])} | {_share(hits[1], totals[1])} |")
    print("\n| required clause reported missing | before | after |\n| --- | ---: | ---: |")
    for c in sorted(set(before["missing"]) | set(after["missing"])):
        print(f"| {c}: missing / of which the experts found it | {before['missing'][c]} / {before['wrong_missing'][c]} "
              f"| {after['missing'][c]} / {after['wrong_missing'][c]} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the audit's CLAUSEMILL_DATA_DIR")
    parser.add_argument("--errors", action="store_true", help="print the quotes that overlap no snippet")
    parser.add_argument("--category", help="only this category in the table and the errors")
    args = parser.parse_args()
    with quote_checks_off():
        before_assessments = assess(args.data)
    after_assessments = assess(args.data)
    snippets = load_snippets(set(after_assessments))
    before, after = score(before_assessments, snippets), score(after_assessments, snippets)
    print(f"{len(after_assessments)} contracts, batch in {args.data}\n")
    report(before, after, args.category)
    if args.errors:
        print("\nQuotes overlapping no expert snippet (after):")
        for category, filename, text in after["misses"]:
            if args.category in (None, category):
                print(f"- [{category}] {filename[:40]}: {' '.join(text.split())[:300]}")


if __name__ == "__main__":
    main()
