"""Plain text: pages split at form feeds, decoded as UTF-8 or else Latin-1.

There is no signature to sniff, so a file is text when its bytes read as text; the registry
asks this parser last, after every signature had its say.
"""
from __future__ import annotations

import codecs
import re
from pathlib import Path

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed, DocumentKind, PageText

_MIN_PRINTABLE = 0.95  # share of printable chars that makes a file text rather than binary
_MARKUP = re.compile(rb"\s*(\xef\xbb\xbf)?\s*<(!doctype|html|\?xml|head|body)", re.IGNORECASE)
_LINE_END = re.compile(r"\r\n|\r|\n")


class TextParser:
    kind: DocumentKind = "txt"

    def sniff(self, path: Path, head: bytes) -> bool:
        """Text that is a contract: HTML/XML and files named as another kind are text too, but refused."""
        if not looks_like_text(head):
            return False
        if _MARKUP.match(head):
            raise DocumentFailed(
                Stage.INGEST,
                "not a contract file: an HTML/XML page (often an error or login page saved in place of a download)",
            )
        if path.suffix.lower() in (".pdf", ".docx"):
            raise DocumentFailed(Stage.INGEST, f"named {path.suffix} but holds plain text: the file is not what its name says")
        return True

    def count_pages(self, path: Path) -> int:
        return path.read_bytes().rstrip(b"\f").count(b"\f") + 1

    def extract(self, path: Path) -> list[PageText]:
        text = _LINE_END.sub("\n", decode_text(path.read_bytes())).rstrip("\f")
        return [PageText(number=i, text=part, source="plain") for i, part in enumerate(text.split("\f"), start=1)]


def decode_text(data: bytes) -> str:
    """`data` as text: UTF-8 (BOM dropped), else Latin-1, which decodes any bytes."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def looks_like_text(sample: bytes) -> bool:
    """Whether the start of a file is text: no NUL bytes and almost only printable chars.

    Latin-1 decodes any bytes, so the printable share is what tells text from binary; NUL
    rejects at once because text files never hold it (UTF-16 files are not supported).  The
    sample may end inside a UTF-8 sequence, hence the incremental decoder.
    """
    if b"\x00" in sample:
        return False
    try:
        text = codecs.getincrementaldecoder("utf-8-sig")().decode(sample, final=False)
    except UnicodeDecodeError:
        text = sample.decode("latin-1")
    printable = sum(1 for ch in text if ch.isprintable() or ch in "\n\r\t\f")
    return printable >= _MIN_PRINTABLE * len(text)
