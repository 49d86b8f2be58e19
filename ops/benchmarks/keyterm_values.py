"""Are the key-term values right?  Every value read_terms gives, against CUAD's normalized answers.

CUAD's span metric counts a Parties prediction as correct when it contains the name, so it
cannot see whether a value a lawyer reads is right.  CUAD's master_clauses.csv also holds the
annotators' normalized answers (the `-Answer` columns); this benchmark compares each value
with them:

- dates as m/d/yy ("5/8/14"); an answer with a blank part ("[]/[]/2000") is a template whose
  date is not stated, so the right value is "not stated";
- Parties as `Name ("Short"); Name2 ("Short2")`, scored as names (F1 over all contracts);
  collective entries ("Stryker and Conformis ("Parties")") are not parties and are dropped,
  and names match when their words, case, punctuation and corporate suffixes aside, overlap
  by 75% (CUAD's answers hold typos: "Phamaceuticals");
- Renewal Term and Notice Period as durations (12 months = 1 year), or "perpetual";
- Expiration Date as a date or "perpetual";
- Governing Law as a place ("Ontario, Canada" = "Province of Ontario, Canada").

Each field reports accuracy where the contract has an answer, and the share of contracts
without one where a value is shown anyway.  The text is what the product reads: each PDF's
text layer (cached under --out), segmented by the segment stage.

    python ops/benchmarks/keyterm_values.py [--split validation|train] [--errors FIELD]
    python ops/benchmarks/keyterm_values.py --report out/audit/report.json   # score an audit's report

`--report` scores the key terms of a `clausemill audit` run's report.json instead (the values
exactly as a user gets them, through the whole pipeline).

Tune on the training split only.  CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from pipelines.datamodel import PageText, document_text  # noqa: E402
from pipelines.stages.segment import segment_document  # noqa: E402
from pipelines.terms import NOT_STATED, read_terms  # noqa: E402
from pipelines.terms.durations import parse_iso_duration  # noqa: E402

CUAD = REPO.parent / "shared" / "data" / "cuad"
SPLIT_FILE = REPO / "docs" / "validation_split.txt"
ANSWER_COLUMNS = {
    "Parties": "Parties-Answer",
    "Agreement Date": "Agreement Date-Answer",
    "Effective Date": "Effective Date-Answer",
    "Expiration Date": "Expiration Date-Answer",
    "Renewal Term": "Renewal Term-Answer",
    "Notice Period To Terminate Renewal": "Notice Period To Terminate Renewal- Answer",
    "Governing Law": "Governing Law-Answer",
}
VALUE_FIELDS = [f for f in ANSWER_COLUMNS if f != "Parties"]


# --- the text the product reads ------------------------------------------------------------

def contract_pages(pdf: Path, cache: Path) -> list[PageText]:
    """The PDF's text layer as the extract stage stores it, cached as JSON (words left out)."""
    cached = cache / (pdf.stem + ".json")
    if cached.exists():
        pages = [PageText(**p) for p in json.loads(cached.read_text(encoding="utf-8"))]
    else:
        from pipelines.stages.extract import extract_text_layer

        pages = extract_text_layer(pdf, "pdf")
        slim = [{"number": p.number, "text": p.text, "source": p.source} for p in pages]
        cached.write_text(json.dumps(slim), encoding="utf-8")
    return pages


def read_one(args: tuple[str, str]) -> tuple[str, dict[str, dict]]:
    pdf, cache = args
    pages = contract_pages(Path(pdf), Path(cache))
    if not any(p.text.strip() for p in pages):
        return Path(pdf).name, {}
    text, _ = document_text(pages)
    values = read_terms(text, segment_document(pages))
    return Path(pdf).name, {f: v.to_dict() for f, v in values.items()}


def report_values(path: Path) -> dict[str, dict[str, dict]]:
    """Each done document's key terms from a report.json, keyed by file name."""
    report = json.loads(path.read_text(encoding="utf-8"))
    values = {}
    for doc in report["documents"]:
        if doc.get("assessment"):
            terms = doc["assessment"]["key_terms"]
            values[doc["filename"]] = {
                name: {"value": t["value"], "detail": (t.get("finding") or {}).get("detail") or {}}
                for name, t in terms.items()
            }
    return values


# --- CUAD's answers ------------------------------------------------------------------------

_GOLD_DATE_RE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})(?![\d\[])")  # "09/14/200[]" is a blank year


def gold_dates(answer: str) -> set[date] | None:
    """The full dates an answer gives; None when it gives none (empty, or a template's blanks)."""
    found = set()
    for m in _GOLD_DATE_RE.finditer(answer):
        month, day, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        year += 0 if year >= 100 else (2000 if year < 50 else 1900)
        if month > 12:
            month, day = day, month
        try:
            found.add(date(year, month, day))
        except ValueError:
            continue
    return found or None


_DURATION_RE = re.compile(r"(\d+(?:\.\d+)?)\)?\s*(year|month|week|day)s?", re.IGNORECASE)


def _span(amount: float, unit: str) -> tuple[str, float]:
    """A duration in comparable units: years and months as months, weeks and days as days."""
    unit = unit.lower()[0]
    if unit in "ym":
        return "months", amount * (12 if unit == "y" else 1)
    return "days", amount * (7 if unit == "w" else 1)


def gold_durations(answer: str) -> set[tuple[str, float]] | None:
    if "perpetual" in answer.lower():
        return {("perpetual", 0.0)}
    found = {_span(float(m.group(1)), m.group(2)) for m in _DURATION_RE.finditer(answer)}
    return found or None


def predicted_duration(value: str) -> tuple[str, float] | None:
    if value in ("perpetual", "until terminated"):
        return ("perpetual", 0.0)
    parsed = parse_iso_duration(value)
    if parsed is None:
        return None
    amount, letter = parsed
    return _span(amount, {"Y": "year", "M": "month", "W": "week", "D": "day"}[letter])


_PLACE_NOISE_RE = re.compile(
    r"\b(?:the|state|commonwealth|province|federal|republic|of|united states(?: of america)?|usa|us|u s)\b")


def places(value: str) -> set[str]:
    """'England, United Kingdom; Wales, United Kingdom' -> {'england', 'wales'}."""
    out = set()
    for part in re.split(r";|\band\b|&", value):
        first = part.split(",")[0].casefold().replace("’", "'")
        first = re.sub(r"people's\s+republic\s+of\s+china|\bprc\b", "china", first)
        first = " ".join(_PLACE_NOISE_RE.sub(" ", re.sub(r"[^\w' ]+", " ", first)).split())
        if first:
            out.add(first)
    return out


# --- parties -------------------------------------------------------------------------------

_SUFFIXES = {
    "inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "limited", "llc", "l", "c",
    "plc", "lp", "llp", "p", "sa", "s", "a", "ag", "gmbh", "bv", "b", "v", "nv", "n", "the", "pte", "pty",
}
_PARTY_WORD_RE = re.compile(r"\bpart(?:y|ies)\b", re.IGNORECASE)


def name_key(name: str) -> tuple[str, ...]:
    """A name folded for matching: case, punctuation, "&" for "and" and corporate suffixes do
    not count."""
    folded = name.casefold().replace("’", "'").replace("'", "").replace("&", " and ")
    words = re.sub(r"[^\w]+", " ", folded).split()
    core = [w for w in words if w not in _SUFFIXES]
    return tuple(core or words)


# A parenthetical that names a party's short name ("("Acme")", "(the "Buyer")"), or an old name.
_SHORT_NAME_OPENS_RE = re.compile(
    r"\((?=[^()]*[\"“”])|\((?=\s*(?:formerly|f/k/a|a/k/a|d/b/a)\b)|,?\s+(?:d/b/a|dba|doing business as)\s", re.IGNORECASE)


def gold_parties(answer: str) -> list[tuple[str, ...]]:
    """The names in a Parties answer.  An entry is a legal name up to its short-name
    parenthetical or trade name ("Dialog Semiconductor (UK) Ltd." keeps its "(UK)"; "Time
    Life, Inc. d/b/a Time Life Music" is Time Life, Inc.); collective entries, whose name is the
    others' short names joined ("Stryker and Conformis ("Parties")") or "the Parties", are
    dropped, while a party whose entry also carries the collective definition is kept."""
    entries = []
    for part in answer.split(";"):
        part = " ".join(part.split()).lstrip("( ")
        if not part:
            continue
        opening = _SHORT_NAME_OPENS_RE.search(part)
        name = (part[:opening.start()] if opening else part).strip(" ,")
        shorts = re.findall(r"[\"“”]([^\"“”]+)[\"“”]", part)
        entries.append((name, shorts))
    all_shorts = {name_key(s) for _, shorts in entries for s in shorts}
    names = []
    for name, _ in entries:
        if not name or _PARTY_WORD_RE.search(name):
            continue
        pieces = [name_key(p) for p in re.split(r",|\band\b|&", name) if p.strip()]
        if len(pieces) > 1 and all(p in all_shorts for p in pieces):
            continue  # "Lender, Endorser and Fitness ("AS Parties")"
        names.append(name_key(name))
    return names


def _same_name(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    if a == b:
        return True
    sa, sb = set(a), set(b)
    return len(sa & sb) / max(1, len(sa | sb)) >= 0.75


def match_names(predicted: list[tuple[str, ...]], gold: list[tuple[str, ...]]) -> int:
    """How many predicted names match a distinct gold name."""
    unused = list(gold)
    hits = 0
    for p in predicted:
        for g in unused:
            if _same_name(p, g):
                unused.remove(g)
                hits += 1
                break
    return hits


# --- scoring -------------------------------------------------------------------------------

@dataclass
class FieldScore:
    answered: int = 0
    right: int = 0
    unanswered: int = 0
    shown: int = 0
    shown_undated: int = 0
    """Of `shown`, dates given only by a reference or an event ("the Closing Date"): item 3 of
    the issue asks for these to be carried as the value, while CUAD mostly leaves them blank."""

    def row(self, dated: bool) -> str:
        accuracy = self.right / self.answered if self.answered else 0.0
        shown = self.shown / self.unanswered if self.unanswered else 0.0
        return f"{accuracy:.2f} ({self.answered}) | {shown:.0%} ({self.unanswered}) | " + \
            (f"{self.shown_undated}" if dated else "—")


DATE_FIELDS = ("Agreement Date", "Effective Date", "Expiration Date")


def _gold_and_match(field: str) -> tuple[Callable[[str], object], Callable[[str, object], bool]]:
    if field in ("Agreement Date", "Effective Date"):
        return gold_dates, lambda v, g: _iso(v) in g
    if field == "Expiration Date":
        def gold(answer: str):  # noqa: ANN202
            dates = gold_dates(answer) or set()
            return (dates | ({"perpetual"} if "perpetual" in answer.lower() else set())) or None
        return gold, lambda v, g: (_iso(v) in g) or (v in ("perpetual", "until terminated") and "perpetual" in g)
    if field in ("Renewal Term", "Notice Period To Terminate Renewal"):
        return gold_durations, lambda v, g: predicted_duration(v) in g
    return (lambda a: places(a) or None), lambda v, g: bool(places(v) & g)


def _iso(value: str) -> date | None:
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def score(rows: list[dict[str, str]], values: dict[str, dict[str, dict]],
          errors: str | None) -> tuple[dict[str, FieldScore], tuple[int, int, int]]:
    scores = {f: FieldScore() for f in VALUE_FIELDS}
    predicted_names = gold_names = matched = 0
    for row in rows:
        name = row["pdf"]
        got = values.get(name, {})
        for field in VALUE_FIELDS:
            gold_of, matches = _gold_and_match(field)
            gold = gold_of(row[ANSWER_COLUMNS[field]].strip())
            value = got.get(field, {}).get("value")
            shown = value is not None and value != NOT_STATED
            s = scores[field]
            if gold is None:
                s.unanswered += 1
                s.shown += shown
                s.shown_undated += shown and field in DATE_FIELDS and _iso(value) is None \
                    and value not in ("perpetual", "until terminated")
                ok = not shown
            else:
                s.answered += 1
                ok = shown and matches(value, gold)
                s.right += ok
            if errors == field and not ok:
                print(f"{name}\n    CUAD: {row[ANSWER_COLUMNS[field]]!r}\n    ours: {value!r}")
        gold = gold_parties(row[ANSWER_COLUMNS["Parties"]])
        ours = [name_key(p["name"]) for p in got.get("Parties", {}).get("detail", {}).get("parties", [])]
        hits = match_names(ours, gold)
        predicted_names, gold_names, matched = predicted_names + len(ours), gold_names + len(gold), matched + hits
        if errors == "Parties" and (hits < len(gold) or hits < len(ours)):
            print(f"{name}\n    CUAD: {row[ANSWER_COLUMNS['Parties']]!r}\n    ours: {got.get('Parties', {}).get('value')!r}")
    return scores, (predicted_names, gold_names, matched)


def split_rows(split: str) -> list[dict[str, str]]:
    held_out = {line.strip() for line in SPLIT_FILE.read_text(encoding="utf-8").splitlines() if line.strip()}
    with open(CUAD / "files.csv", newline="", encoding="utf-8") as f:
        pdf_of = {r["master_clauses_filename"]: Path(r["pdf"]).name for r in csv.DictReader(f)}
    with open(CUAD / "master_clauses.csv", newline="", encoding="utf-8") as f:
        rows = sorted(csv.DictReader(f), key=lambda r: r["Filename"])
    for r in rows:
        r["pdf"] = pdf_of[r["Filename"]]
    return [r for r in rows if (r["pdf"] in held_out) == (split == "validation")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("validation", "train"), default="validation")
    parser.add_argument("--errors", metavar="FIELD", help="print each contract this field gets wrong")
    parser.add_argument("--out", type=Path, default=REPO / "out" / "keyterm_values")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--report", type=Path, help="score this report.json instead of reading the PDFs")
    args = parser.parse_args()
    if not CUAD.exists():
        sys.exit(f"CUAD is not at {CUAD}: this benchmark needs ../shared/data/cuad")
    cache = args.out / "text"
    cache.mkdir(parents=True, exist_ok=True)
    rows = split_rows(args.split)
    work = [(str(CUAD / "pdf" / r["pdf"]), str(cache)) for r in rows]
    missing = [w for w, _ in work if not Path(w).exists()]
    if missing:
        sys.exit(f"{len(missing)} PDFs of the split are missing, first {missing[0]}")
    if args.report is not None:
        values = report_values(args.report)
        rows = [r for r in rows if r["pdf"] in values]
    else:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            values = dict(pool.map(read_one, work, chunksize=4))
    (args.out / f"values-{args.split}.json").write_text(json.dumps(values, indent=1), encoding="utf-8")
    scores, (predicted, gold, matched) = score(rows, values, args.errors)
    precision, recall = matched / max(1, predicted), matched / max(1, gold)
    f1 = 2 * precision * recall / max(1e-9, precision + recall)
    print(f"\n{args.split} split: {len(rows)} contracts\n")
    print("| field | value right (contracts with an answer) | value shown where the contract has none "
          "| of those, a reference or an event with no date |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| Parties (names, F1) | {f1:.2f} (precision {precision:.2f}, recall {recall:.2f}) | — | — |")
    for field in VALUE_FIELDS:
        print(f"| {field} | {scores[field].row(field in DATE_FIELDS)} |")


if __name__ == "__main__":
    main()
