"""Upload in the browser (issue 42, item 5): files sent on /upload land in the user's folder of
the watched inbox, once per form, never over another file.  Uploads audited by a real watcher,
in Chromium: test_web_acceptance.py; with no upload inbox set: test_web_auth.py."""
from __future__ import annotations

import io
import uuid
from pathlib import Path, PurePosixPath

import pytest

from pipelines.intake.rules import ignored
from pipelines.intake.upload import STAGING_FOLDER, Receipt, UploadError, receipt_of, receive, waiting



# --- the placing, as a plain function ------------------------------------------------------------

def test_an_upload_lands_in_the_users_folder_once_per_key(tmp_path: Path) -> None:
    inbox, key = tmp_path / "in", uuid.uuid4().hex
    inbox.mkdir()
    first = receive(inbox, key, "uma", [("C:\\fakepath\\lease.txt", io.BytesIO(b"one")),
                                        ("lease.txt", io.BytesIO(b"two")), (".hidden.txt", io.BytesIO(b"x"))])
    assert [p.name for p in first.files] == ["lease.txt", "lease (1).txt", ""]  # nothing overwritten
    assert [p.sent_as for p in first.files] == ["C:\\fakepath\\lease.txt", "lease.txt", ".hidden.txt"]
    assert "watcher passes over names like this" in first.files[2].refused
    assert (inbox / "uploads" / "uma" / "lease.txt").read_bytes() == b"one"
    assert first.files[1].size_bytes == 3 and len(first.files[1].sha256) == 64
    again = receive(inbox, key, "uma", [("other.txt", io.BytesIO(b"three"))])  # the same form, sent again
    assert again.repeated and again.files == first.files
    assert not (inbox / "uploads" / "uma" / "other.txt").exists()
    assert receipt_of(inbox, key) == Receipt(key, first.files)
    assert receipt_of(inbox, uuid.uuid4().hex) is None and receipt_of(inbox, "../..") is None
    assert waiting(inbox, "uma") == ["lease (1).txt", "lease.txt"]
    assert ignored(PurePosixPath(STAGING_FOLDER, key, "0.part"))  # the watcher never sees half a file
    with pytest.raises(UploadError, match="out of date"):
        receive(inbox, "../../etc", "uma", [])
    with pytest.raises(UploadError, match="does not exist"):
        receive(tmp_path / "missing", uuid.uuid4().hex, "uma", [])


class Broken(io.BytesIO):
    """A client's bytes that stop coming halfway (the connection dropped, or the disk filled)."""

    def read(self, size: int = -1) -> bytes:
        raise OSError(28, "No space left on device")


def test_a_request_that_fails_frees_its_key_so_sending_again_works(tmp_path: Path) -> None:
    inbox, key = tmp_path / "in", uuid.uuid4().hex
    inbox.mkdir()
    with pytest.raises(OSError, match="No space left"):
        receive(inbox, key, "uma", [("a.txt", io.BytesIO(b"a")), ("b.txt", Broken())])
    assert not (inbox / STAGING_FOLDER / key).exists()  # no half-written file, no receipt
    again = receive(inbox, key, "uma", [("a.txt", io.BytesIO(b"a")), ("b.txt", io.BytesIO(b"b"))])
    assert not again.repeated and [p.name for p in again.files] == ["a (1).txt", "b.txt"]
