"""Fuzz the readers of untrusted files: sniffing, surveying and text extraction, with atheris.

Every input is written to a file and read the way ingest and extract read it (in this
process, so an exception is seen where it is raised, not as a dead child).  A `DocumentFailed`
is the right answer to a bad file; any other exception is a finding: atheris stops, prints the
traceback and saves the input as crash-<sha1> in the working folder.  The seed corpus is the
project's own samples and hostile fixtures (pipelines/samples/), written into --corpus.

    python ops/fuzz_parsers.py --seconds 300 [--corpus out/fuzz-corpus]

Bounded by --seconds and by an address-space limit on this process, and not part of
`make test`.  What it found is in docs/RELIABILITY.md.
"""
from __future__ import annotations

import argparse
import resource
import sys
import tempfile
from pathlib import Path

import atheris

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

with atheris.instrument_imports(include=["pipelines"]):
    from pipelines.dag import Stage
    from pipelines.datamodel import DocumentFailed
    from pipelines.parsers import parser_for, sniff_kind
    from pipelines.parsers.limits import ReadLimits
    from pipelines.settings import Settings

MEMORY_LIMIT_BYTES = 4 << 30
LIMITS = ReadLimits.from_settings(Settings())
_SCRATCH = Path(tempfile.mkdtemp(prefix="clausemill-fuzz-")) / "input"


def read_like_the_pipeline(data: bytes) -> None:
    """Sniff, survey and extract `data` as a file; only DocumentFailed may come out."""
    _SCRATCH.write_bytes(data)
    try:
        kind = sniff_kind(_SCRATCH, LIMITS)
        parser = parser_for(kind, Stage.INGEST)
        parser.survey(_SCRATCH, LIMITS)
        parser.extract(_SCRATCH, LIMITS)
    except DocumentFailed:
        pass


def seed_corpus(folder: Path) -> Path:
    """The samples and hostile fixtures as seed inputs (generated, never committed)."""
    from pipelines.samples import write_samples
    from pipelines.samples import hostile

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        write_samples(Path(scratch))
        for path in Path(scratch).iterdir():
            if path.suffix in {".pdf", ".txt", ".docx"} and path.stat().st_size < 2 << 20:
                (folder / path.name).write_bytes(path.read_bytes())
    writers = {
        "no-xref.pdf": hostile.write_pdf_without_xref, "cut-in-xref.pdf": hostile.write_pdf_cut_in_xref,
        "cut-mid-page.pdf": hostile.write_pdf_cut_mid_page, "utf16.txt": hostile.write_utf16_txt,
        "latin1.txt": hostile.write_latin1_txt, "nul.txt": hostile.write_nul_txt,
        "billion-laughs.docx": hostile.write_billion_laughs_docx,
        "owner-only.pdf": lambda p: hostile.write_encrypted_pdf(p, user="", owner="owner", revision=4),
    }
    for name, write in writers.items():
        write(folder / name)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=300, help="How long to fuzz.")
    parser.add_argument("--corpus", type=Path, default=REPO / "out" / "fuzz-corpus",
                        help="Folder of seed inputs, which atheris also adds its new ones to.")
    args, rest = parser.parse_known_args()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    corpus = seed_corpus(args.corpus)
    atheris.Setup([sys.argv[0], *rest, f"-max_total_time={args.seconds}", "-rss_limit_mb=4096",
                   "-max_len=1048576", str(corpus)], read_like_the_pipeline)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
