"""The drop folder's rules: which dropped files are taken, when a file is complete, and where
a finished file goes.

Plain decisions over names, stat results and times, so they are tested without a watcher;
the other modules of pipelines/intake/ run them as a process (events, rescans, claims,
batches, moves), wired together in watcher.py.

    INBOX/            what people and programs drop files into
    OUTBOX/.work/     claimed files, one folder per claim, while their documents run
    OUTBOX/processed/YYYY-MM-DD/   OUTBOX/failed/   OUTBOX/duplicates/
    OUTBOX/reports/BATCH_ID/       OUTBOX/report.html, OUTBOX/report.xlsx (every contract so far)

The work folder lies in the outbox so that a claim is a rename on the outbox's file system,
atomic, and so is every move out of it.

Dropped names are hostile input: a name is bytes, not always UTF-8, up to the file system's
NAME_MAX long, with newlines, leading dashes or right-to-left overrides.  The ledger keeps each
name in full (storable_name); every name the watcher makes in the outbox fits NAME_MAX
(free_path shortens it); and an error while handling one file is that file's, not an outage
(is_outage), so no name can stop the others.
"""
from __future__ import annotations

import errno
import os
import stat
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from pipelines.datamodel import DocumentStatus, IntakeState

WORK_FOLDER = ".work"
REPORTS_FOLDER = "reports"
PORTFOLIO_FILES = ("report.html", "report.xlsx", "deadlines.ics")
OUTCOME_FOLDERS: dict[IntakeState, str] = {
    IntakeState.PROCESSED: "processed",
    IntakeState.FAILED: "failed",
    IntakeState.DUPLICATE: "duplicates",
}
ERROR_SUFFIX = ".error.json"
NAME_MAX = 255
"""The longest name in bytes on ext4, XFS, Btrfs and tmpfs; the watcher asks the outbox's own
file system (DropFolder.name_max), which may hold less (eCryptfs: 143)."""
SHORTENED = "…"
"""Marks where a name too long for the outbox was cut."""
_KEPT_SUFFIX_BYTES = 16
"""A suffix up to this long is a file type (.pdf, .docx) and survives a cut; a longer one is
part of a long name, and is cut with it."""
UNDECODABLE_NAME = "the file name is not valid UTF-8; rename it and drop it again"
_UNDECODABLE_TOKEN = "-undecodable"
"""Ends the work folder of a claim refused for its name.  There the file is kept under its
storable name, so on a restart a claim a kill left without its ledger row is refused again
from where it lies."""
OUTAGE_ERRNOS = frozenset({
    errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO,  # the outbox's disk: full, read-only, failing
    errno.ESTALE, errno.ENOTCONN, errno.ETIMEDOUT, errno.EHOSTDOWN, errno.EHOSTUNREACH,  # its share, gone
    errno.ENETDOWN, errno.ENETUNREACH, errno.ECONNRESET, errno.ECONNABORTED, errno.EREMOTEIO,
    errno.EMFILE, errno.ENFILE, errno.ENOMEM,  # this process, out of descriptors or memory
})

_PARTIAL_SUFFIXES = (".part", ".tmp", ".crdownload")
"""What browsers, office suites and copy tools name a file while they are still writing it."""


def ignored(relative: PurePosixPath) -> bool:
    """Files still being written or not meant for us: hidden files and folders (writers stage
    in a dot-folder and rename in), Office lock files (`~$…`), partial downloads."""
    *folders, name = relative.parts
    return (any(folder.startswith(".") for folder in folders) or name.startswith((".", "~$"))
            or name.lower().endswith(_PARTIAL_SUFFIXES))


@dataclass(frozen=True)
class Signature:
    """What changes while a file is written: a writer that appends moves size and mtime; one
    that replaces the file moves the inode."""

    size: int
    mtime_ns: int
    inode: int

    @classmethod
    def of(cls, st: os.stat_result) -> Signature:
        return cls(st.st_size, st.st_mtime_ns, st.st_ino)


@dataclass(frozen=True)
class Sighting:
    signature: Signature
    since: float
    """When (monotonic seconds) the file was first seen with this signature."""


def observe(previous: Sighting | None, signature: Signature, now: float) -> Sighting:
    """The clock restarts whenever the file changes."""
    if previous is not None and previous.signature == signature:
        return previous
    return Sighting(signature, now)


def is_stable(sighting: Sighting, now: float, stable_s: float) -> bool:
    """A file is complete once it has not changed for `stable_s`: measured on our clock, not
    by its mtime, which `cp -p` and unzip set to the past."""
    return now - sighting.since >= stable_s


def is_outage(error: OSError, *, reading: bool = False) -> bool:
    """Whether an OSError met while handling one file is an outage (the step is retried every
    few seconds and every file stays where it is) or that file's own (it ends in failed/ with
    the error as its reason, and the others go on).

    An outage is what no file can get past and what ends by itself or by an operator's hand:
    the database or the broker unreachable (the watcher's OUTAGES), and the OSErrors of
    OUTAGE_ERRNOS, which say that the outbox's file system or share is full, read-only,
    failing or gone, or that this process is out of descriptors or memory.  Any other errno
    (ENAMETOOLONG, EILSEQ, EACCES, ENOTDIR, EEXIST...) is about one file's name, place or
    permissions: retried it fails the same way forever, and taken for an outage it stopped
    every file after it (a dropped name of 236 bytes did, through the temporary file written
    beside its error record).
    `reading` a dropped file's bytes, EIO is a damaged block of that file: the disk's own
    failures show where the file is moved, into the outbox."""
    if reading and error.errno == errno.EIO:
        return False
    return error.errno in OUTAGE_ERRNOS


def storable_name(name: str) -> str:
    """`name` as the ledger, the error record and the outbox keep it.  A name is bytes, and
    Python shows those that are not UTF-8 as lone surrogates, which no database column holds:
    they are written as \\xNN (the bytes b"caf\\xff.txt" are kept as "caf\\xff.txt"),
    printable and still saying which bytes they were.  A UTF-8 name is kept as it is."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def name_refusal(name: str) -> str | None:
    """Why a file is refused for its name alone, or None.  A name that is not UTF-8 would be
    shown differently by every program that lists it; it is taken, so it leaves the inbox, and
    ends in failed/ under its storable name."""
    return None if storable_name(name) == name else UNDECODABLE_NAME


def shortened(name: str, room: int, mark: str = "") -> str:
    """`name` with `mark` (" (2)") before its suffix, in at most `room` bytes of UTF-8.

    Too long, the stem is cut at a character boundary and ends in "…"; the suffix, the file
    type, is kept (unless over _KEPT_SUFFIX_BYTES).  The full name stays in the ledger and in
    the error record."""
    path = PurePosixPath(name)
    stem, suffix = path.stem, path.suffix
    if len(f"{stem}{mark}{suffix}".encode()) <= room:
        return f"{stem}{mark}{suffix}"
    if len(suffix.encode()) > _KEPT_SUFFIX_BYTES:
        stem, suffix = name, ""
    tail = f"{SHORTENED}{mark}{suffix}"
    return stem.encode()[:room - len(tail.encode())].decode("utf-8", "ignore") + tail


def claim_refusal(st: os.stat_result) -> str | None:
    """Why a dropped entry cannot be audited although it is taken (it ends in failed/), or
    None for a regular file.  A symbolic link is never followed: it could point anywhere."""
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link: links are not followed out of the inbox; drop the file itself"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file (a pipe, socket or device)"
    return None


@dataclass(frozen=True)
class DropFolder:
    """An inbox and its outbox, resolved; `check` says what is wrong with them."""

    inbox: Path
    outbox: Path

    @classmethod
    def at(cls, inbox: Path, outbox: Path) -> DropFolder:
        return cls(inbox.resolve(), outbox.resolve())

    @property
    def work(self) -> Path:
        return self.outbox / WORK_FOLDER

    @property
    def work_prefix(self) -> str:
        """The ledger rows of this outbox are those whose work path starts with this."""
        return str(self.work) + os.sep

    def check(self) -> None:
        """Raise ValueError, with what to do, for a pair that cannot work; creates the outbox."""
        if not self.inbox.is_dir():
            raise ValueError(f"inbox {self.inbox} is not a folder")
        if self.outbox == self.inbox or self.outbox.is_relative_to(self.inbox):
            raise ValueError(f"the outbox {self.outbox} lies inside the inbox {self.inbox}: the watcher would take "
                             "its own output; choose an outbox outside it")
        if self.inbox.is_relative_to(self.outbox):
            raise ValueError(f"the inbox {self.inbox} lies inside the outbox {self.outbox}; choose folders side by side")
        self.work.mkdir(parents=True, exist_ok=True)
        if os.stat(self.inbox).st_dev != os.stat(self.work).st_dev:
            raise ValueError(f"inbox {self.inbox} and outbox {self.outbox} are on different file systems: files are "
                             "claimed by an atomic rename, which cannot cross file systems; put the outbox on the "
                             "inbox's file system")

    def name_max(self) -> int:
        """The longest name the outbox's file system holds, in bytes (the inbox's too: both
        are on one file system)."""
        try:
            return os.pathconf(self.work, "PC_NAME_MAX")
        except (OSError, ValueError):
            return NAME_MAX

    def claim_path(self, name: str, name_max: int = NAME_MAX) -> tuple[PurePosixPath, Path]:
        """Where a claim renames a file dropped as `name` (relative to the inbox), in a work
        folder of its own: (the name the ledger keeps, work/TOKEN/NAME).  A name that is not
        UTF-8 is kept under its storable name, each part shortened to fit, in a folder that
        says so (refusal_in_work)."""
        kept = PurePosixPath(storable_name(name))
        token = uuid.uuid4().hex + (_UNDECODABLE_TOKEN if name_refusal(name) else "")
        return kept, self.work_path(token, PurePosixPath(*(shortened(part, name_max) for part in kept.parts)))

    def work_path(self, token: str, name: PurePosixPath) -> Path:
        return self.work / token / name

    def name_in_work(self, work_path: Path) -> PurePosixPath:
        """The name a file was dropped under, from where its claim put it (work/TOKEN/NAME)."""
        return PurePosixPath(*work_path.relative_to(self.work).parts[1:])

    def refusal_in_work(self, work_path: Path) -> str | None:
        """Why a claim found in the work folder is refused for its name, or None."""
        return UNDECODABLE_NAME if work_path.relative_to(self.work).parts[0].endswith(_UNDECODABLE_TOKEN) else None

    def report_folder(self, batch_id: str) -> Path:
        return self.outbox / REPORTS_FOLDER / batch_id


def outbox_of(work_path: Path, name: PurePosixPath) -> Path:
    """The outbox a ledger row belongs to: its work path is OUTBOX/.work/TOKEN/NAME."""
    return work_path.parents[len(name.parts) + 1]


def outcome_state(status: DocumentStatus) -> IntakeState:
    """Where a file goes once its document ended."""
    return {DocumentStatus.DONE: IntakeState.PROCESSED, DocumentStatus.DUPLICATE: IntakeState.DUPLICATE}.get(
        status, IntakeState.FAILED)


def outcome_folder(outbox: Path, state: IntakeState, finished: datetime) -> Path:
    """processed/ is split by day (the local day the file finished) so it stays browsable."""
    folder = outbox / OUTCOME_FOLDERS[state]
    return folder / finished.strftime("%Y-%m-%d") if state is IntakeState.PROCESSED else folder


def error_file(path: Path) -> Path:
    return path.with_name(path.name + ERROR_SUFFIX)


def free_path(folder: Path, name: PurePosixPath, taken: Callable[[Path], bool], name_max: int = NAME_MAX) -> Path:
    """`folder/name`, or with " (1)", " (2)"… before the suffix when that name or its error
    file is taken: nothing already in the outbox is ever overwritten.  Each name fits
    `name_max` with ERROR_SUFFIX added, shortened when it must be, so that whatever the file
    ends as, its error file can be written beside it."""
    *folders, last = name.parts
    inner = folder.joinpath(*(shortened(part, name_max) for part in folders))
    room = name_max - len(ERROR_SUFFIX.encode())
    n = 0
    while True:
        candidate = inner / shortened(last, room, f" ({n})" if n else "")
        if not (taken(candidate) or taken(error_file(candidate))):
            return candidate
        n += 1


def error_record(*, name: str, state: IntakeState, stage: str | None, reason: str | None, at: datetime,
                 sha256: str | None, batch_id: str | None, document_id: int | None,
                 original: dict | None = None) -> dict:
    """NAME.error.json: why the file is in failed/ or duplicates/, readable without clausemill.

    `original` (for a duplicate): the file audited before it, {file, outcome, batch, document}."""
    record: dict = {"file": name, "outcome": str(state), "stage": stage, "reason": reason,
                    "time": at.isoformat(timespec="seconds"), "sha256": sha256, "batch": batch_id,
                    "document": document_id}
    if original is not None:
        record["original"] = original
    return record
