"""A second chance, through qpdf (pikepdf), for a PDF that PDFium will not open.

Two things qpdf reads that PDFium does not:

* a file whose cross-reference table or trailer is missing or damaged (a tool that rewrote it
  badly, a transfer in text mode, a download cut off just before its last kilobytes): qpdf
  rebuilds the table by scanning the objects;
* an encrypted file whose user (open) password is empty, in an encryption PDFium refuses.

A file with an open password stays closed even when its *owner* password is empty and would
decrypt it: whoever made it meant it to need a password, and auditing it anyway would read a
document its owner locked.

A rebuilt file is only accepted whole: a download cut off early also "repairs", into pages
that lost their content or images, and auditing half a contract as if it were all of it is
worse than failing it.  So every page must keep its content and the fonts and images that
content draws with.
The rescued file is handed to PDFium as bytes, and the document's facts note what was done.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import pikepdf

_TAIL_BYTES = 1024  # PDF readers look this far back from the end for %%EOF


@dataclass(frozen=True)
class Rescued:
    data: bytes
    note: str


class Unrescuable(Exception):
    """qpdf could not make a whole document of the file either; the message says why."""


def unlock_with_empty_password(path: Path) -> Rescued | None:
    """The file decrypted, if its user (open) password is empty; None when it needs one."""
    try:
        with pikepdf.open(path, password="") as pdf:
            if pdf.is_encrypted and not pdf.user_password_matched:
                return None  # only the owner password is empty: it has an open password
            return Rescued(_saved(pdf), "encrypted PDF opened with the empty user password (by qpdf)")
    except pikepdf.PikepdfError:  # a password, or damage qpdf cannot read past ("/Count is wrong ...")
        return None


def repair(path: Path) -> Rescued:
    """The file with its cross-reference table rebuilt by qpdf; `Unrescuable` unless every page
    still has what it refers to."""
    try:
        pdf = pikepdf.open(path, password="", attempt_recovery=True)
    except pikepdf.PasswordError as exc:
        raise Unrescuable("it is also encrypted with a password") from exc
    except pikepdf.PikepdfError as exc:
        raise Unrescuable(f"qpdf could not rebuild it either ({_short(exc)})") from exc
    try:
        return _checked_whole(path, pdf)
    except pikepdf.PikepdfError as exc:  # damage that shows only when the pages are walked (found by fuzzing)
        raise Unrescuable(f"qpdf could not rebuild it either ({_short(exc)})") from exc


def _checked_whole(path: Path, pdf: pikepdf.Pdf) -> Rescued:
    with pdf:
        if pdf.is_encrypted and not pdf.user_password_matched:
            raise Unrescuable("it is also encrypted with a password")
        pages = len(pdf.pages)
        if pages == 0:
            raise Unrescuable("qpdf found no pages in it")
        for number, page in enumerate(pdf.pages, start=1):
            if lost := _lost_parts(page):
                raise Unrescuable(f"page {number} of {pages} lost its {lost} (the file ends early, or parts of "
                                  "it were overwritten)")
        what = "the file is cut off, but only after the last page's content" if _cut_off(path) else \
            "its cross-reference table was damaged"
        recovered = "the page" if pages == 1 else f"all {pages} pages"
        return Rescued(_saved(pdf), f"PDF repaired by qpdf ({what}): {recovered} recovered whole, "
                                    f"{len(pdf.get_warnings())} warnings")


def _lost_parts(page: pikepdf.Page) -> str | None:
    """What a rebuilt page lost: its content, or a font or image its content draws with.

    qpdf drops a reference to an object the file no longer holds, so a page cut off from its
    content has no /Contents, and a lost image is a name its content uses that its resources
    lack.  (A page without content in a file that needed repair is taken as lost, not blank.)
    """
    if page.obj.get("/Contents") is None:
        return "content"
    try:
        instructions = pikepdf.parse_content_stream(page, "Do Tf")
    except pikepdf.PikepdfError:
        return "content"
    resources = page.resources
    for instruction in instructions:
        if not instruction.operands or not isinstance(instruction.operands[0], pikepdf.Name):
            continue
        kind, what = ("/XObject", "images") if str(instruction.operator) == "Do" else ("/Font", "fonts")
        group = resources.get(kind)
        target = group.get(instruction.operands[0]) if isinstance(group, pikepdf.Dictionary) else None
        if target is None or (isinstance(target, pikepdf.Stream) and not _readable(target)):
            return what
    return None


def _cut_off(path: Path) -> bool:
    """Whether the file lacks the end-of-file marker a PDF writer ends it with."""
    with path.open("rb") as stream:
        stream.seek(max(0, path.stat().st_size - _TAIL_BYTES))
        return b"%%EOF" not in stream.read()


def _readable(stream: object) -> bool:
    if not isinstance(stream, pikepdf.Stream):
        return False
    try:
        stream.read_raw_bytes()
    except pikepdf.PikepdfError:
        return False
    return True


def _saved(pdf: pikepdf.Pdf) -> bytes:
    out = io.BytesIO()
    pdf.save(out)  # no `encryption`: the copy is saved decrypted
    return out.getvalue()


def _short(exc: Exception) -> str:
    message = str(exc)
    return message.split(": ", 1)[-1] if message.startswith(("stream", "/", "<")) else message
