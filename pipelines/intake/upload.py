"""Uploads from the review app: files a person sends in the browser, put into the inbox a
`clausemill watch` watches, so they enter the one intake ledger as dropped files do and are
audited exactly as a drop is (the claim, the ledger's sha256 rule that audits the same bytes
once, the outbox).

    INBOX/uploads/USER/NAME                 where an uploaded file lands, for the watcher
    INBOX/.clausemill-uploads/KEY/          one upload request while it is written (hidden:
                                            the watcher ignores it), then what it placed

Each upload form carries a KEY made when the page was drawn.  Its folder is made with mkdir,
which one request wins: a request sent twice (a double click, a browser's retry) places its
files once, and the second is answered with what the first placed.  A file is written under
the hidden folder and linked into place under a free name, so the watcher never sees half a
file and nothing in the inbox is overwritten.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from pipelines.intake.rules import NAME_MAX, free_path, ignored, storable_name

UPLOADS_FOLDER = "uploads"
STAGING_FOLDER = ".clausemill-uploads"
RECEIPT = "placed.json"
KEY = re.compile(r"[0-9a-f]{32}")
KEEP_KEYS_S = 7 * 24 * 3600
"""How long a request's folder (its receipt) is kept: a retry within a week is recognised."""
_CHUNK = 1024 * 1024


class UploadError(ValueError):
    """A request that cannot be taken: what is wrong, in words a person acts on."""


@dataclass(frozen=True)
class Placed:
    """One file of an upload: the name it was sent as, the name it has in the inbox (the
    ledger's name once the watcher takes it), or why it was not placed."""

    sent_as: str
    name: str = ""
    size_bytes: int = 0
    sha256: str = ""
    refused: str = ""


@dataclass(frozen=True)
class Receipt:
    """What one upload request placed; `repeated` when this request had been received before."""

    key: str
    files: tuple[Placed, ...]
    repeated: bool = False


def user_folder(user: str) -> PurePosixPath:
    """Where a user's uploads land, relative to the inbox (user names are safe path parts:
    pipelines/review/users.NAME)."""
    return PurePosixPath(UPLOADS_FOLDER, user)


def receive(inbox: Path, key: str, user: str, files: Iterable[tuple[str, BinaryIO]]) -> Receipt:
    """Place `files` (each the name it was sent as, and its bytes) in `inbox` for the watcher,
    once per `key`.  Raises UploadError for a key that is not one the page made, or an inbox
    that is not a folder; OSError when the inbox cannot take the files (files placed before
    stay, and are audited; the same bytes sent again end as duplicates, not audited twice)."""
    if not KEY.fullmatch(key):
        raise UploadError("this upload form is out of date: reload the page and send the files again")
    if not inbox.is_dir():
        raise UploadError(f"the upload folder {inbox} does not exist: ask an administrator to check "
                          "CLAUSEMILL_UPLOAD_INBOX")
    staging = inbox / STAGING_FOLDER
    staging.mkdir(exist_ok=True)
    _forget_old_keys(staging)
    folder = staging / key
    try:
        folder.mkdir()
    except FileExistsError:
        return Receipt(key, _read_receipt(folder), repeated=True)
    try:
        target = inbox.joinpath(*user_folder(user).parts)
        target.mkdir(parents=True, exist_ok=True)
        placed = tuple(_place(folder, target, n, sent_as, stream) for n, (sent_as, stream) in enumerate(files))
        _write_receipt(folder, placed)
    except BaseException:  # a full disk, a dropped connection: the key is free again, so sending again works
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Receipt(key, placed)


def _place(folder: Path, target: Path, n: int, sent_as: str, stream: BinaryIO) -> Placed:
    """One file: written beside the receipt, then linked into the user's folder under a free name."""
    name = sent_name(sent_as)
    refusal = name_problem(name)
    if refusal:
        return Placed(sent_as, refused=refusal)
    part = folder / f"{n}.part"
    digest, size = hashlib.sha256(), 0
    with open(part, "wb") as out:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    while True:
        path = free_path(target, PurePosixPath(name), lambda p: p.exists() or p.is_symlink(), NAME_MAX)
        try:
            os.link(part, path)  # fails where the name was taken since free_path looked: try the next
        except FileExistsError:
            continue
        break
    part.unlink()
    return Placed(sent_as, path.name, size, digest.hexdigest())


def sent_name(sent_as: str) -> str:
    """The file's own name from what a browser sent: the last part of any path (some send
    C:\\fakepath\\x.pdf), as the ledger would keep it."""
    return storable_name(PurePosixPath(sent_as.replace("\\", "/")).name.strip())


def name_problem(name: str) -> str:
    """Why a file cannot be uploaded under `name`, or "": a name the watcher would pass over
    (hidden, a lock file, a partial download) would never be audited."""
    if not name or name in (".", ".."):
        return "the file has no name"
    if ignored(PurePosixPath(name)):
        return ("the watcher passes over names like this one (a hidden file, an Office lock file or a partial "
                "download): rename it and upload it again")
    if "\x00" in name or "/" in name:
        return "the file name holds a character no file system takes"
    return ""


def _write_receipt(folder: Path, placed: tuple[Placed, ...]) -> None:
    temporary = folder / f"{RECEIPT}.tmp"
    temporary.write_text(json.dumps([asdict(p) for p in placed]))
    os.replace(temporary, folder / RECEIPT)


def _read_receipt(folder: Path) -> tuple[Placed, ...]:
    """What the first request with this key placed; nothing yet when it is still being written."""
    try:
        return tuple(Placed(**entry) for entry in json.loads((folder / RECEIPT).read_text()))
    except FileNotFoundError:
        return ()


def receipt_of(inbox: Path, key: str) -> Receipt | None:
    """What the request with `key` placed, for the page it leads to; None for a key unknown
    (or forgotten after KEEP_KEYS_S)."""
    folder = inbox / STAGING_FOLDER / key
    if not KEY.fullmatch(key) or not folder.is_dir():
        return None
    return Receipt(key, _read_receipt(folder))


def _forget_old_keys(staging: Path) -> None:
    """Requests' folders older than KEEP_KEYS_S go (with a crashed request's partial files)."""
    cutoff = time.time() - KEEP_KEYS_S
    for entry in os.scandir(staging):
        try:
            if entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                shutil.rmtree(entry.path)
        except OSError as error:  # another request removed it first, or it is not ours to remove
            if error.errno not in (errno.ENOENT, errno.EACCES, errno.EPERM):
                raise


def waiting(inbox: Path, user: str) -> list[str]:
    """The user's uploads still in the inbox: not yet taken by the watcher (or no watcher runs)."""
    folder = inbox.joinpath(*user_folder(user).parts)
    try:
        return sorted(entry.name for entry in os.scandir(folder) if entry.is_file(follow_symlinks=False))
    except FileNotFoundError:
        return []
