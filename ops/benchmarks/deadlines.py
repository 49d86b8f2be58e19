"""Are the deadlines right?  The term in force and the next deadline clausemill computes, as of
one day, against the same computed from CUAD's answers, or from facts read by hand.

Two references:

- `--split validation|train` (default validation): CUAD's normalized answers
  (master_clauses.csv's `-Answer` columns).  Their rules, where an answer is ambiguous:
  - the Expiration Date answer's date is the initial term's end ("perpetual" is perpetual; no
    date and not perpetual: the contract is left out, there is nothing to compare);
  - CUAD does not say how a contract renews.  A Renewal Term answer is read as an automatic
    renewal when CUAD also answers a notice period to stop it, or writes "successive"; it then
    rolls forward without a limit.  Any other renewal answer (an option, one extension) does not
    roll, which is the calendar's cautious reading;
  - a Renewal Term answer of "perpetual" renews until terminated after the initial term;
  - an Expiration Date answer of "perpetual" also stands for a term that runs until terminated,
    so clausemill's "until terminated" counts as "perpetual" against it.
- `--fixture FILE` (tests/fixtures/deadlines_train.json): training contracts read by hand, with
  the renewal's kind, limit and notices as the contract states them, and the term in force and
  next deadline worked out from them (the file says how).

Each row is the share of contracts where clausemill agrees: the status (running, expired,
perpetual, until terminated), the end of the term in force, and the next deadline (kind and
date).  "Invented" counts contracts given a deadline where the reference has none (an option,
a condition, an expired contract); "missed", the reverse.  clausemill reads each PDF's text
layer (cached with keyterm_values.py's), as the product does.

    python ops/benchmarks/deadlines.py [--split validation|train] [--as-of 2026-12-06] [--errors]
    python ops/benchmarks/deadlines.py --fixture tests/fixtures/deadlines_train.json

Tune on the training split only.  CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from dateutil.relativedelta import relativedelta

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from keyterm_values import CUAD, gold_dates, read_one, split_rows  # noqa: E402

from pipelines.datamodel import DocumentResult, DocumentStatus, Finding, KeyTerm  # noqa: E402
from pipelines.deadlines import deadlines_of, term_in_force  # noqa: E402
from pipelines.terms import VALUE_NOTE  # noqa: E402

AS_OF = date(2026, 12, 6)
EXPIRATION, RENEWAL, NOTICE = "Expiration Date", "Renewal Term", "Notice Period To Terminate Renewal"


@dataclass(frozen=True)
class Standing:
    """Where a contract stands on the day: its status, the end of the term in force and its
    next deadline (kind, date), from whichever reading."""

    status: str
    end: date | None
    deadline: tuple[str, date] | None


def ours(values: dict[str, dict], as_of: date) -> Standing:
    """clausemill's reading: the key-term values read_terms gave, through pipelines.deadlines."""
    terms = {name: KeyTerm(name, v["value"], Finding(name, "", 0, 0, 1, v["confidence"], "key-terms", "bench",
                                                     value=v["value"], note=VALUE_NOTE, detail=v.get("detail") or {}),
                           "read")
             for name, v in values.items()}
    term = term_in_force(terms, as_of)
    doc = DocumentResult(0, "contract", "contract", DocumentStatus.DONE)
    found = deadlines_of(doc, terms, as_of)
    return Standing(term.status, term.end, (found[0].kind, found[0].date) if found else None)


def rolled(initial_end: date, kind: str, period: relativedelta | None, limit: int | None,
           notice: relativedelta | None, as_of: date) -> Standing:
    """The term in force and next deadline by the rules the product documents, from facts."""
    end, renewals = initial_end, 0
    automatic = kind == "automatic" and period is not None
    while automatic and end < as_of and (limit is None or renewals < limit):
        renewals += 1
        end = initial_end + period * renewals
    if end < as_of:
        return Standing("expired", end, None)
    follows = automatic and (limit is None or renewals < limit)
    if follows and notice is not None:
        due = end - notice
        return Standing("running", end, ("renewal-notice", due) if due >= as_of else ("renewal", end))
    return Standing("running", end, ("renewal", end) if follows else ("term-end", end))


def cuad_standing(row: dict[str, str], as_of: date) -> Standing | None:
    """The reference from CUAD's answers, by the rules in this module's docstring."""
    expiry_answer = row["Expiration Date-Answer"].strip()
    renewal_answer = row["Renewal Term-Answer"].strip().lower()
    notice_answer = row["Notice Period To Terminate Renewal- Answer"].strip()
    if "perpetual" in expiry_answer.lower():
        return Standing("perpetual", None, None)
    ends = gold_dates(expiry_answer)
    if not ends:
        return None
    initial_end = min(ends)
    if renewal_answer == "perpetual" or "perpetual" in renewal_answer:
        return Standing("running", initial_end, ("renewal", initial_end)) if initial_end >= as_of else \
            Standing("until terminated", None, None)
    period = _duration(renewal_answer)
    notice = _duration(notice_answer)
    automatic = period is not None and (notice is not None or "successive" in renewal_answer)
    return rolled(initial_end, "automatic" if automatic else "none", period, None, notice, as_of)


def _duration(answer: str) -> relativedelta | None:
    from keyterm_values import gold_durations

    found = gold_durations(answer) or set()
    spans = sorted(s for s in found if s[0] != "perpetual")
    if not spans:
        return None
    unit, amount = spans[0]
    return relativedelta(months=int(amount)) if unit == "months" else relativedelta(days=int(amount))


def fixture_standing(entry: dict, as_of: date) -> Standing:
    """The reference a hand-read fixture entry gives (its own worked-out answer)."""
    deadline = entry.get("next_deadline")
    end = entry.get("term_end_as_of")
    status = "not stated" if entry["status_as_of"] == "unknown" else entry["status_as_of"]  # the product's word
    return Standing(status, date.fromisoformat(end) if end else None,
                    (deadline["kind"], date.fromisoformat(deadline["date"])) if deadline else None)


@dataclass
class Tally:
    same_open_end: bool = False
    """CUAD answers "perpetual" for a term that runs until terminated too: count them as one."""
    contracts: int = 0
    status: int = 0
    end: int = 0
    dated: int = 0  # references with an end date
    deadline: int = 0
    with_deadline: int = 0
    invented: int = 0
    missed: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, name: str, reference: Standing, got: Standing) -> None:
        self.contracts += 1
        if self.same_open_end and got.status == "until terminated" and reference.status == "perpetual":
            got = Standing("perpetual", got.end, got.deadline)
        self.status += got.status == reference.status
        if reference.end is not None:
            self.dated += 1
            self.end += got.end == reference.end
        if reference.deadline is not None:
            self.with_deadline += 1
            self.deadline += got.deadline == reference.deadline
            self.missed += got.deadline is None
        else:
            self.invented += got.deadline is not None
        if got != reference:
            self.errors.append(f"{name}\n    reference: {reference}\n    clausemill: {got}")

    def table(self) -> str:
        def share(n: int, d: int) -> str:
            return f"{n / d:.2f} ({n}/{d})" if d else "—"
        no_deadline = self.contracts - self.with_deadline
        return "\n".join([
            "| measure | clausemill |", "| --- | ---: |",
            f"| status right (running, expired, perpetual, until terminated) | {share(self.status, self.contracts)} |",
            f"| end of the term in force right | {share(self.end, self.dated)} |",
            f"| next deadline right (kind and date) | {share(self.deadline, self.with_deadline)} |",
            f"| a deadline invented where the reference has none | {share(self.invented, no_deadline)} |",
            f"| a deadline missed where the reference has one | {share(self.missed, self.with_deadline)} |",
        ])


def _pdf_of_txt() -> dict[str, str]:
    with open(CUAD / "files.csv", newline="", encoding="utf-8") as f:
        return {Path(r["txt"]).name: Path(r["pdf"]).name for r in csv.DictReader(f)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("validation", "train"), default="validation")
    parser.add_argument("--fixture", type=Path, help="hand-read facts (tests/fixtures/deadlines_train.json)")
    parser.add_argument("--as-of", type=date.fromisoformat, help="the day to count from (default: the fixture's, "
                        f"else {AS_OF})")
    parser.add_argument("--errors", action="store_true", help="print each contract read differently")
    parser.add_argument("--out", type=Path, default=REPO / "out" / "keyterm_values", help="text-layer cache")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if not CUAD.exists():
        sys.exit(f"CUAD is not at {CUAD}: this benchmark needs ../shared/data/cuad")
    cache = args.out / "text"
    cache.mkdir(parents=True, exist_ok=True)
    tally = Tally()
    if args.fixture is not None:
        fixture = json.loads(args.fixture.read_text(encoding="utf-8"))
        as_of = args.as_of or date.fromisoformat(fixture["as_of"])
        pdf_of = _pdf_of_txt()
        entries = fixture["contracts"]
        work = [(str(CUAD / "pdf" / pdf_of[e["file"]]), str(cache)) for e in entries]
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            read = dict(pool.map(read_one, work, chunksize=2))
        for entry, (pdf, _) in zip(entries, work, strict=True):
            tally.add(entry["file"], fixture_standing(entry, as_of), ours(read[Path(pdf).name], as_of))
        title = f"{args.fixture.name}: {len(entries)} contracts read by hand, as of {as_of}"
    else:
        as_of = args.as_of or AS_OF
        tally.same_open_end = True
        rows = split_rows(args.split)
        references = {r["pdf"]: ref for r in rows if (ref := cuad_standing(r, as_of)) is not None}
        work = [(str(CUAD / "pdf" / name), str(cache)) for name in references]
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            read = dict(pool.map(read_one, work, chunksize=4))
        for name, reference in references.items():
            tally.add(name, reference, ours(read[name], as_of))
        title = (f"{args.split} split: {len(references)} of {len(rows)} contracts with an expiration answer, "
                 f"as of {as_of}")
    if args.errors:
        print("\n".join(tally.errors))
    print(f"\n{title}\n")
    print(tally.table())


if __name__ == "__main__":
    main()
