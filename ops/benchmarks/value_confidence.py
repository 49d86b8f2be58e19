"""How often is a key-term value right at each confidence its reader gives?  Fits the map that says so.

The readers in pipelines/terms give a value a hand-set constant per reading path.  This reads
every training contract (CUAD contracts not in docs/validation_split.txt) as
keyterm_values.py does and scores each value as it does: a value shown where CUAD has no
answer is wrong, "not stated" where CUAD has none is right; Parties is right when every name
in CUAD's answer is matched and no name is extra.  Per field, each constant's share right is
smoothed toward the field's overall rate by a Beta prior worth PRIOR contracts and kept
monotone in the constant (pooling adjacent levels that disagree, weighted by contracts): a
reader's stronger path is never said to be less sure than its weaker one.  No share goes past
the rule of succession for the whole field (a field right on all its n contracts gets at most
(n + 1) / (n + 2)).

The readers were tuned on these same contracts, so the shares are training figures: where
docs/ACCURACY.md shows a field weaker on validation (Parties, Expiration Date, Renewal Term),
the calibrated confidences are optimistic by about that gap.

It is measured by 5-fold cross-validation over contracts (folds by a hash of the PDF's name):
each contract's values are scored by the map fitted on the other folds, against the raw
constants, by log loss, Brier score and expected calibration error over 10 bins (each value
weighing the same; pipelines.review.recalibration.reliability).  `--write` writes the map
fitted on the whole split to pipelines/terms/value_calibration.json, which
pipelines/terms/calibration.py applies to each value finding's confidence.

    python ops/benchmarks/value_confidence.py [--write] [--jobs 2]

It runs on the training split only and refuses the validation split.  CUAD: CC BY 4.0, The
Atticus Project.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import keyterm_values as kv  # noqa: E402

from pipelines.review.recalibration import Reliability, reliability  # noqa: E402
from pipelines.terms import NOT_STATED  # noqa: E402
from pipelines.terms.calibration import TABLE_PATH, level_value  # noqa: E402

PRIOR = 4.0
"""Weight of the pull toward the field's overall rate, in contracts: a constant seen on a
handful of contracts stays near its field's rate."""
FOLDS = 5
FIELDS = ("Parties", *kv.VALUE_FIELDS)


@dataclass(frozen=True)
class Record:
    """One contract's value of one field: the reader's constant, and whether CUAD agrees."""

    pdf: str
    field: str
    confidence: float
    right: bool


def records(rows: list[dict[str, str]], values: dict[str, dict[str, dict]]) -> list[Record]:
    """A Record for each field read_terms gave a value (a field it leaves out has no finding
    whose confidence could mean anything)."""
    out = []
    for row in rows:
        got = values.get(row["pdf"], {})
        for field in FIELDS:
            value = got.get(field)
            if value is not None:
                out.append(Record(row["pdf"], field, round(value["confidence"], 2), right(field, value, row)))
    return out


def right(field: str, value: dict, row: dict[str, str]) -> bool:
    """Whether `value` (value and detail) is right against the contract's CUAD answer, as
    keyterm_values scores it; Parties only when every name matched and none is extra."""
    if field == "Parties":
        gold = kv.gold_parties(row[kv.ANSWER_COLUMNS[field]])
        ours = [kv.name_key(p["name"]) for p in value["detail"].get("parties", [])]
        return kv.match_names(ours, gold) == len(gold) == len(ours)
    gold_of, matches = kv._gold_and_match(field)
    gold = gold_of(row[kv.ANSWER_COLUMNS[field]].strip())
    shown = value["value"] != NOT_STATED
    return not shown if gold is None else shown and matches(value["value"], gold)


def fit_field(recs: list[Record]) -> dict[float, float]:
    """Each constant's share right, smoothed and made monotone (module docstring)."""
    overall = (sum(r.right for r in recs) + 1) / (len(recs) + 2)  # Laplace: never 0 or 1
    bound = 1 / (len(recs) + 2)
    cells: dict[float, list[int]] = defaultdict(lambda: [0, 0])
    for r in recs:
        cells[r.confidence][0] += 1
        cells[r.confidence][1] += r.right
    levels = sorted(cells)
    shares = [(cells[c][1] + PRIOR * overall) / (cells[c][0] + PRIOR) for c in levels]
    weights = [cells[c][0] + PRIOR for c in levels]
    return {c: round(min(max(share, bound), 1 - bound), 3) for c, share in zip(levels, _monotone(shares, weights))}


def _monotone(values: list[float], weights: list[float]) -> list[float]:
    """The non-decreasing sequence nearest `values` (weighted least squares): adjacent values
    that fall are pooled into their weighted mean until none does."""
    blocks: list[tuple[float, float, int]] = []  # (mean, weight, how many values)
    for value, weight in zip(values, weights):
        blocks.append((value, weight, 1))
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            (m1, w1, n1), (m2, w2, n2) = blocks.pop(-2), blocks.pop()
            blocks.append(((m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2))
    return [mean for mean, _, count in blocks for _ in range(count)]


def fit(recs: list[Record]) -> dict[str, dict[float, float]]:
    by_field: dict[str, list[Record]] = defaultdict(list)
    for r in recs:
        by_field[r.field].append(r)
    return {field: fit_field(by_field[field]) for field in FIELDS if by_field[field]}


def fold(pdf: str) -> int:
    """The whole SHA-256 of the name, mod FOLDS: its first four bytes mod 5 are what set the
    validation split apart, so by them nearly every training contract falls outside fold 0."""
    return int(hashlib.sha256(pdf.encode()).hexdigest(), 16) % FOLDS


def out_of_fold(recs: list[Record]) -> list[float]:
    """Each record's calibrated confidence by the map fitted without its contract's fold."""
    predicted = [r.confidence for r in recs]
    for k in range(FOLDS):
        table = fit([r for r in recs if fold(r.pdf) != k])
        for i, r in enumerate(recs):
            if fold(r.pdf) == k and r.field in table:
                predicted[i] = level_value(table[r.field], r.confidence)
    return predicted


def measure(recs: list[Record], predicted: list[float]) -> tuple[Reliability, Reliability]:
    """(raw constants, calibrated out of fold) over `recs`, `predicted` aligned with them."""
    y = [float(r.right) for r in recs]
    w = [1.0] * len(recs)
    return reliability([r.confidence for r in recs], y, w), reliability(predicted, y, w)


def print_tables(recs: list[Record], table: dict[str, dict[float, float]], predicted: list[float]) -> None:
    print("| field | values | share right | CV log loss (raw → calibrated) | CV Brier | CV calibration error |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for field in [*table, "all fields"]:
        chosen = [i for i, r in enumerate(recs) if field in (r.field, "all fields")]
        sub = [recs[i] for i in chosen]
        before, after = measure(sub, [predicted[i] for i in chosen])
        print(f"| {field} | {len(sub)} | {sum(r.right for r in sub) / len(sub):.2f} "
              f"| {before.log_loss:.3f} → {after.log_loss:.3f} | {before.brier:.3f} → {after.brier:.3f} "
              f"| {before.ece:.3f} → {after.ece:.3f} |")
    print("\n| field | reader's confidence | values | share right | calibrated (whole split) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for field, levels in table.items():
        for level, share in levels.items():
            at = [r for r in recs if r.field == field and r.confidence == level]
            print(f"| {field} | {level:.2f} | {len(at)} | {sum(r.right for r in at) / len(at):.2f} | {share:.3f} |")


def write_table(table: dict[str, dict[float, float]], recs: list[Record], contracts: int) -> None:
    meta = {
        "fitted": f"share right per reader confidence, Beta prior toward the field's rate worth {PRIOR:g} "
                  "contracts, monotone in the confidence",
        "split": "CUAD training contracts (not in docs/validation_split.txt)",
        "contracts": contracts,
        "values": {field: sum(r.field == field for r in recs) for field in table},
        "written_by": "python ops/benchmarks/value_confidence.py --write",
    }
    data = {"_meta": meta, **{field: {str(level): share for level, share in levels.items()}
                              for field, levels in table.items()}}
    TABLE_PATH.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("train", "validation"), default="train",
                        help="train only: the validation split is never fitted on or scored here")
    parser.add_argument("--write", action="store_true", help=f"write the fitted map to {TABLE_PATH.relative_to(REPO)}")
    parser.add_argument("--out", type=Path, default=REPO / "out" / "keyterm_values",
                        help="where keyterm_values.py caches each PDF's text (under text/)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if args.split != "train":
        parser.error("the validation split is held out: confidences are fitted and measured on train only")
    if not kv.CUAD.exists():
        sys.exit(f"CUAD is not at {kv.CUAD}: this benchmark needs ../shared/data/cuad")
    cache = args.out / "text"
    cache.mkdir(parents=True, exist_ok=True)
    rows = kv.split_rows("train")
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        values = dict(pool.map(kv.read_one, [(str(kv.CUAD / "pdf" / r["pdf"]), str(cache)) for r in rows],
                               chunksize=4))
    recs = records(rows, values)
    table = fit(recs)
    print(f"\ntrain split: {len(rows)} contracts, {len(recs)} values, {FOLDS}-fold cross-validation over contracts\n")
    print_tables(recs, table, out_of_fold(recs))
    if args.write:
        write_table(table, recs, len(rows))
        print(f"\nwrote {TABLE_PATH.relative_to(REPO)}")


if __name__ == "__main__":
    main()
