"""Files a batch must survive: each one must end `failed` without stopping its batch.

They are the usual ways a contract upload goes wrong: an interrupted download, a PDF locked
with a password, an empty file, and something else saved under a .pdf name.
"""
from __future__ import annotations

import io
from pathlib import Path

import pikepdf

from pipelines.samples.contracts import generate_contract
from pipelines.samples.render import pdf_bytes

PASSWORD = "clausemill"
"""The user password of encrypted.pdf, for tests that want to open it anyway."""

_NOT_A_PDF = """<!DOCTYPE html>
<html lang="en">
<head><title>Session expired</title></head>
<body>
<h1>Your session has expired</h1>
<p>Please sign in again to download this document.</p>
</body>
</html>
"""


def write_broken_samples(out_dir: Path) -> dict[str, str]:
    """Writes the broken files into `out_dir`; returns file name -> why it cannot be read."""
    intact, _ = pdf_bytes(generate_contract(404, short=True))

    (out_dir / "truncated.pdf").write_bytes(intact[: len(intact) * 2 // 5])

    with pikepdf.open(io.BytesIO(intact)) as pdf:
        pdf.save(out_dir / "encrypted.pdf", encryption=pikepdf.Encryption(user=PASSWORD, owner=PASSWORD + "-owner"))

    (out_dir / "empty.pdf").write_bytes(b"")
    (out_dir / "not-a-pdf.pdf").write_text(_NOT_A_PDF, encoding="utf-8")
    return {
        "truncated.pdf": "a PDF cut off at 40% of its bytes, as an interrupted download leaves it",
        "encrypted.pdf": "a PDF that needs a user password to open",
        "empty.pdf": "a file of zero bytes",
        "not-a-pdf.pdf": "an HTML page saved under a .pdf name",
    }
