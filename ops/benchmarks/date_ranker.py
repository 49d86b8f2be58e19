"""Would a learned ranker choose a contract's own date better than the hand-written readers?

The agreement-date reader (pipelines/rules/contract_dates.agreement_date_mention) scores 0.93
on the training split, where it was tuned, and 0.81 on validation.  That gap could come from
rules that fit the training contracts' wordings.  This benchmark tests the other way to choose:
every full written date of a document is a candidate (pipelines.rules.dates.find_written_dates
and the signature blocks' dates), described by where it stands (relative position, order,
first date, signature block, head or tail, how often the same date recurs), cue phrases before
it ("dated", "as of", "made ... on", "day of", "effective", "Date:", another agreement's
"Agreement dated"), what follows it ("by and between", "(the "Effective Date")"), and hashed
words around it.  A logistic regression is fitted on the training contracts, and each
document's best candidate is its date.  It prints:

- train, 5 folds by contract: the ranker alone at several score cut-offs (below the cut-off it
  shows no date), and the ranker overriding the readers' date when it prefers another by a
  margin;
- with --validation, the same fitted on all of train and run once on validation.

    python ops/benchmarks/date_ranker.py [--validation]

It reads the PDF text cache and the values of `keyterm_values.py --split train|validation`, so
run that first.  Tune on the training split only.  CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import keyterm_values  # noqa: E402
from logistic import fit_logistic  # noqa: E402
from pipelines.datamodel import document_text  # noqa: E402
from pipelines.rules.contract_dates import signature_dates  # noqa: E402
from pipelines.rules.dates import DateMention, find_written_dates  # noqa: E402

OUT = REPO / "out" / "keyterm_values"
HASHED = 4096
FOLDS = 5
_WORD_RE = re.compile(r"[a-z]+|\d+|[\"“”():]")
_CUES = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in {
    "dated": r"\bdated\b[^.]{0,30}$",
    "as_of": r"\bas\s+of\s*(?:this\s+|the\s+)?$",
    "made_on": r"\b(?:made|entered\s+into|executed|concluded|signed)\b[^.]{0,60}$",
    "day_of": r"\bday\s+of\s*$",
    "effective": r"\beffective\b[^.]{0,40}$",
    "date_colon": r"\bdated?\s*:\s*$",
    "another_agreement": r"\b(?:agreement|contract|amendment)\s*,?\s*dated\s*(?:as\s+of\s*)?$",
    "amend": r"\bamend",
    "this": r"\bthis\s+$",
}.items()}
_BETWEEN_AFTER_RE = re.compile(r"[^.]{0,40}\b(?:by\s+and\s+)?between\b", re.IGNORECASE)
_EFFECTIVE_AFTER_RE = re.compile(r"\s*\(?[^)]{0,10}effective", re.IGNORECASE)


@dataclass(frozen=True)
class Candidate:
    iso: str
    dense: dict[str, float]
    hashed: list[int]


@dataclass(frozen=True)
class Contract:
    pdf: str
    gold: frozenset[str]
    candidates: list[Candidate]


def candidates(text: str) -> list[Candidate]:
    signed = signature_dates(text)
    in_block = {m.start for m in signed}
    by_place = {(m.start, m.iso): m for m in find_written_dates(text, 0, len(text)) + signed
                if m.iso and len(m.iso) == 10}
    ordered = sorted(by_place.values(), key=lambda m: m.start)
    recurs: dict[str, int] = {}
    for m in ordered:
        recurs[m.iso] = recurs.get(m.iso, 0) + 1
    return [_candidate(text, m, i, m.start in in_block, recurs[m.iso]) for i, m in enumerate(ordered)]


def _candidate(text: str, m: DateMention, order: int, in_block: bool, recurs: int) -> Candidate:
    before, after = text[max(0, m.start - 80):m.start], text[m.end:m.end + 40]
    dense = {"position": m.start / max(1, len(text)), "log_offset": math.log1p(m.start) / 10,
             "order": math.log1p(order), "first": float(order == 0), "signature_block": float(in_block),
             "recurs": math.log1p(recurs), "head": float(m.start < 3000), "tail": float(m.start > 0.8 * len(text)),
             "between_after": float(bool(_BETWEEN_AFTER_RE.match(after))),
             "effective_after": float(bool(_EFFECTIVE_AFTER_RE.match(after)))}
    dense |= {f"cue_{name}": float(bool(cue.search(before))) for name, cue in _CUES.items()}
    words_before, words_after = _WORD_RE.findall(before.lower())[-6:], _WORD_RE.findall(after.lower())[:4]
    keys = [f"b:{w}" for w in words_before] + [f"a:{w}" for w in words_after] + ["b2:" + " ".join(words_before[-2:])]
    return Candidate(m.iso, dense, [zlib.crc32(k.encode()) % HASHED for k in keys])


def contracts(split: str) -> list[Contract]:
    found = []
    for row in keyterm_values.split_rows(split):
        pages = keyterm_values.contract_pages(keyterm_values.CUAD / "pdf" / row["pdf"], OUT / "text")
        text, _ = document_text(pages)
        gold = keyterm_values.gold_dates(row["Agreement Date-Answer"].strip()) or set()
        found.append(Contract(row["pdf"], frozenset(d.isoformat() for d in gold),
                              candidates(text) if text.strip() else []))
    return found


def design(data: list[Contract], names: list[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Features [n, dense + hashed], labels [n] and each row's contract index [n]."""
    rows, labels, owner = [], [], []
    for i, contract in enumerate(data):
        for c in contract.candidates:
            row = torch.zeros(len(names) + HASHED)
            row[:len(names)] = torch.tensor([c.dense[n] for n in names])
            for h in c.hashed:
                row[len(names) + h] += 1
            rows.append(row)
            labels.append(float(c.iso in contract.gold))
            owner.append(i)
    return torch.stack(rows), torch.tensor(labels), torch.tensor(owner)


def choices(data: list[Contract], score: torch.Tensor, owner: torch.Tensor,
            readers: dict[str, str | None], cut: float | None, margin: float | None) -> list[str | None]:
    """Each contract's date: the ranker's best candidate (none under `cut`); or, with `margin`,
    the readers' date unless the ranker prefers another by more than `margin`."""
    picked = []
    for i, contract in enumerate(data):
        rows = (owner == i).nonzero().flatten().tolist()
        best = max(rows, key=lambda r: float(score[r])) if rows else None
        top = contract.candidates[rows.index(best)].iso if best is not None else None
        if margin is None:
            picked.append(top if best is not None and (cut is None or score[best] >= cut) else None)
            continue
        ours = readers.get(contract.pdf)
        if ours is None or best is None or len(ours) != 10:
            picked.append(ours)
            continue
        ours_score = max((float(score[r]) for r, c in zip(rows, contract.candidates) if c.iso == ours), default=-1e9)
        picked.append(top if top != ours and float(score[best]) - ours_score > margin else ours)
    return picked


def tally(data: list[Contract], picked: list[str | None]) -> str:
    answered = [(c, p) for c, p in zip(data, picked) if c.gold]
    unanswered = [p for c, p in zip(data, picked) if not c.gold]
    right = sum(p in c.gold for c, p in answered)
    shown = sum(p is not None for p in unanswered)
    return f"{right / len(answered):.3f} ({right}/{len(answered)}) | {shown}/{len(unanswered)}"


def readers_values(split: str) -> dict[str, str | None]:
    values = json.loads((OUT / f"values-{split}.json").read_text(encoding="utf-8"))
    return {pdf: (v.get("Agreement Date", {}).get("value") if v.get("Agreement Date", {}).get("value") != "not stated"
                  else None) for pdf, v in values.items()}


SETTINGS = [("ranker alone", None, None), ("ranker alone, score >= -1", -1.0, None), ("ranker alone, score >= 0", 0.0, None),
            ("readers, overridden by a margin of 1", None, 1.0), ("readers, overridden by a margin of 2", None, 2.0)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--validation", action="store_true", help="fit on train, run once on validation")
    parser.add_argument("--l2", type=float, default=0.01)
    args = parser.parse_args()
    train = contracts("train")
    names = sorted({n for c in train for cand in c.candidates for n in cand.dense})
    x, y, owner = design(train, names)
    print(f"train: {len(train)} contracts, {len(y)} candidate dates, {int(y.sum())} of them CUAD's answer\n")
    print("| split | choice | right (with an answer) | shown where none |")
    print("| --- | --- | ---: | ---: |")
    readers = readers_values("train")
    print(f"| train | the readers (tuned here) | {tally(train, [readers.get(c.pdf) for c in train])} |")
    score = torch.zeros(len(y))
    folds = owner % FOLDS
    for fold in range(FOLDS):
        held = folds == fold
        weight, bias = fit_logistic(x[~held], y[~held], args.l2)
        score[held] = x[held] @ weight + bias
    for label, cut, margin in SETTINGS:
        print(f"| train, {FOLDS} folds | {label} | {tally(train, choices(train, score, owner, readers, cut, margin))} |")
    if args.validation:
        weight, bias = fit_logistic(x, y, args.l2)
        validation = contracts("validation")
        xv, _, owner_v = design(validation, names)
        score_v = xv @ weight + bias
        readers_v = readers_values("validation")
        print(f"| validation | the readers | {tally(validation, [readers_v.get(c.pdf) for c in validation])} |")
        for label, cut, margin in SETTINGS:
            print(f"| validation | {label} | "
                  f"{tally(validation, choices(validation, score_v, owner_v, readers_v, cut, margin))} |")


if __name__ == "__main__":
    main()
