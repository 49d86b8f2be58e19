"""Which encoding a text file is in, and its text with NUL bytes dealt with.

Contracts arrive as text from three places, in this order of frequency: UTF-8 (most tools
today), Windows-1252 ("ANSI": Notepad before 2019, Word's "Plain Text" on Western Windows)
and UTF-16 (Windows "Unicode", often without a byte-order mark from database exports).  So
the order is: a byte-order mark if there is one; UTF-16 when every other byte is NUL; UTF-8
when the bytes are valid UTF-8; Windows-1252 when charset-normalizer finds it reads cleanly;
else charset-normalizer's best guess (Cyrillic, Greek, CJK code pages), else Latin-1, which
decodes any bytes and leaves the printable-share test to call the file binary.

charset-normalizer is not asked first because on short Western texts it picks code pages
that change letters ("café" came back as cp1006, a French contract as Baltic cp1257).

NUL bytes are never text.  Trailing NULs are padding (a preallocated or interrupted copy)
and are dropped; a few NULs elsewhere (an export's field separators) are read as spaces; a
file that is more than 10% NUL (after UTF-16 was ruled out) is binary.
"""
from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

import charset_normalizer

SAMPLE_BYTES = 64 * 1024
"""Detection reads this much; ingest's sniff has the same head, so both decide the same way."""
_MIN_PRINTABLE = 0.95  # share of printable chars that makes a file text rather than binary
_MAX_NUL_SHARE = 0.1  # NULs (not trailing) beyond this share of the chars: binary
_UTF16_OTHER_NULS = 0.01  # UTF-16 of Latin text: the other byte parity is almost never NUL
_WIDE_NUL_SHARE = 0.3  # UTF-16 of Latin text: at least this share of one byte parity is NUL
_MAX_CHAOS = 0.1  # charset-normalizer's "mess" score under which a decoding reads cleanly
_BOMS: tuple[tuple[bytes, str, str], ...] = (  # UTF-32 LE first: its mark begins with UTF-16 LE's
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 (little-endian, byte-order mark)"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 (big-endian, byte-order mark)"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8 (byte-order mark)"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 (little-endian, byte-order mark)"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 (big-endian, byte-order mark)"),
)
_NUL_RUN = re.compile("\x00+")


@dataclass(frozen=True)
class Encoding:
    codec: str  # a Python codec name
    bom: int  # bytes of byte-order mark to skip
    label: str  # what the document's notes say

    @property
    def noted(self) -> bool:
        """Whether the choice is worth a note: plain UTF-8 is what everyone expects."""
        return self.label != "UTF-8"


UTF8 = Encoding("utf-8", 0, "UTF-8")


@dataclass(frozen=True)
class Decoded:
    text: str
    notes: tuple[str, ...]


def detect(sample: bytes) -> Encoding:
    """The encoding of a file from its first bytes (`sample` may end inside a char)."""
    for bom, codec, label in _BOMS:
        if sample.startswith(bom):
            return Encoding(codec, len(bom), label)
    if wide := _utf16_without_bom(sample):
        return wide
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
        return UTF8
    except UnicodeDecodeError:
        return _single_byte(sample.replace(b"\x00", b""))


def decode_text(data: bytes) -> Decoded:
    """The whole file as text, NULs dealt with, and notes on how it was read."""
    encoding = detect(data[:SAMPLE_BYTES])
    notes = [f"text decoded as {encoding.label}"] if encoding.noted else []
    body = data[encoding.bom:]
    if encoding is UTF8:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:  # valid at the start, not throughout: still UTF-8, with bad bytes
            text = body.decode("utf-8", errors="replace")
            notes.append("bytes that are not UTF-8 replaced by \ufffd")
    else:
        try:
            text = body.decode(encoding.codec, errors="replace")
        except UnicodeError:
            text = body.decode("latin-1")
    text, nul_notes = _without_nuls(text)
    return Decoded(text, tuple(notes + nul_notes))


def looks_like_text(sample: bytes) -> bool:
    """Whether the start of a file is text: almost only printable chars, and NULs only as
    padding at the end or as the odd separator."""
    encoding = detect(sample)
    try:
        text = codecs.getincrementaldecoder(encoding.codec)(errors="replace").decode(sample[encoding.bom:], final=False)
    except UnicodeError:  # a codec that refuses outright instead of replacing: not text it can read
        text = sample.decode("latin-1")
    text = text.rstrip("\x00")
    if not text or text.count("\x00") > _MAX_NUL_SHARE * len(text):
        return False
    chars = text.replace("\x00", "")
    printable = sum(1 for ch in chars if ch.isprintable() or ch in "\n\r\t\f")
    return printable >= _MIN_PRINTABLE * len(chars)


def only_nul_bytes(sample: bytes) -> bool:
    return bool(sample) and not sample.strip(b"\x00")


def _utf16_without_bom(sample: bytes) -> Encoding | None:
    """UTF-16 of mostly Latin text: one byte of each pair is NUL, the other almost never."""
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    even, odd = sample[0 : 2 * pairs : 2].count(0) / pairs, sample[1 : 2 * pairs : 2].count(0) / pairs
    for codec, zeros, others in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if zeros >= _WIDE_NUL_SHARE and others <= _UTF16_OTHER_NULS:
            try:
                codecs.getincrementaldecoder(codec)().decode(sample, final=False)
            except UnicodeDecodeError:
                return None
            endian = "little" if codec.endswith("le") else "big"
            return Encoding(codec, 0, f"UTF-16 ({endian}-endian, no byte-order mark)")
    return None


def _single_byte(sample: bytes) -> Encoding:
    """Windows-1252 if it reads cleanly, else charset-normalizer's best guess, else Latin-1."""
    if charset_normalizer.from_bytes(sample, cp_isolation=["cp1252"], threshold=_MAX_CHAOS, enable_fallback=False).best() is not None:
        return Encoding("cp1252", 0, "Windows-1252")
    best = charset_normalizer.from_bytes(sample, threshold=_MAX_CHAOS, enable_fallback=False).best()
    # Unicode codecs are ruled out above; charset-normalizer's utf_16/utf_32 need a byte-order
    # mark the file lacks, and would raise on it (found by ops/fuzz_parsers.py).
    if best is not None and best.encoding != "ascii" and not best.encoding.startswith("utf"):
        return Encoding(best.encoding, 0, f"{best.encoding} (detected by charset-normalizer)")
    return Encoding("latin-1", 0, "Latin-1")


def _without_nuls(text: str) -> tuple[str, list[str]]:
    notes = []
    stripped = text.rstrip("\x00")
    if len(stripped) < len(text):
        notes.append(f"{len(text) - len(stripped):,} NUL bytes of padding at the end dropped")
    inside = stripped.count("\x00")
    if inside:
        stripped = _NUL_RUN.sub(" ", stripped)
        notes.append(f"{inside:,} NUL bytes read as spaces")
    return stripped, notes
