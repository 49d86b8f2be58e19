"""Plain text: pages split at form feeds, decoded as the encoding the file is in.

There is no signature to sniff, so a file is text when its bytes read as text
(pipelines/parsers/encodings.py: byte-order marks, UTF-16, UTF-8, Windows-1252, others); the
registry asks this parser last, after every signature had its say.  The char cap is checked
on the byte count before the file is read, then on the decoded text.
"""
from __future__ import annotations

import re
from pathlib import Path

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed, DocumentKind, PageText
from pipelines.parsers.base import Survey
from pipelines.parsers.encodings import SAMPLE_BYTES, Decoded, decode_text, detect, looks_like_text, only_nul_bytes
from pipelines.parsers.limits import ReadLimits, check_chars, check_text_bytes, current_limits

_MARKUP = re.compile(r"\s*<(!doctype|html|\?xml|head|body)", re.IGNORECASE)
_LINE_END = re.compile(r"\r\n|\r|\n")


class TextParser:
    kind: DocumentKind = "txt"

    def sniff(self, path: Path, head: bytes, limits: ReadLimits | None = None) -> bool:
        """Text that is a contract: HTML/XML and files named as another kind are text too, but refused."""
        if only_nul_bytes(head):
            raise DocumentFailed(
                Stage.INGEST, "file holds only NUL bytes: zero-filled, as an interrupted copy or download leaves it",
            )
        if not looks_like_text(head):
            return False
        start = head[:1024]
        encoding = detect(head[:SAMPLE_BYTES])
        if _MARKUP.match(start[encoding.bom:].decode(encoding.codec, errors="replace").lstrip("\ufeff")):
            raise DocumentFailed(
                Stage.INGEST,
                "not a contract file: an HTML/XML page (often an error or login page saved in place of a download)",
            )
        if path.suffix.lower() in (".pdf", ".docx"):
            raise DocumentFailed(Stage.INGEST, f"named {path.suffix} but holds plain text: the file is not what its name says")
        return True

    def survey(self, path: Path, limits: ReadLimits | None = None) -> Survey:
        decoded = read_text(path, Stage.INGEST, limits or current_limits())
        return Survey(decoded.text.rstrip("\f").count("\f") + 1, decoded.notes)

    def count_pages(self, path: Path, limits: ReadLimits | None = None) -> int:
        return self.survey(path, limits).page_count

    def extract(self, path: Path, limits: ReadLimits | None = None) -> list[PageText]:
        text = read_text(path, Stage.EXTRACT, limits or current_limits()).text.rstrip("\f")
        return [PageText(number=i, text=part, source="plain") for i, part in enumerate(text.split("\f"), start=1)]


def read_text(path: Path, stage: Stage, limits: ReadLimits) -> Decoded:
    """The file's text with `\\n` line ends, refused over the char cap (by size before reading)."""
    check_text_bytes(stage, path.stat().st_size, limits)
    decoded = decode_text(path.read_bytes())
    check_chars(stage, len(decoded.text), limits)
    return Decoded(_LINE_END.sub("\n", decoded.text), decoded.notes)
