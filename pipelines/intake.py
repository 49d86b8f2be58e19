"""The drop folder's rules: which dropped files are taken, when a file is complete, and where
a finished file goes.

Plain decisions over names, stat results and times, so they are tested without a watcher;
workers/intake.py runs them as a process (events, rescans, claims, batches, moves).

    INBOX/            what people and programs drop files into
    OUTBOX/.work/     claimed files, one folder per claim, while their documents run
    OUTBOX/processed/YYYY-MM-DD/   OUTBOX/failed/   OUTBOX/duplicates/
    OUTBOX/reports/BATCH_ID/       OUTBOX/report.html, OUTBOX/report.xlsx (every contract so far)

The work folder lies in the outbox so that a claim is a rename on the outbox's file system,
atomic, and so is every move out of it.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from pipelines.datamodel import DocumentStatus, IntakeState

WORK_FOLDER = ".work"
REPORTS_FOLDER = "reports"
PORTFOLIO_FILES = ("report.html", "report.xlsx")
OUTCOME_FOLDERS: dict[IntakeState, str] = {
    IntakeState.PROCESSED: "processed",
    IntakeState.FAILED: "failed",
    IntakeState.DUPLICATE: "duplicates",
}
ERROR_SUFFIX = ".error.json"

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

    def work_path(self, token: str, name: PurePosixPath) -> Path:
        return self.work / token / name

    def name_in_work(self, work_path: Path) -> PurePosixPath:
        """The name a file was dropped under, from where its claim put it (work/TOKEN/NAME)."""
        return PurePosixPath(*work_path.relative_to(self.work).parts[1:])

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


def free_path(folder: Path, name: PurePosixPath, taken: Callable[[Path], bool]) -> Path:
    """`folder/name`, or with " (1)", " (2)"… before the suffix when that name or its error
    file is taken: nothing already in the outbox is ever overwritten."""
    preferred = folder / name
    stem, suffix = preferred.stem, preferred.suffix
    candidate, n = preferred, 0
    while taken(candidate) or taken(error_file(candidate)):
        n += 1
        candidate = preferred.with_name(f"{stem} ({n}){suffix}")
    return candidate


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
