"""How often does pipelines.contract_type name a CUAD contract's type correctly?

CUAD files every contract under an agreement type (files.csv `contract_type`); this maps those
types onto ContractType and scores `classify_contract` on each contract's text (txt/, CUAD's
text layer, close to what the product reads from the PDF).  Tune on `--split train` only; the
validation split (docs/validation_split.txt, shared with rules_accuracy.py) is run once.

CUAD type -> ContractType, and why:

    License_Agreements, IP                     licence  (CUAD's "IP" agreements are spin-off
                                               IP agreements that assign and cross-license)
    Supply, Manufacturing                      supply_or_manufacturing
    Distributor, Reseller                      distribution_or_reseller
    Franchise                                  franchise
    Service, Maintenance, Hosting, Outsourcing,
    Transportation, Development                services_or_outsourcing  (one party works for
                                               the other for a fee)
    Agency Agreements                          services_or_outsourcing  (mostly placement and
                                               purchasing agents, paid to act for a principal)
    Collaboration, Strategic Alliance,
    Joint Venture, Joint Venture _ Filing      joint_venture_or_collaboration
    Consulting Agreements                      employment_or_consulting
    Sponsorship, Endorsement (Agreement),
    Co_Branding, Promotion, Marketing,
    Affiliate_Agreements / Affiliate Agreement other  (marketing and promotion deals: a brand
                                               pays for exposure and the rights to names and
                                               marks come with it; no listed type is that
                                               relationship, and calling them services or
                                               licences would mix them into types whose
                                               clauses a reviewer checks differently)
    Non_Compete_Non_Solicit                    other  (CUAD's are covenants between companies
                                               given in an acquisition, not employment terms)

The file name overrides the folder where it names the document more exactly: "Amendment"
(not "Amended and Restated") -> amendment, "Joint Filing Agreement" -> filing_exhibit, and a
"capital/yield/income maintenance" agreement (a keep-well or a hedge, not upkeep) -> other.

    python ops/benchmarks/contract_types.py [--split train|validation] [--errors]

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import csv
import re
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from pipelines.contract_type import ContractType, TypeDecision, classify_contract  # noqa: E402

CUAD = REPO.parent / "shared" / "data" / "cuad"
SPLIT_FILE = REPO / "docs" / "validation_split.txt"
T = ContractType

CUAD_TYPES: dict[str, ContractType] = {
    "License_Agreements": T.LICENCE, "IP": T.LICENCE,
    "Supply": T.SUPPLY_OR_MANUFACTURING, "Manufacturing": T.SUPPLY_OR_MANUFACTURING,
    "Distributor": T.DISTRIBUTION_OR_RESELLER, "Reseller": T.DISTRIBUTION_OR_RESELLER,
    "Franchise": T.FRANCHISE,
    **dict.fromkeys(("Service", "Maintenance", "Hosting", "Outsourcing", "Transportation",
                     "Development", "Agency Agreements"), T.SERVICES_OR_OUTSOURCING),
    **dict.fromkeys(("Collaboration", "Strategic Alliance", "Joint Venture", "Joint Venture _ Filing"),
                    T.JOINT_VENTURE_OR_COLLABORATION),
    "Consulting Agreements": T.EMPLOYMENT_OR_CONSULTING,
    **dict.fromkeys(("Sponsorship", "Endorsement", "Endorsement Agreement", "Co_Branding", "Promotion",
                     "Marketing", "Affiliate_Agreements", "Affiliate Agreement", "Non_Compete_Non_Solicit"),
                    T.OTHER),
}
# File-name words that say what the document is better than CUAD's folder does.  No leading
# \b on "amendment": names glue it on ("AGREEMENT_SECONDAMENDMENT").
NAME_OVERRIDES: tuple[tuple[re.Pattern[str], ContractType], ...] = (
    (re.compile(r"amendment(?!\s+and\s+restate)", re.IGNORECASE), T.AMENDMENT),
    (re.compile(r"\bjoint\s+filing\b", re.IGNORECASE), T.FILING_EXHIBIT),
    (re.compile(r"\b(?:capital|yield|income)\s+maintenance\b", re.IGNORECASE), T.OTHER),
)


def expected_type(file_name: str, cuad_type: str) -> ContractType:
    """The label: the file name where it is explicit, else CUAD's folder type mapped."""
    for pattern, kind in NAME_OVERRIDES:
        if pattern.search(file_name):
            return kind
    return CUAD_TYPES[cuad_type]


def split_rows(split: str) -> list[dict[str, str]]:
    """files.csv rows of one split, sorted by name (names contain commas: csv module)."""
    held_out = {line.strip() for line in SPLIT_FILE.read_text(encoding="utf-8").splitlines() if line.strip()}
    with open(CUAD / "files.csv", newline="", encoding="utf-8") as f:
        rows = sorted(csv.DictReader(f), key=lambda row: row["master_clauses_filename"])
    return [r for r in rows if (Path(r["pdf"]).name in held_out) == (split == "validation")]


def evaluate(rows: list[dict[str, str]]) -> tuple[list[tuple[str, ContractType, TypeDecision]], float]:
    """(name, label, decision) per contract, and the mean classification time in ms."""
    results, spent = [], 0.0
    for row in rows:
        text = (CUAD / row["txt"]).read_text(encoding="utf-8")
        began = time.perf_counter()
        decision = classify_contract(text)
        spent += time.perf_counter() - began
        name = Path(row["master_clauses_filename"]).stem
        results.append((name, expected_type(name, row["contract_type"]), decision))
    return results, 1000 * spent / max(len(results), 1)


def report(results: list[tuple[str, ContractType, TypeDecision]], split: str, ms: float) -> str:
    """Markdown: accuracy overall and per type, accuracy per evidence path, top confusions."""
    right = sum(label == d.type for _, label, d in results)
    heading = f"## Contract type, {split} split: {right}/{len(results)} = {right / len(results):.1%}"
    lines = [f"{heading} ({ms:.1f} ms a contract)", "",
             "| type | contracts | correct | accuracy (recall) | predicted | precision |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for kind in ContractType:
        n = sum(label == kind for _, label, _ in results)
        predicted = sum(d.type == kind for _, _, d in results)
        hit = sum(label == kind == d.type for _, label, d in results)
        lines.append(f"| {kind} | {n} | {hit} | {_share(hit, n)} | {predicted} | {_share(hit, predicted)} |")
    paths = Counter(d.evidence.split()[0] for _, _, d in results)
    lines += ["", "| decided by | contracts | accuracy |", "| --- | ---: | ---: |"]
    for path, n in paths.most_common():
        hit = sum(label == d.type for _, label, d in results if d.evidence.split()[0] == path)
        lines.append(f"| {path} | {n} | {_share(hit, n)} |")
    confusions = Counter((label, d.type) for _, label, d in results if label != d.type)
    lines += ["", "| labelled | predicted | contracts |", "| --- | --- | ---: |"]
    lines += [f"| {label} | {kind} | {n} |" for (label, kind), n in confusions.most_common(12)]
    return "\n".join(lines)


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "validation"), default="train")
    parser.add_argument("--errors", action="store_true", help="list each misclassified contract")
    args = parser.parse_args()
    results, ms = evaluate(split_rows(args.split))
    print(report(results, args.split, ms))
    if args.errors:
        print("\n| contract | labelled | predicted | evidence |\n| --- | --- | --- | --- |")
        for name, label, d in results:
            if label != d.type:
                print(f"| {name} | {label} | {d.type} | {d.evidence[:90]} |")


if __name__ == "__main__":
    main()
