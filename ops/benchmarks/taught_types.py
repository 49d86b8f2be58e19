"""Find and check the example sets clausemill ships for clause types a legal team can teach.

Issue 44 asks for clause types shipped with example sets the project wrote itself: quotes found
in the CUAD training contracts and read by hand, each recorded by where it is (file, character
offsets and a short hash of the words), never by the words themselves, which belong to the
contracts.  The sets live in pipelines/clause_types/shipped/<slug>.yaml.  This script is how
they were made and how they are kept honest:

    python ops/benchmarks/taught_types.py find force_majeure --pattern 'force majeure' [--limit 40]
    python ops/benchmarks/taught_types.py check
    python ops/benchmarks/taught_types.py ship        # the shipped versions, models/checkpoint/types/

`find` lists candidate passages in the training contracts only (file, start, end and the first
200 characters; `--full` prints each whole): the paragraph around each match, or the sentences
around it when the paragraph is longer than a clause, and whether that contract is already used
by the type.  A candidate is only a candidate: each shipped entry was read and judged by hand.

`check` reads every shipped YAML and verifies each entry: its file exists, the slice's hash
matches, the contract is a training contract, the slice is 120 to 1,500 characters with no
whitespace at either end, no contract is used more than twice by one type, and no passage is
both an example and a counter-example (nor overlaps one), nor has the same words as another entry
of its type (the teaching code takes such quotes as one).  It prints a per-type summary and exits
non-zero on any problem.

Training contracts are the CUAD contracts not in docs/validation_split.txt.  That file names PDFs;
a contract is held out when its PDF name, its CUAD file name or its txt name (files.csv) has the
same stem, compared case-insensitively, as a line of the split.  Every one of the 84 lines
matches a txt file.  CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "pipelines" / "clause_types" / "shipped"
SPLIT_FILE = REPO / "docs" / "validation_split.txt"
DEFAULT_CUAD = REPO.parent / "shared" / "data" / "cuad"
MIN_CHARS, MAX_CHARS = 120, 1500
MAX_PER_CONTRACT = 2
"""Entries of one type (examples and counter-examples together) from one contract, at most."""
HASH_CHARS = 16
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_SENTENCE_END = re.compile(r"(?<=[.;:])\s+(?=[\"“(]?[A-Z0-9(])")


def slice_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_CHARS]


def validation_txts(cuad: Path) -> set[str]:
    """The txt paths ("txt/<name>.txt") of the validation contracts; fails if a line matches none."""
    held = {Path(line.strip()).stem.casefold()
            for line in SPLIT_FILE.read_text(encoding="utf-8").splitlines() if line.strip()}
    found: set[str] = set()
    matched: set[str] = set()
    with (cuad / "files.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            stems = {Path(row[key]).stem.casefold() for key in ("master_clauses_filename", "pdf", "txt")}
            if stems & held:
                found.add(row["txt"])
                matched |= stems & held
    if unmatched := held - matched:
        raise SystemExit(f"{len(unmatched)} validation names match no contract in files.csv, e.g. "
                         f"{sorted(unmatched)[0]!r}: cannot tell training from validation")
    return found


def training_txts(cuad: Path) -> list[str]:
    held = validation_txts(cuad)
    return sorted(f"txt/{p.name}" for p in (cuad / "txt").glob("*.txt") if f"txt/{p.name}" not in held)


def read_contract(cuad: Path, name: str) -> str | None:
    """The contract's text as offsets index it, or None when it is not valid UTF-8."""
    try:
        return (cuad / name).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None


def load_shipped(folder: Path = SHIPPED) -> dict[str, dict]:
    return {path.stem: yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            for path in sorted(folder.glob("*.yaml"))}


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def passage_around(text: str, at: int) -> tuple[int, int] | None:
    """The paragraph (text between blank lines) holding offset `at`, with the following
    paragraphs while it is shorter than a clause (a heading), or the sentences from the one
    holding `at` while it is longer."""
    starts = [m.end() for m in _BLANK_LINE.finditer(text, 0, at)]
    start = starts[-1] if starts else 0
    after = _BLANK_LINE.search(text, at)
    end = after.start() if after else len(text)
    start, end = _trim(text, start, end)
    while end - start < MIN_CHARS and after is not None:  # a heading: take the paragraph under it
        after = _BLANK_LINE.search(text, after.end())
        reach = after.start() if after else len(text)
        if reach - start > MAX_CHARS:
            break
        end = _trim(text, start, reach)[1]
    if end - start <= MAX_CHARS:
        return (start, end) if end - start >= MIN_CHARS else None
    at = min(max(at, start), end - 1)
    bounds = [start] + [m.end() for m in _SENTENCE_END.finditer(text, start, end)] + [end]
    first = max(b for b in bounds if b <= at)
    stop = first
    for b in bounds:
        if b <= first:
            continue
        if b - first <= MAX_CHARS * 2 // 3 or stop <= at:
            stop = b
        else:
            break
    first, stop = _trim(text, first, stop)
    return (first, stop) if MIN_CHARS <= stop - first <= MAX_CHARS else None


def cmd_find(args: argparse.Namespace) -> int:
    cuad = Path(args.cuad)
    pattern = re.compile(args.pattern, re.IGNORECASE)
    exclude = re.compile(args.exclude, re.IGNORECASE) if args.exclude else None
    slug = args.name.strip().lower().replace(" ", "_").replace("-", "_")
    used: Counter[str] = Counter()
    taken: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    shipped = load_shipped().get(slug, {})
    for key in ("examples", "counter_examples"):
        for entry in shipped.get(key) or []:
            used[entry["file"]] += 1
            taken[entry["file"]].append((entry["start"], entry["end"], key.rstrip("s").replace("_", "-")))
    shown = 0
    for name in training_txts(cuad):
        text = read_contract(cuad, name)
        if text is None:
            continue
        seen: set[tuple[int, int]] = set()
        for match in pattern.finditer(text):
            span = passage_around(text, match.start())
            if span is None or span in seen:
                continue
            seen.add(span)
            words = text[span[0]:span[1]]
            if exclude and exclude.search(words):
                continue
            flat = " ".join(words.split())
            mark = f" [contract used {used[name]}x]" if used[name] else ""
            mark += "".join(f" [overlaps a shipped {kind}]" for start, end, kind in taken[name]
                            if start < span[1] and span[0] < end)
            print(f"{name}\t{span[0]}\t{span[1]}\t{slice_hash(words)}{mark}")
            print(f"    {flat if args.full else flat[:200]}")
            shown += 1
            if shown >= args.limit:
                return 0
            if not args.all_in_file:
                break
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    cuad = Path(args.cuad)
    held = validation_txts(cuad)
    problems: list[str] = []
    shipped = load_shipped(Path(args.shipped))
    if not shipped:
        problems.append(f"no shipped example sets in {args.shipped}")
    texts: dict[str, str | None] = {}
    print(f"{'type':<28} {'examples':>8} {'counter':>8} {'contracts':>9}")
    for slug, content in shipped.items():
        where = f"{slug}.yaml"
        if not isinstance(content.get("name"), str) or not content["name"].strip():
            problems.append(f"{where}: no name")
        if not isinstance(content.get("description"), str) or not content["description"].strip():
            problems.append(f"{where}: no description")
        per_contract: Counter[str] = Counter()
        spans: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
        same_words: dict[str, str] = {}
        counts = {}
        for key in ("examples", "counter_examples"):
            entries = content.get(key) or []
            counts[key] = len(entries)
            for number, entry in enumerate(entries, 1):
                at = f"{where} {key}[{number}]"
                if not isinstance(entry, dict) or set(entry) != {"file", "start", "end", "sha256"}:
                    problems.append(f"{at}: needs exactly file, start, end, sha256")
                    continue
                name, start, end = entry["file"], entry["start"], entry["end"]
                if name in held:
                    problems.append(f"{at}: {name} is a validation contract")
                if name not in texts:
                    path = cuad / name
                    texts[name] = read_contract(cuad, name) if path.is_file() else None
                text = texts[name]
                if text is None:
                    problems.append(f"{at}: {name} is missing or not UTF-8")
                    continue
                if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
                    problems.append(f"{at}: offsets {start}..{end} outside the contract ({len(text)} characters)")
                    continue
                words = text[start:end]
                if slice_hash(words) != str(entry["sha256"]):
                    problems.append(f"{at}: hash {slice_hash(words)} is not the recorded {entry['sha256']}")
                if not MIN_CHARS <= len(words) <= MAX_CHARS:
                    problems.append(f"{at}: {len(words)} characters, not {MIN_CHARS}..{MAX_CHARS}")
                if words != words.strip():
                    problems.append(f"{at}: starts or ends with whitespace")
                key_words = " ".join(words.split()).casefold()  # as pipelines.clause_types.examples.quote_key
                if key_words in same_words:
                    problems.append(f"{at}: the same words as {same_words[key_words]}")
                same_words.setdefault(key_words, at)
                per_contract[name] += 1
                for other_start, other_end, other_key in spans[name]:
                    if start < other_end and other_start < end:
                        problems.append(f"{at}: overlaps {other_key} {other_start}..{other_end} in {name}")
                spans[name].append((start, end, key))
        for name, count in per_contract.items():
            if count > MAX_PER_CONTRACT:
                problems.append(f"{where}: {name} used {count} times (at most {MAX_PER_CONTRACT})")
        if counts["examples"] < args.min_examples:
            problems.append(f"{where}: {counts['examples']} examples, fewer than {args.min_examples}")
        if counts["counter_examples"] < args.min_counter:
            problems.append(f"{where}: {counts['counter_examples']} counter-examples, fewer than {args.min_counter}")
        print(f"{content.get('name', slug):<28} {counts['examples']:>8} {counts['counter_examples']:>8} "
              f"{len(per_contract):>9}")
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    print(f"{len(shipped)} types, {len(problems)} problems")
    return 1 if problems else 0


def cmd_ship(args: argparse.Namespace) -> int:
    """Train each shipped type's version for the shipped checkpoint, as `clausemill clauses train`
    would, but with its negatives drawn from segments of CUAD's training contracts (a new user has
    no audited contracts yet), and write it to models/checkpoint/types/<slug>.safetensors."""
    import random

    import numpy as np

    sys.path.insert(0, str(REPO))
    from models.addon_training import AddonRows, train_addon
    from models.addons import save_addon
    from models.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint
    from pipelines.clause_types.names import slug_of
    from pipelines.clause_types.shipped import shipped_types
    from pipelines.clause_types.teaching import MAX_POOL, MIN_POOL, POOL_PER_EXAMPLE, SHIPPED_ADDONS
    from pipelines.datamodel import PageText
    from pipelines.stages.segment import segment_document

    cuad = Path(args.cuad)
    checkpoint = load_checkpoint(DEFAULT_CHECKPOINT)
    names = training_txts(cuad)
    drawn = sorted(random.Random(args.seed).sample(names, min(args.contracts, len(names))))
    pool = [(number, name, s) for number, name in enumerate(drawn)
            for s in segment_document([PageText(number=1, text=read_contract(cuad, name) or "", source="plain")])
            if read_contract(cuad, name)]
    print(f"{len(pool)} segments of {len(drawn)} training contracts to draw negatives from", flush=True)
    SHIPPED_ADDONS.mkdir(parents=True, exist_ok=True)
    for shipped in shipped_types():
        if args.only and shipped.slug not in args.only:
            continue
        refs = [(r, True) for r in shipped.examples] + [(r, False) for r in shipped.counter_examples]
        taken = defaultdict(list)
        for ref, _ in refs:
            taken[ref.file].append((ref.start, ref.end))
        free = [(n, s) for n, name, s in pool if not any(a < s.end and s.start < b for a, b in taken[name])]
        size = min(MAX_POOL, max(MIN_POOL, POOL_PER_EXAMPLE * len(shipped.examples)))
        picked = sorted(random.Random(args.seed + 1).sample(range(len(free)), min(size, len(free))))
        examples = AddonRows([ref.read(cuad) or "" for ref, _ in refs], np.array([label for _, label in refs]),
                             np.arange(len(refs)))
        negatives = AddonRows([free[i][1].text for i in picked], np.zeros(len(picked), dtype=bool),
                              np.array([free[i][0] for i in picked]))
        trained = train_addon(checkpoint, examples, negatives, name=shipped.name, slug=slug_of(shipped.name, set()),
                              number=1, cache=Path(args.cache) if args.cache else None, log=print)
        out = SHIPPED_ADDONS / f"{shipped.slug}.safetensors"
        out.write_bytes(save_addon(trained.addon))
        m = trained.addon.metrics
        print(f"{shipped.name}: {trained.addon.version}, {out.stat().st_size / 1024:.0f} KB; cross-validated precision "
              f"{m['precision']} {m['precision_interval']}, recall {m['recall']} {m['recall_interval']}, average "
              f"precision {m['average_precision']}, gate passes {m['gate_pass_share']:.0%} of negatives, "
              f"{m['possible_examples_among_negatives']} possible examples among {m['negatives']} negatives; "
              f"{trained.seconds['total']:.0f} s", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cuad", default=str(DEFAULT_CUAD), help="CUAD folder (files.csv, txt/)")
    sub = parser.add_subparsers(dest="command", required=True)
    find = sub.add_parser("find", help="list candidate passages in the training contracts")
    find.add_argument("name", help="the clause type (slug or name): marks contracts it already uses")
    find.add_argument("--pattern", required=True, help="regular expression, case-insensitive")
    find.add_argument("--exclude", help="skip passages matching this regular expression")
    find.add_argument("--limit", type=int, default=50)
    find.add_argument("--full", action="store_true", help="print each passage whole")
    find.add_argument("--all-in-file", action="store_true", help="every match of a contract, not the first")
    find.set_defaults(run=cmd_find)
    check = sub.add_parser("check", help="verify every shipped example set")
    check.add_argument("--shipped", default=str(SHIPPED), help="folder of the <slug>.yaml sets")
    check.add_argument("--min-examples", type=int, default=25, help="fewest examples a shipped type may have")
    check.add_argument("--min-counter", type=int, default=10, help="fewest counter-examples a shipped type may have")
    check.set_defaults(run=cmd_check)
    ship = sub.add_parser("ship", help="train the shipped types' versions for the shipped checkpoint")
    ship.add_argument("--contracts", type=int, default=200, help="training contracts to draw negatives from")
    ship.add_argument("--seed", type=int, default=20261208)
    ship.add_argument("--only", nargs="*", help="these slugs only")
    ship.add_argument("--cache", help="a folder for the negatives' backbone states")
    ship.set_defaults(run=cmd_ship)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
