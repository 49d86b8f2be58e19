"""Files built to hurt a parser, or merely odd, written by clausemill's own code for the tests.

Each is small on disk and made in well under a second; what it would cost a parser that did
not check first is in its docstring.  The outcome each must have (done, or failed with which
reason) is stated by tests/test_hostile_input.py, and docs/RELIABILITY.md says why.

Damaged PDFs are made by byte surgery on a PDF reportlab wrote, encrypted ones by pikepdf
(qpdf), archives by zipfile: real damage and real encryption, so PDFium and qpdf meet them
exactly as they would meet a file from a client.
"""
from __future__ import annotations

import codecs
import io
import os
import re
import tempfile
import zipfile
import zlib
from pathlib import Path

import pikepdf
from PIL import Image
from reportlab.pdfgen.canvas import Canvas

from pipelines.samples.contracts import generate_contract
from pipelines.samples.render import pdf_bytes, write_docx, write_scanned_pdf

PASSWD = Path("/etc/passwd")
"""What the external-entity .docx names; its text must never reach a document."""
SENTENCE = "The Supplier shall deliver the Goods to the Customer within thirty days of each order."

_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def contract_pdf() -> bytes:
    """A three-page contract with a text layer, the base of the damaged and encrypted PDFs."""
    data, _ = pdf_bytes(generate_contract(404, short=True))
    return data


# PDFs -----------------------------------------------------------------------------------------


def write_encrypted_pdf(path: Path, user: str, owner: str, revision: int, aes: bool = True) -> None:
    """The contract encrypted by qpdf: revision 2 is RC4 40-bit, 3 RC4 128-bit, 4 AES-128 (or
    RC4 with `aes=False`), 6 AES-256.  An empty `user` password is an owner-password-only
    file, which any reader opens without asking."""
    encryption = pikepdf.Encryption(user=user, owner=owner, R=revision, aes=aes and revision >= 4,
                                    metadata=revision >= 4)
    with pikepdf.open(io.BytesIO(contract_pdf())) as pdf:
        pdf.save(path, encryption=encryption)


def write_pdf_without_xref(path: Path) -> None:
    """The contract with its cross-reference table and trailer cut out, %%EOF kept (as a tool
    that rewrote the file badly leaves it): PDFium refuses it, qpdf rebuilds the table."""
    data = contract_pdf()
    path.write_bytes(data[: data.rindex(b"\nxref\n")] + b"\n%%EOF\n")


def write_pdf_cut_in_xref(path: Path) -> None:
    """The contract cut off inside its cross-reference table (a download that stopped in its last
    kilobyte): every page is there, the table and trailer are not."""
    data = contract_pdf()
    path.write_bytes(data[: data.rindex(b"\nxref\n") + 40])


def write_pdf_cut_mid_page(path: Path) -> None:
    """The contract cut off at 40% (an interrupted download): qpdf "repairs" it into pages
    without content, which must not pass for the contract."""
    data = contract_pdf()
    path.write_bytes(data[: len(data) * 2 // 5])


def write_poster_pdf(path: Path) -> None:
    """One 200 x 200 inch page (the largest PDF allows) with no text layer: drawn at 300 dpi for
    OCR it is 60,000 x 60,000 pixels, 3.6 GB of grayscale."""
    canvas = Canvas(str(path), pagesize=(14400, 14400))
    canvas.rect(720, 720, 7200, 7200, stroke=1, fill=0)
    canvas.showPage()
    canvas.save()


def write_content_stream_bomb(path: Path, operators: int = 3_000_000) -> None:
    """A one-page PDF of ~230 KB whose content stream inflates to 3 million text objects:
    PDFium needs ~2 GB and ~4 s to load the page (measured: 1.9 GB, 3.7 s on 2 cores)."""
    canvas = Canvas(buffer := io.BytesIO())
    canvas.setFont("Helvetica", 1)
    canvas.drawString(72, 720, "x")
    canvas.showPage()
    canvas.save()
    with pikepdf.open(io.BytesIO(buffer.getvalue())) as pdf:
        operations = b"BT /F1 1 Tf 72 720 Td (x) Tj ET\n" * operators
        pdf.pages[0].obj.Contents = pikepdf.Stream(pdf, zlib.compress(operations, 9), Filter=pikepdf.Name.FlateDecode)
        pdf.save(path)


# Word files -----------------------------------------------------------------------------------


def _docx_parts() -> dict[str, bytes]:
    """The parts of a real .docx (python-docx's), to rebuild with one part replaced."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "contract.docx"
        write_docx(generate_contract(404, short=True), path)
        with zipfile.ZipFile(path) as archive:
            return {name: archive.read(name) for name in archive.namelist()}


def _write_docx_with(path: Path, document_xml: bytes | None = None, extra: dict[str, bytes] | None = None) -> None:
    parts = _docx_parts()
    if document_xml is not None:
        parts["word/document.xml"] = document_xml
    parts.update(extra or {})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


def _document_xml(body_text: str, doctype: str = "") -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n{doctype}'
            f'<w:document xmlns:w="{_W_NS}"><w:body><w:p><w:r><w:t>{body_text}</w:t></w:r></w:p>'
            f'<w:p><w:r><w:t>{SENTENCE}</w:t></w:r></w:p></w:body></w:document>').encode()


def write_damaged_deflate_docx(path: Path) -> None:
    """A .docx whose directory is intact but whose document.xml's compressed bytes are damaged
    mid-stream, as a bad sector or a careless transfer leaves it (zlib: "invalid distance")."""
    _write_docx_with(path, _document_xml(" ".join(f"Clause {i} of the agreement." for i in range(400))))
    with zipfile.ZipFile(path) as archive:
        entry = archive.getinfo("word/document.xml")
    data = bytearray(path.read_bytes())
    start = entry.header_offset + 30 + len(entry.filename.encode()) + len(entry.extra)
    middle = start + entry.compress_size // 2
    data[middle:middle + 16] = bytes((b ^ 0x5A) for b in data[middle:middle + 16])
    path.write_bytes(bytes(data))


def write_future_zip_version_docx(path: Path) -> None:
    """A .docx whose central directory says its parts need ZIP version 24.2 to extract, which
    no tool implements (a fuzzer's mutation of a real one)."""
    _write_docx_with(path)
    data = bytearray(path.read_bytes())
    entry = data.index(b"PK\x01\x02")
    data[entry + 6:entry + 8] = (242).to_bytes(2, "little")
    path.write_bytes(bytes(data))


def write_zip_bomb_docx(path: Path, inflated_mb: int = 300) -> None:
    """A ~1 MB .docx whose document.xml inflates to `inflated_mb` MB of spaces inside one run.
    Made at deflate level 1, the fastest: ~0.4 s for 300 MB."""
    parts = _docx_parts()
    head, tail = _document_xml("\x00").split(b"\x00")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, data in parts.items():
            if name != "word/document.xml":
                archive.writestr(name, data)
        with archive.open("word/document.xml", "w", force_zip64=True) as stream:
            stream.write(head)
            chunk = b" " * (4 << 20)
            for _ in range(inflated_mb // 4):
                stream.write(chunk)
            stream.write(tail)


def write_crowded_docx(path: Path, entries: int = 5001) -> None:
    """A .docx padded with `entries` empty files: python-docx would load every one."""
    _write_docx_with(path, extra={f"word/media/pad{i}.bin": b"" for i in range(entries)})


def write_billion_laughs_docx(path: Path) -> None:
    """document.xml with the classic nested entities: &lol9; expands to 10^9 "lol"s (3 GB)."""
    entities = ['<!ENTITY lol "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10)
    ]
    doctype = "<!DOCTYPE w:document [\n" + "\n".join(entities) + "\n]>\n"
    _write_docx_with(path, _document_xml("&lol9;", doctype))


def write_external_entity_docx(path: Path, target: Path = PASSWD) -> None:
    """document.xml whose text is an external entity naming `target` (XXE): a parser that
    resolves it puts the server's /etc/passwd into the contract's text."""
    doctype = f'<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file://{target}">]>\n'
    _write_docx_with(path, _document_xml("&xxe;", doctype))


# text files -----------------------------------------------------------------------------------

LATIN_TEXT = "Café Müller GmbH and Société Générale agree: § 5 applies, 12½ % per annum.\n"
WINDOWS_TEXT = "The “Licensee” shall pay – within thirty days – the fee of €100.\n"


def write_utf16_txt(path: Path, bom: bool = True) -> None:
    """Two pages (a form feed between) as Windows saves "Unicode" text: UTF-16 LE, with its
    byte-order mark, or without it as database exports write it."""
    text = f"{SENTENCE}\n{LATIN_TEXT}\f{SENTENCE}\n"
    path.write_bytes((codecs.BOM_UTF16_LE if bom else b"") + text.encode("utf-16-le"))


def write_latin1_txt(path: Path) -> None:
    path.write_bytes((SENTENCE + "\n" + LATIN_TEXT).encode("latin-1"))


def write_windows_txt(path: Path) -> None:
    """Windows-1252 ("ANSI"), with the curly quotes, dashes and euro sign Latin-1 lacks."""
    path.write_bytes((SENTENCE + "\n" + WINDOWS_TEXT).encode("cp1252"))


def write_nul_txt(path: Path) -> None:
    """Text with NULs as field separators inside and 4 KB of NUL padding at the end."""
    path.write_bytes(b"Supplier\x00Acme Corp.\x00\x00Customer\x00Beta LLC\n" + SENTENCE.encode() + b"\x00" * 4096)


def write_zero_filled_txt(path: Path, size: int = 64 * 1024) -> None:
    """Only NUL bytes: what a copy that was allocated but never written leaves."""
    path.write_bytes(b"\x00" * size)


def write_long_txt(path: Path, chars: int) -> None:
    """At least `chars` chars of contract sentences, one paragraph each."""
    paragraph = (SENTENCE + "\n\n").encode()
    path.write_bytes(paragraph * (chars // len(paragraph) + 1))


# Files that are not what their names say, and PDFs built to loop or recurse -------------------


def write_disguised(path: Path, kind: str) -> None:
    """Bytes of another kind under a contract's name: an HTML page, a PNG, a ZIP or random bytes
    saved as .pdf, or a PDF saved as .docx (shared drives are full of them)."""
    if kind == "html":
        path.write_bytes(b"<!DOCTYPE html><html><body><h1>Supply Agreement</h1><p>Download failed.</p></body></html>")
    elif kind == "png":
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    elif kind == "zip":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("contract.txt", SENTENCE)
    elif kind == "random":
        path.write_bytes(bytes((i * 7919 + 13) % 256 for i in range(64 * 1024)))
    elif kind == "pdf":
        path.write_bytes(contract_pdf())
    else:
        raise ValueError(f"no disguise {kind!r}")


def write_docm_as_docx(path: Path) -> None:
    """A macro-enabled Word file (.docm: its main part's content type says so, and it carries
    word/vbaProject.bin) renamed .docx.  clausemill reads its text and never runs anything."""
    _write_docx_with(path, extra={"word/vbaProject.bin": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512})


def write_many_pages_pdf(path: Path, pages: int) -> None:
    """A PDF of `pages` blank pages (sharing one content stream, so it stays small)."""
    with pikepdf.new() as pdf:
        for _ in range(pages):
            pdf.add_blank_page(page_size=(612, 792))
        pdf.save(path)


def write_unicode_password_pdf(path: Path) -> None:
    """The contract behind an AES-256 open password in Unicode: it stays closed."""
    encryption = pikepdf.Encryption(user="mot de passe \u00e9t\u00e9 \u5951\u7d04", owner="owner \u00fc", R=6)
    with pikepdf.open(io.BytesIO(contract_pdf())) as pdf:
        pdf.save(path, encryption=encryption)


def _raw_pdf(objects: list[bytes], root: int = 1, startxref: int | None = None) -> bytes:
    """A PDF written by hand from its objects (numbered from 1), with a correct xref unless
    `startxref` says where the trailer should point instead."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, root, startxref if startxref is not None else xref)
    return bytes(out)


def write_page_tree_loop_pdf(path: Path) -> None:
    """A page tree whose node lists itself among its kids: a reader that walks it without
    remembering where it has been never stops."""
    path.write_bytes(_raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>",
                               b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
                               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"]))


def write_deeply_nested_pdf(path: Path, depth: int = 100_000) -> None:
    """An array nested `depth` deep inside the catalog: a recursive parser's stack overflows."""
    nested = b"[" * depth + b"]" * depth
    path.write_bytes(_raw_pdf([b"<< /Type /Catalog /Pages 2 0 R /Junk " + nested + b" >>",
                               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"]))


def write_startxref_past_end_pdf(path: Path) -> None:
    """The contract whose `startxref` points past the end of the file."""
    data = contract_pdf()
    head = data[: data.rindex(b"startxref")]
    path.write_bytes(head + b"startxref\n%d\n%%%%EOF\n" % (len(data) * 10))


def write_shifted_offsets_pdf(path: Path) -> None:
    """The contract with junk inserted after its header, so every offset in its xref is off."""
    data = contract_pdf()
    cut = data.index(b"\n", 10) + 1
    path.write_bytes(data[:cut] + b"% " + b"junk " * 2000 + b"\n" + data[cut:])


def write_xref_loop_pdf(path: Path, sections: int = 2) -> None:
    """The contract whose cross-reference sections chain back on themselves through /Prev:
    with `sections=1` its trailer's /Prev names its own table; with 2 it names an update
    section appended after it, whose /Prev names the first one again.  A reader that follows
    /Prev without remembering where it has been never stops."""
    data = contract_pdf()
    xref = data.rindex(b"\nxref\n") + 1
    trailer_end = data.rindex(b">>\nstartxref")
    if sections == 1:
        path.write_bytes(data[:trailer_end] + b"/Prev %d\n" % xref + data[trailer_end:])
        return
    prev = b"/Prev %010d\n"  # fixed width, so the update's offset is known before it is written
    update_at = len(data) + len(prev % 0)
    trailer = data[data.rindex(b"trailer"):trailer_end]
    size, root = (re.search(key + rb" (\d+)", trailer).group(1) for key in (b"/Size", b"/Root"))
    update = (b"xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size %s /Root %s 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n"
              % (size, root, xref, update_at))
    head = data[:trailer_end] + prev % update_at + data[trailer_end:]
    path.write_bytes(head + update)


def write_outline_loop_pdf(path: Path) -> None:
    """The contract with bookmarks (/Outlines) in a cycle: the second item's /Next is the
    first, and it is its own /First child.  Readers that walk bookmarks must notice."""
    with pikepdf.open(io.BytesIO(contract_pdf())) as pdf:
        outlines = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Outlines, Count=2))
        first, second = (pdf.make_indirect(pikepdf.Dictionary(
            Title=pikepdf.String(title), Parent=outlines, Dest=pikepdf.Array([pdf.pages[n].obj, pikepdf.Name.Fit])))
            for n, title in ((0, "Definitions"), (1, "Term")))
        first.Next, first.Prev, second.Next, second.Prev = second, second, first, first
        second.First, second.Last, second.Count = second, second, 1
        outlines.First, outlines.Last = first, second
        pdf.Root.Outlines = outlines
        pdf.save(path)


def _adler32_of_run(byte: int, length: int) -> int:
    """zlib's checksum of `length` copies of `byte`, in closed form: adler32's two sums over a
    run of one value are an arithmetic series, so 2 GB needs no pass over 2 GB."""
    s1 = (1 + length * byte) % 65521
    s2 = (length + byte * (length * (length + 1) // 2)) % 65521
    return s2 << 16 | s1


def _deflated_run(byte: int, block: int, blocks: int) -> bytes:
    """A valid zlib stream of `block` x `blocks` copies of `byte`, made by compressing one
    block: a full flush after each block resets the compressor, so every block after the first
    compresses to the same bytes, and repeating them costs nothing.  Only the checksum at the
    end must cover the whole run.  2 GB of spaces: 2.1 MB in ~0.3 s (deflate's best is ~1,000:1)."""
    chunk = bytes([byte]) * block
    compressor = zlib.compressobj(9)
    first = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    end = compressor.flush()[:-4]  # the final empty block, less the checksum of three blocks
    return first + again * (blocks - 1) + end + _adler32_of_run(byte, block * blocks).to_bytes(4, "big")


def write_flate_bomb_pdf(path: Path, drawn: bool = True, inflated_mb: int = 2048) -> None:
    """The contract with a 2 MB FlateDecode stream that inflates to `inflated_mb` MB of spaces:
    as a second content stream of page 1 (`drawn`), which PDFium inflates whole to parse the
    page (measured: 3.2 GB resident and 15 s without a limit), or as an object nothing uses,
    which no reader inflates."""
    with pikepdf.open(io.BytesIO(contract_pdf())) as pdf:
        bomb = pdf.make_indirect(pikepdf.Stream(pdf, _deflated_run(0x20, 16 << 20, inflated_mb // 16),
                                                Filter=pikepdf.Name.FlateDecode))
        page = pdf.pages[0].obj
        if drawn:
            page.Contents = pikepdf.Array([page.Contents, bomb])
        else:
            pdf.Root.Unused = bomb
        pdf.save(path)


def write_huge_image_pdf(path: Path, side: int = 40_000) -> None:
    """A letter-size page without text whose only content is one `side` x `side` 8-bit gray
    image (zeros, 1.5 MB deflated): small on the page, but drawing it makes PDFium decode
    1,600 MB of pixels first.  Measured without the image check: with 4 GB to spare PDFium
    decodes it (10 s); short of memory it leaves the image out and the page is drawn blank."""
    pixels = _deflated_run(0, side * 400, side // 400)
    content = b"q 612 0 0 792 0 0 cm /Im0 Do Q"
    path.write_bytes(_raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /BitsPerComponent 8 /ColorSpace /DeviceGray "
        b"/Filter /FlateDecode /Length %d >>\nstream\n" % (side, side, len(pixels)) + pixels + b"\nendstream",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
    ]))


# scans, scripts and fonts ---------------------------------------------------------------------


def _scanned_page(dpi: int = 150) -> Image.Image:
    """Page 1 of the contract as pipelines.samples.render scans it (tilted, speckled, `dpi`)."""
    with tempfile.TemporaryDirectory() as folder:
        scan = Path(folder) / "scan.pdf"
        write_scanned_pdf(generate_contract(404, short=True), scan, dpi)
        with pikepdf.open(scan) as pdf:
            [image] = pdf.pages[0].get_images().values()
            return pikepdf.PdfImage(image).as_pil_image()


def write_rotated_scan_pdf(path: Path, how: str, dpi: int = 150) -> None:
    """Page 1 of the contract's scan stored a quarter turn counterclockwise (the text runs
    bottom to top).  With `how="page"` the page's /Rotate 90 turns it upright when shown, as
    scanners that feed letter paper landscape write it; with `how="pixels"` nothing does (a
    page fed sideways), and only OCR's orientation detection can read it."""
    if how not in ("page", "pixels"):
        raise ValueError(f"no rotation {how!r}")
    image = _scanned_page(dpi).transpose(Image.Transpose.ROTATE_90)
    buffer = io.BytesIO()
    image.save(buffer, "PDF", resolution=float(dpi), title="Scan")
    with pikepdf.open(buffer) as pdf:
        if how == "page":
            pdf.pages[0].Rotate = 90
        pdf.save(path, deterministic_id=True)


CJK_LINES = (("STSong-Light", "供应商应在每份订单后三十日内向客户交付货物。"),
             ("HeiseiMin-W3", "供給者は、各注文から三十日以内に顧客へ商品を引き渡すものとする。"))
"""A Chinese and a Japanese sentence ("the supplier shall deliver the goods within thirty days
of each order"), each in one of Adobe's CJK fonts that reportlab names without embedding."""


def write_cjk_pdf(path: Path) -> None:
    """A page of Chinese and Japanese text in fonts a reader must supply (UnicodeCIDFont: no
    font file, a CMap from Unicode), below the contract's English sentence."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont

    canvas = Canvas(buffer := io.BytesIO(), pagesize=(612, 792), invariant=1)
    canvas.setFont("Times-Roman", 11)
    canvas.drawString(72, 720, SENTENCE)
    for n, (font, line) in enumerate(CJK_LINES):
        pdfmetrics.registerFont(UnicodeCIDFont(font))
        canvas.setFont(font, 14)
        canvas.drawString(72, 690 - 30 * n, line)
    canvas.showPage()
    canvas.save()
    path.write_bytes(buffer.getvalue())


def write_type3_pdf(path: Path, names: str = "standard") -> None:
    """The contract's sentence in a Type3 font whose every glyph is a drawn box.  What the text
    layer can say depends on the font's /Differences: `"standard"` glyph names (/T /h /e
    /space ...) at the ASCII codes; `"made-up"` names (/g84 ...) at the ASCII codes; or
    `"made-up-codes"`: made-up names at codes 1, 2, 3 ... in order of first use, so neither
    the names nor the codes say which letter a glyph is."""
    chars = list(dict.fromkeys(SENTENCE))
    if names == "made-up-codes":
        codes = {ch: n for n, ch in enumerate(chars, start=1)}
    elif names in ("standard", "made-up"):
        codes = {ch: ord(ch) for ch in chars}
    else:
        raise ValueError(f"no glyph naming {names!r}")
    named = {" ": "space", ".": "period"}
    glyph = {ch: (named.get(ch, ch) if names == "standard" else f"g{codes[ch]}").encode() for ch in chars}
    differences = b" ".join(b"%d /%s" % (codes[ch], glyph[ch]) for ch in chars)
    procs = b" ".join(b"/%s %d 0 R" % (glyph[ch], 7 if ch == " " else 6) for ch in chars)
    first, last = min(codes.values()), max(codes.values())
    text = bytes(codes[ch] for ch in SENTENCE).hex().encode()  # a hex string: codes 10 and 13 stay themselves
    content = b"BT /F1 9 Tf 72 720 Td <" + text + b"> Tj ET"
    box, blank = b"600 0 50 0 550 700 d1 50 0 500 700 re f", b"600 0 0 0 0 0 d1"
    path.write_bytes(_raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 600 700] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs 8 0 R "
        b"/Encoding << /Type /Encoding /Differences [" + differences + b"] >> /FirstChar %d /LastChar %d "
        b"/Widths [%s] /Resources << >> >>" % (first, last, b" ".join([b"600"] * (last - first + 1))),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Length %d >>\nstream\n" % len(box) + box + b"\nendstream",
        b"<< /Length %d >>\nstream\n" % len(blank) + blank + b"\nendstream",
        b"<< " + procs + b" >>",
    ]))


DEJAVU_SANS = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
"""Debian's fonts-dejavu-core: the font the no-ToUnicode PDF embeds a subset of."""


def _contract_lines(width_pt: float, font: str, size: float, lines: int) -> list[str]:
    """The first `lines` lines of the contract's text, wrapped to `width_pt` in `font`."""
    from reportlab.lib.utils import simpleSplit

    wrapped: list[str] = []
    for paragraph in generate_contract(404, short=True).text.split("\n"):
        wrapped.extend(simpleSplit(paragraph, font, size, width_pt) or [""])
    return wrapped[:lines]


def write_no_tounicode_pdf(path: Path, font_file: Path = DEJAVU_SANS) -> None:
    """A page of the contract in a TrueType subset whose codes are given in order of first use
    (reportlab's `asciiReadable=False`: "T" is 1, "h" 2, ...), with its /ToUnicode map deleted,
    as some PDF tools write them: the page looks right, but its text layer reads as control
    chars and shuffled punctuation (mojibake)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    pdfmetrics.registerFont(TTFont("SubsetNoUnicode", str(font_file), asciiReadable=False))
    canvas = Canvas(buffer := io.BytesIO(), pagesize=(612, 792), invariant=1)
    canvas.setFont("SubsetNoUnicode", 11)
    for n, line in enumerate(_contract_lines(468, "SubsetNoUnicode", 11, 40)):
        canvas.drawString(72, 720 - 15 * n, line)
    canvas.showPage()
    canvas.save()
    with pikepdf.open(io.BytesIO(buffer.getvalue())) as pdf:
        for font in pdf.pages[0].Resources.Font.values():
            if "/ToUnicode" in font:
                del font.ToUnicode
        pdf.save(path)


# File names ------------------------------------------------------------------------------------

HOSTILE_NAMES: tuple[tuple[bytes, str], ...] = (
    # 255 bytes, the most ext4, XFS and tmpfs hold: a name the watcher makes from it, with
    # " (1)" or ".error.json" added, does not fit unless shortened
    (b"L" * 251 + b".txt", "contract"),
    (("契" * 83 + "é.txt").encode(), "contract"),  # 3-byte characters: a cut falls inside one
    (("a" + "é" * 125 + ".txt").encode(), "contract"),  # 2-byte characters
    (b"N" * 255, "contract"),  # no suffix
    (b"a." + b"x" * 253, "contract"),  # a "suffix" of 253 bytes
    (b"D" * 250 + b"1.txt", "contract"),  # the same once shortened as the next one
    (b"D" * 250 + b"2.txt", "contract"),
    (b"F" * 246 + b".pdf", "html"),  # 250 bytes that fail: NAME.error.json is 261 bytes
    (b"L" * 236 + b".txt", "symlink"),  # the probe's: 240 bytes, its error file's temporary name 260
    (b"S" * 255, "symlink"),
    (b"-rf.txt", "contract"),  # read as an option by a tool that takes names as arguments
    (b"--help", "contract"),
    (b"line\nbreak.txt", "contract"),  # breaks line-based logs and listings
    (b"\nstarts with a newline.txt", "contract"),
    ("invoice \u202etxt.exe".encode(), "contract"),  # right-to-left override: shown as "invoice exe.txt"
    (b"caf\xff.txt", "contract"),  # not UTF-8: no database column holds it as it is
    (b"contrat r\xe9sili\xe9.txt", "contract"),  # Latin-1, as an old zip tool extracts it
    (b"\xff" * 251 + b".txt", "contract"),  # not UTF-8 and 255 bytes: 1,004 once escaped
    (b"pipe.txt", "fifo"),  # opening it to read would wait for a writer forever
    (b"P" * 251 + b".txt", "fifo"),
)
"""Entry names (as the file system holds them: bytes, some not UTF-8) that have stopped drop
folder watchers, and what to put under each: "contract" (a text contract), "html" (a login
page saved under a contract's name, which fails), "symlink" or "fifo"."""


def write_named_entry(folder: Path, name: bytes, kind: str, text: str, link_to: Path) -> Path:
    """`folder/name` as `kind` of HOSTILE_NAMES: a file holding `text` (a contract, or a login
    page for "html"), a symbolic link to `link_to`, or a FIFO.  Returns its path (a name that
    is not UTF-8 comes back with lone surrogates, as os.listdir gives it)."""
    path = Path(os.fsdecode(os.fsencode(folder) + b"/" + name))
    if kind == "symlink":
        path.symlink_to(link_to)
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.write_text("<html><body>Your session has expired.</body></html>" if kind == "html" else text)
    return path
