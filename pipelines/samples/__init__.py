"""Synthetic sample contracts, written by clausemill's own code.

The repository ships no real contracts, so the demo (`clausemill samples DIR`, `make demo`)
and the end-to-end tests run over contracts generated here, whose clauses are known exactly.
"""
from pipelines.samples.broken import write_broken_samples
from pipelines.samples.contracts import CATEGORIES, Block, Party, Renewal, SyntheticContract, generate_contract
from pipelines.samples.render import write_docx, write_scanned_pdf, write_text_pdf, write_txt
from pipelines.samples.sampleset import MANIFEST, SampleFile, write_samples

__all__ = [
    "CATEGORIES", "MANIFEST", "Block", "Party", "Renewal", "SampleFile", "SyntheticContract", "generate_contract",
    "write_broken_samples", "write_docx", "write_samples", "write_scanned_pdf", "write_text_pdf", "write_txt",
]
