"""The sample folder `clausemill samples` writes: contracts in every input format, broken
files, and `expected.json`, the answers a run of the pipeline over the folder must reproduce.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pipelines.samples.broken import write_broken_samples
from pipelines.samples.contracts import CATEGORIES, SyntheticContract, generate_contract
from pipelines.samples.render import write_docx, write_scanned_pdf, write_text_pdf, write_txt

MANIFEST = "expected.json"

Variant = Literal["text-pdf", "scanned-pdf", "txt", "docx", "broken"]

# Seeds per format, apart so adding text PDFs never changes the other samples.
_SCANNED_SEED = 100
_TXT_SEED = 200
_DOCX_SEED = 300


@dataclass(frozen=True)
class SampleFile:
    """One file of the sample folder and what the pipeline must make of it."""

    path: Path
    variant: Variant
    status: Literal["done", "failed"]
    contract: SyntheticContract | None = None  # None for broken files
    pages: int | None = None  # PDFs only
    reason: str | None = None  # why a broken file cannot be read

    def manifest_entry(self) -> dict:
        entry: dict = {"file": self.path.name, "status": self.status, "variant": self.variant}
        if self.reason:
            entry["reason"] = self.reason
        if self.pages:
            entry["pages"] = self.pages
        if self.contract:
            entry |= _contract_entry(self.contract)
        return entry


def write_samples(out_dir: Path, n_text_pdfs: int = 6) -> list[SampleFile]:
    """Writes the sample folder and its manifest; returns the files in manifest order.

    Each contract prefers the categories earlier ones lack, so the default folder covers all
    41 CUAD categories.  The same call always writes the same contracts and manifest.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    covered: set[str] = set()
    used_names: set[str] = set()
    samples: list[SampleFile] = []

    def contract(seed: int, short: bool = False) -> SyntheticContract:
        made = generate_contract(seed, short=short, prefer=set(CATEGORIES) - covered)
        covered.update(made.clauses)
        return made

    def path_for(stem: str, suffix: str, seed: int) -> Path:
        name = f"{stem}{suffix}" if f"{stem}{suffix}" not in used_names else f"{stem}-{seed}{suffix}"
        used_names.add(name)
        return out_dir / name

    for seed in range(1, n_text_pdfs + 1):
        made = contract(seed)
        path = path_for(_stem(made), ".pdf", seed)
        samples.append(SampleFile(path, "text-pdf", "done", made, pages=write_text_pdf(made, path)))

    made = contract(_SCANNED_SEED, short=True)
    path = path_for(f"scanned-{_slug(made.title)}", ".pdf", _SCANNED_SEED)
    samples.append(SampleFile(path, "scanned-pdf", "done", made, pages=write_scanned_pdf(made, path)))

    made = contract(_TXT_SEED)
    path = path_for(_stem(made), ".txt", _TXT_SEED)
    write_txt(made, path)
    samples.append(SampleFile(path, "txt", "done", made))

    made = contract(_DOCX_SEED)
    path = path_for(_stem(made), ".docx", _DOCX_SEED)
    write_docx(made, path)
    samples.append(SampleFile(path, "docx", "done", made))

    for name, reason in write_broken_samples(out_dir).items():
        samples.append(SampleFile(out_dir / name, "broken", "failed", reason=reason))

    manifest = {"generator": "pipelines.samples", "files": [s.manifest_entry() for s in samples]}
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return samples


def _contract_entry(contract: SyntheticContract) -> dict:
    renewal = contract.renewal
    return {
        "seed": contract.seed,
        "title": contract.title,
        "parties": [{"name": p.name, "short_name": p.short_name} for p in contract.parties],
        "agreement_date": contract.agreement_date.isoformat(),
        "effective_date": contract.effective_date.isoformat(),
        "expiration_date": contract.expiration_date.isoformat(),
        "term_years": contract.term_years,
        "renewal": {"automatic": renewal.automatic, "term_years": renewal.term_years} if renewal else None,
        "notice_days": contract.notice_days,
        "governing_law": contract.governing_law,
        "clauses": dict(sorted(contract.clauses.items())),
        "lookalikes": dict(sorted(contract.lookalikes.items())),
    }


def _stem(contract: SyntheticContract) -> str:
    """'msa-northwind-acme': the deal type and the first word of each party's name."""
    return "-".join([contract.kind, *(_slug(p.name).split("-")[0] for p in contract.parties)])


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
