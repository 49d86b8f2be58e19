"""The drop-folder watcher as a process: `clausemill watch INBOX --out OUTBOX`.

One loop does everything that changes files or the ledger, so each step can be reasoned
about alone: find candidates (file-system events from `watchfiles`, plus a full rescan every
`watch_rescan_s`, because events get lost: inotify overflows, network shares raise none),
claim the stable ones (rename into the work folder, then a ledger row), group claimed files
into batches, move files whose documents ended to their outbox folder, write reports.  Events
only say where to look: every decision is made from lstat and the ledger.

Exactly once rests on three things: the claim (a rename, atomic, so a file is taken by one
watcher once), the ledger's conditional updates (storage/intake.py) with a step written down
before it is done (batch before submission, destination before the move), and the recovery
sweep for messages lost with a broker or worker.  `reconcile` runs at start: it records claims
a kill cut short and finishes interrupted submissions; interrupted moves finish by themselves,
since a row knows its destination.

One file never stops the others: what goes wrong with one file (its name, its bytes, its place
in the outbox) ends that file in failed/ or under another name, and only an outage, as
`pipelines.intake.is_outage` tells them apart, stops a step until it is tried again.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import queue
import shutil
import stat
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from celery import Celery
from kombu.exceptions import OperationalError as BrokerError
from sqlalchemy.exc import SQLAlchemyError

from pipelines import logs
from pipelines.dag import STAGES
from pipelines.datamodel import BatchOrigin, IntakeState
from pipelines.intake import (
    PORTFOLIO_FILES, DropFolder, Sighting, Signature, claim_refusal, error_file, error_record, free_path, ignored,
    is_outage, is_stable, observe, outcome_folder, outcome_state,
)
from pipelines.producer import submit_batch
from pipelines.settings import Settings
from pipelines.stages.ingest import sha256_of
from storage import intake as ledger
from storage import repository
from storage.database import session_scope
from storage.schema import IntakeFile, utcnow

if TYPE_CHECKING:
    from workers.lifecycle import EmbeddedWorkers

LOG_STAGE = "intake"
RETRY_S = 5.0
"""After a step failed on an outage (database, broker, a full disk), the loop waits this long."""
TICK_S = 0.25
"""How often the loop looks at candidates and the ledger: well under any stability window, and
a handful of cheap queries a tick."""
OUTAGES = (SQLAlchemyError, BrokerError, OSError)
"""What a step may fail on without a bug: the database or broker unreachable, the disk full.
An OSError of one file's own (`is_outage` says which) is handled where that file is, and never
reaches the loop."""
EVENTS_RETRY_S = 1.0
"""After file-system events stopped (watchfiles raises on a name that is not UTF-8), they are
watched again after this long, doubled while each new watch fails before it is set up (the
inotify watch limit), up to EVENTS_RETRY_MAX_S."""
EVENTS_RETRY_MAX_S = 60.0
EVENTS_TIMEOUT_MS = 1000
"""A watch yields (nothing) after this long without events: its first yield says it is set up."""
PORTFOLIO_EVERY_S = 300.0
"""The rolling report is rewritten at once when no file is in flight, and at most this often
while files keep coming: it covers every contract so far, so each rewrite costs more.  Measured
on 1,000 small contracts dropped at once: 6.1 s of CPU a rewrite (3.4 s of it the
workbook); rewritten after each of its 20 batches it would have cost about a minute of CPU, a
fifth of what the pipeline spent on the burst."""


Claim = tuple[PurePosixPath, Path, "str | None"]
"""A claimed file: the name the ledger keeps, where the claim put it, why its name is refused."""


@dataclass(frozen=True)
class Ending:
    """How a file ends: its row, the outbox folder it goes to, and what its error file says."""

    row: IntakeFile
    state: IntakeState
    reason: str | None
    stage: str | None
    original: IntakeFile | None  # the file it repeats (duplicates)


class Watcher:
    """The loop over one drop folder.  `run` returns once `stop` is set."""

    def __init__(self, settings: Settings, drop: DropFolder, app: Celery, *, poll: bool, options: dict,
                 view: str, embedded_workers: EmbeddedWorkers | None = None) -> None:
        self.settings, self.drop, self.app = settings, drop, app
        self.poll, self.options, self.view = poll, options, view
        self.embedded_workers = embedded_workers
        self.zone = ZoneInfo(settings.timezone)
        self.url = settings.effective_database_url
        self.name_max = drop.name_max()
        self._sightings: dict[Path, Sighting | None] = {}
        self._events: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._stop_events = threading.Event()
        self._rescan_asked = threading.Event()  # by the events thread, for what it may have missed
        self._unclaimable: dict[Path, Signature] = {}  # logged once per version of the file
        self._next_rescan = 0.0
        self._batches_to_report: set[str] | None = None  # None: all, at start (some may have ended meanwhile)
        self._portfolio_due = False
        self._portfolio_written = 0.0
        self._stop = threading.Event()

    # --- the loop ---------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Steps that fail on an outage are tried again; a claim whose row could not be written
        then waits in the work folder for the reconcile that follows the outage."""
        self._stop = stop
        self.reconcile()
        events = threading.Thread(target=self._watch_events, name="inbox-events", daemon=True)
        events.start()
        reconcile_due = False
        try:
            while not stop.is_set():
                try:
                    if reconcile_due:
                        self.reconcile()
                        reconcile_due = False
                    self.tick(time.monotonic())
                except OUTAGES:
                    logs.log("watcher step failed; trying again", stage=LOG_STAGE, batch_id=None,
                             level=logging.WARNING, exc_info=True, retry_s=RETRY_S)
                    reconcile_due = True
                    stop.wait(RETRY_S)
                stop.wait(TICK_S)
        finally:
            self._stop_events.set()
            events.join(timeout=10)

    def tick(self, now: float) -> None:
        self._take_events()
        if now >= self._next_rescan or self._rescan_asked.is_set():
            self._rescan_asked.clear()
            self._scan(self.drop.inbox)
            self._next_rescan = now + self.settings.watch_rescan_s
        self._claim_stable(now)
        self._end_without_batch()
        self._submit_due()
        self._end_finished_documents()
        self._write_reports(now)
        if self.embedded_workers is not None and (revived := self.embedded_workers.revive()):
            logs.log("embedded worker restarted", stage=LOG_STAGE, batch_id=None, level=logging.WARNING,
                     workers=revived)

    # --- finding candidates -------------------------------------------------------------------

    def _watch_events(self) -> None:
        """Feeds paths that changed to the loop; the loop decides what they are.

        Once each watch is set up (its first yield, at most EVENTS_TIMEOUT_MS after), the loop
        is asked to rescan, for what came before it: at start, or while no watch ran.  A watch
        that raises is started again after a pause, for as long as the watcher runs: watchfiles
        raises on a name that is not UTF-8 (and again when its claim renames it away), and one
        such name must not leave every later file to the periodic rescan."""
        import watchfiles

        pause = EVENTS_RETRY_S
        while not self._stop_events.is_set():
            watching = False
            try:
                for changes in watchfiles.watch(self.drop.inbox, watch_filter=None, stop_event=self._stop_events,
                                                force_polling=True if self.poll else None, debounce=400,
                                                rust_timeout=EVENTS_TIMEOUT_MS, yield_on_timeout=True,
                                                raise_interrupt=False, ignore_permission_denied=True):
                    if not watching:
                        watching = True
                        self._rescan_asked.set()
                    for _change, path in changes:
                        self._events.put(path)
            except Exception:  # noqa: BLE001 - a name it cannot decode, the watch limit, an unmounted share
                if watching:
                    pause = EVENTS_RETRY_S
                logs.log("file-system events stopped; watching again after a pause", stage=LOG_STAGE, batch_id=None,
                         level=logging.WARNING, exc_info=True, retry_s=pause)
            if self._stop_events.wait(pause):
                return
            pause = min(pause * 2, EVENTS_RETRY_MAX_S)
            logs.log("watching for file-system events again", stage=LOG_STAGE, batch_id=None)

    def _take_events(self) -> None:
        while True:
            try:
                path = Path(self._events.get_nowait())
            except queue.Empty:
                return
            self._candidate(path)

    def _candidate(self, path: Path) -> None:
        """A path an event named: a file to watch, a folder renamed in (scanned), or nothing."""
        try:
            relative = path.relative_to(self.drop.inbox)
        except ValueError:
            return
        if not relative.parts or ignored(PurePosixPath(relative.as_posix())) or not _real_folders(
                self.drop.inbox, relative.parts[:-1], missing_ok=False):
            return
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            self._sightings.pop(path, None)
            return
        except OSError:
            return
        if stat.S_ISDIR(st.st_mode):
            self._scan(path)
        else:
            self._sightings.setdefault(path, None)

    def _scan(self, top: Path) -> None:
        """Every entry under `top` that may be a dropped file; symbolic links are not entered."""
        folders = [top]
        while folders:
            folder = folders.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)  # claimed in name order
            except OSError:
                continue
            for entry in entries:
                path = Path(entry.path)
                relative = PurePosixPath(path.relative_to(self.drop.inbox).as_posix())
                if entry.is_dir(follow_symlinks=False):
                    if not entry.name.startswith("."):
                        folders.append(path)
                elif not ignored(relative):
                    self._sightings.setdefault(path, None)

    # --- claiming -----------------------------------------------------------------------------

    def _claim_stable(self, now: float) -> None:
        """At most a batch's worth of claims a tick, recorded in one transaction: a burst
        flows into batches at once, and a stop request never waits behind a thousand claims."""
        claims: list[Claim] = []
        for path, previous in list(self._sightings.items()):
            if len(claims) >= self.settings.watch_batch_max_files or self._stop.is_set():
                break
            try:
                st = os.lstat(path)
            except OSError:
                del self._sightings[path]
                continue
            sighting = observe(previous, Signature.of(st), now)
            self._sightings[path] = sighting
            if is_stable(sighting, now, self.settings.watch_stable_s) and (claim := self._claim(path, st)):
                del self._sightings[path]
                if claim is not True:
                    claims.append(claim)
        self._record(claims)

    def _claim(self, path: Path, st: os.stat_result) -> Claim | bool:
        """Rename the file into its own work folder; True when it went away meanwhile, False
        to try again later (a file that cannot be renamed cannot be moved to failed/ either:
        it stays, logged once)."""
        dropped = path.relative_to(self.drop.inbox).as_posix()
        name, target = self.drop.claim_path(dropped, self.name_max)
        try:
            target.parent.mkdir(parents=True)
            os.rename(path, target)
        except FileNotFoundError:  # moved away or deleted since it was seen
            _remove_empty_folders(target.parent, self.drop.work)
            return True
        except OSError as error:  # its folder not ours to write, a path over PATH_MAX in the work folder
            _remove_empty_folders(target.parent, self.drop.work)
            if is_outage(error):
                raise
            self._log_once(path, st, f"cannot be claimed: {error.strerror}")
            return False
        return name, target, self.drop.refusal_in_work(target)

    def _record(self, claims: list[Claim]) -> None:
        """The claims' ledger rows (also for claims found in the work folder after a crash)."""
        facts = []
        for name, target, name_refused in claims:
            try:
                st = os.lstat(target)
            except FileNotFoundError:  # taken out of the work folder by hand: nothing to record
                continue
            reason, sha256 = claim_refusal(st), None
            if reason is None:
                try:
                    sha256 = sha256_of(target)
                except OSError as error:
                    if is_outage(error, reading=True):
                        raise
                    reason = f"cannot be read: {error.strerror}"
            facts.append((name, target, st.st_size, sha256, reason or name_refused))
        if not facts:
            return
        with session_scope(self.url) as session:
            rows = [ledger.record_claim(session, inbox=str(self.drop.inbox), name=str(name), work_path=str(target),
                                        sha256=sha256, size_bytes=size, reason=reason)
                    for name, target, size, sha256, reason in facts]
        for row in rows:
            logs.log("file claimed", stage=LOG_STAGE, batch_id=None, sha256=row.sha256, file=row.name, intake=row.id,
                     refused=row.reason)

    def _log_once(self, path: Path, st: os.stat_result, why: str) -> None:
        signature = Signature.of(st)
        if self._unclaimable.get(path) != signature:
            self._unclaimable[path] = signature
            logs.log("file left in the inbox", stage=LOG_STAGE, batch_id=None, level=logging.WARNING,
                     file=str(path), why=why)

    # --- batches ------------------------------------------------------------------------------

    def _submit_due(self) -> None:
        """Group claimed files into batches: a batch goes once its oldest file has waited
        `watch_batch_window_s`, or as soon as it holds `watch_batch_max_files`."""
        with session_scope(self.url) as session:
            ready = []
            for row in ledger.submittable(session, self.drop.work_prefix):
                original = ledger.audited_original(session, row.sha256, row.id) if row.sha256 else None
                if original is None:
                    ready.append(row)
                else:
                    ledger.mark_duplicate_of(session, row.id, original)
        window = timedelta(seconds=self.settings.watch_batch_window_s)
        size = self.settings.watch_batch_max_files
        while ready and (len(ready) >= size or ready[0].claimed_at <= utcnow() - window):
            group, ready = ready[:size], ready[size:]
            batch_id = f"watch-{datetime.now(self.zone):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"
            with session_scope(self.url) as session:
                taken = set(ledger.assign_batch(session, [row.id for row in group], batch_id))
            self._submit(batch_id, [row for row in group if row.id in taken])

    def _submit(self, batch_id: str, rows: list[IntakeFile]) -> None:
        if rows:
            submit_batch(self.app, self.settings, [Path(row.work_path) for row in rows], batch_id=batch_id,
                         options=self.options, origin=BatchOrigin.WATCH)
        with session_scope(self.url) as session:
            linked = ledger.link_documents(session, batch_id)
        logs.log("files submitted", stage=LOG_STAGE, batch_id=batch_id, files=linked)

    # --- ending files -------------------------------------------------------------------------

    def _end_without_batch(self) -> None:
        """Files refused at the claim go to failed/, known duplicates to duplicates/."""
        with session_scope(self.url, write=False) as session:
            rows = ledger.refused_or_known(session, self.drop.work_prefix)
            originals = {row.id: ledger.get_row(session, row.original_id) for row in rows if row.original_id}
        self._end([Ending(row, IntakeState.DUPLICATE if row.original_id else IntakeState.FAILED, row.reason,
                          LOG_STAGE, originals.get(row.id)) for row in rows])

    def _end_finished_documents(self) -> None:
        with session_scope(self.url, write=False) as session:
            ended = ledger.ended_documents(session, self.drop.work_prefix)
            originals = {row.id: ledger.row_of_document(session, document.duplicate_of)
                         for row, document in ended if document.duplicate_of}
        endings = []
        for row, document in ended:
            state = outcome_state(document.status)
            failed = state is not IntakeState.PROCESSED
            endings.append(Ending(row, state, document.reason if failed else None,
                                  str(document.stage) if failed and document.stage else None, originals.get(row.id)))
        self._end(endings)

    def _end(self, endings: list[Ending]) -> None:
        """Move files out of the work folder, never over another file, then close their rows.

        Destinations are written down first; after a crash the same destination is used, and
        a file found at both places (the hard link made, the work name not yet removed) is the
        same file."""
        if not endings:
            return
        finished = datetime.now(self.zone)
        chosen: set[Path] = set()
        targets = {e.row.id: Path(e.row.outcome_path) if e.row.outcome_path else self._choose(e, finished, chosen)
                   for e in endings}
        self._plan({e.row.id: targets[e.row.id] for e in endings if not e.row.outcome_path})
        for e in endings:
            targets[e.row.id] = self._move_out(e, targets[e.row.id], finished, chosen)
        with session_scope(self.url) as session:
            closed = [e for e in endings if ledger.finish(
                session, e.row.id, e.state, reason=e.reason, original_id=e.original.id if e.original else None,
                outcome_path=str(targets[e.row.id]))]
        for e in endings:
            _remove_empty_folders(Path(e.row.work_path).parent, self.drop.work)
        for e in closed:
            logs.log("file finished", stage=LOG_STAGE, batch_id=e.row.batch_id, sha256=e.row.sha256,
                     document_id=e.row.document_id, file=e.row.name, outcome=str(e.state),
                     to=str(targets[e.row.id]), reason=e.reason)
        if closed:
            self._portfolio_due = True
            if self._batches_to_report is not None:
                self._batches_to_report |= {e.row.batch_id for e in closed if e.row.batch_id}

    def _move_out(self, ending: Ending, target: Path, finished: datetime, chosen: set[Path]) -> Path:
        """Put the file at `target`, its error record first; returns where it went.

        Another free name when someone put a file at `target` meanwhile.  When `target` cannot
        hold it for a reason of its own (a file or a link where its subfolder should be; a name
        planned by an older watcher, too long for its error file), the file goes to the top of
        its outbox folder under its own name, shortened to fit; an error there is the outbox's,
        an outage."""
        at_top = False
        while True:
            top = self.drop.outbox / target.relative_to(self.drop.outbox).parts[0]  # processed/, failed/...
            try:
                if not _real_folders(top, target.parent.relative_to(top).parts, missing_ok=True):
                    raise NotADirectoryError(errno.ENOTDIR, "a folder on the way is a file or a symbolic link")
                if self._put(ending, target, finished):
                    return target
            except OSError as error:
                if at_top or is_outage(error):
                    raise
                at_top = True
                logs.log("file cannot go where it belongs in the outbox; put at the top of its folder", stage=LOG_STAGE,
                         batch_id=ending.row.batch_id, level=logging.WARNING, sha256=ending.row.sha256,
                         file=ending.row.name, to=str(target), why=error.strerror)
            target = self._choose(ending, finished, chosen, at_top=at_top)
            self._plan({ending.row.id: target})

    def _put(self, e: Ending, target: Path, finished: datetime) -> bool:
        """The error record (not for a processed file), then the move; False, with no record
        left behind, when another file is at `target`."""
        record = None
        if e.state is not IntakeState.PROCESSED:
            record = error_file(target)
            _write_json_atomically(record, error_record(
                name=e.row.name, state=e.state, stage=e.stage, reason=e.reason, at=finished, sha256=e.row.sha256,
                batch_id=e.row.batch_id, document_id=e.row.document_id,
                original=_original_entry(e.original) if e.original is not None else None))
        moved = False
        try:
            moved = _move_without_overwriting(Path(e.row.work_path), target)
        finally:
            if record is not None and not moved:
                record.unlink(missing_ok=True)
        return moved

    def _choose(self, ending: Ending, finished: datetime, chosen: set[Path], at_top: bool = False) -> Path:
        """A free name in the file's outbox folder, also among those chosen in this round."""
        folder = outcome_folder(self.drop.outbox, ending.state, finished)
        name = PurePosixPath(ending.row.name)
        target = free_path(folder, PurePosixPath(name.name) if at_top else name,
                           lambda p: p in chosen or os.path.lexists(p), self.name_max)
        chosen.add(target)
        return target

    def _plan(self, targets: dict[int, Path]) -> None:
        if targets:
            with session_scope(self.url) as session:
                for row_id, target in targets.items():
                    ledger.plan_outcome(session, row_id, str(target))

    # --- reports ------------------------------------------------------------------------------

    def _write_reports(self, now: float) -> None:
        """Each finished batch's reports in reports/BATCH_ID/, then the rolling portfolio."""
        if self._batches_to_report is None or self._batches_to_report:
            with session_scope(self.url, write=False) as session:
                closed = ledger.batches_closed(session, self.drop.work_prefix, self._batches_to_report)
            self._batches_to_report = set()
            for batch_id in closed:
                folder = self.drop.report_folder(batch_id)
                if not folder.exists():
                    self._write_batch_reports(batch_id, folder)
                    self._portfolio_due = True
        if self._portfolio_due and (now - self._portfolio_written >= PORTFOLIO_EVERY_S or not self._in_flight()):
            self._portfolio_due = False
            self._portfolio_written = now
            self._write_portfolio()

    def _write_batch_reports(self, batch_id: str, folder: Path) -> None:
        """Written beside, then renamed in: a reports folder that exists is complete.

        The batch ledger is closed first: a worker killed between a document's end and the
        batch's finalize would leave it open, and finalizing is safe to repeat."""
        from pipelines.reported import write_batch_reports

        with session_scope(self.url) as session:
            repository.finalize_batch_if_complete(session, batch_id)
        partial = folder.with_name(f".{batch_id}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        write_batch_reports(self.settings, batch_id, partial, self.view)
        os.rename(partial, folder)
        logs.log("batch reports written", stage=LOG_STAGE, batch_id=batch_id, folder=str(folder))

    def _write_portfolio(self) -> None:
        """report.html and report.xlsx over every contract so far, reviewers' decisions applied."""
        from pipelines.aggregate import summarize_batch
        from pipelines.reported import load_portfolio
        from pipelines.reports.html_report import write_html
        from pipelines.reports.xlsx_report import write_xlsx
        from pipelines.steps import playbook_for

        playbook = playbook_for(self.options)
        with session_scope(self.url, write=False) as session:
            members = ledger.portfolio_documents(session, self.drop.work_prefix)
            reported = load_portfolio(session, members, self.settings.analysers, playbook)
        portfolio = reported.batch
        if not portfolio.documents:
            return
        assessed = reported.assessed()
        summary = summarize_batch(assessed)
        html, xlsx = (self.drop.outbox / f".{name}.partial" for name in PORTFOLIO_FILES)
        write_html(portfolio, assessed, summary, playbook.label, self.view, html)
        write_xlsx(assessed, xlsx, self.view)
        for partial, name in zip((html, xlsx), PORTFOLIO_FILES, strict=True):
            os.replace(partial, self.drop.outbox / name)
        logs.log("portfolio report written", stage=LOG_STAGE, batch_id=None, documents=len(portfolio.documents))

    def _in_flight(self) -> bool:
        with session_scope(self.url, write=False) as session:
            return bool(ledger.open_rows(session, self.drop.work_prefix))

    # --- restart ------------------------------------------------------------------------------

    def reconcile(self) -> None:
        """Pick up where a killed watcher stopped: claims without a row get one, batches
        assigned but not submitted are submitted (or linked, if the batch was created)."""
        with session_scope(self.url, write=False) as session:
            known = ledger.work_paths(session, self.drop.work_prefix)
        for token in _folders(self.drop.work):
            self._record([(self.drop.name_in_work(path), path, self.drop.refusal_in_work(path))
                          for path in _entries(token) if str(path) not in known])
            _remove_empty_folders(token, self.drop.work, below_only=False)
        with session_scope(self.url, write=False) as session:
            interrupted = {batch_id: (rows, ledger.batch_exists(session, batch_id))
                           for batch_id, rows in ledger.batches_to_submit(session, self.drop.work_prefix).items()}
        for batch_id, (rows, created) in interrupted.items():
            if created:
                with session_scope(self.url) as session:
                    ledger.link_documents(session, batch_id)
            else:
                self._submit(batch_id, rows)


@contextlib.contextmanager
def watching(settings: Settings, drop: DropFolder) -> Iterator[tuple[Celery, EmbeddedWorkers | None]]:
    """What a watcher needs for its lifetime: one watcher per outbox (a lock file), the app,
    the embedded workers (embedded mode only) and the recovery sweep."""
    from workers.celery_app import create_app
    from workers.lifecycle import EmbeddedWorkers
    from workers.recovery import SweepLoop, stall_limit, sweep

    drop.check()
    with open(drop.outbox / ".watch.lock", "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"another clausemill watch is running on {drop.outbox}") from None
        app = create_app(settings)
        with EmbeddedWorkers(settings) if settings.embedded else contextlib.nullcontext() as workers, \
                SweepLoop(app, settings):
            if workers is not None:
                # The embedded workers start from an empty queue folder, so every document a
                # killed watcher left under way has lost its messages: send them again now, not
                # once each has sat out its stage's stall limit (minutes; 11 for extraction).
                # A sweep that looks from past the longest limit takes them all for stalled.
                horizon = max(stall_limit(settings, spec.stage) for spec in STAGES)
                resent = sweep(app, settings, now=utcnow() + horizon).resent
                if resent:
                    logs.log("documents under way before the restart re-sent", stage=LOG_STAGE, batch_id=None,
                             documents=len(resent))
            yield app, workers


# --- file helpers -------------------------------------------------------------------------------

def _real_folders(top: Path, parts: tuple[str, ...], *, missing_ok: bool) -> bool:
    """No folder on the way from `top` down `parts` is a symbolic link or a file (one not there
    yet counts as a folder when `missing_ok`): the watcher never reaches out of the inbox, nor
    writes where a link points that was dropped as "x" and lies in failed/ when "x/y" comes."""
    folder = top
    for part in parts:
        folder = folder / part
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                return False
        except FileNotFoundError:
            return missing_ok
        except OSError:
            return False
    return True


def _move_without_overwriting(source: Path, target: Path) -> bool:
    """Move `source` to `target` unless another file is there; True once `source` is at
    `target` (also when a crash left it at both, or already moved it)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if not os.path.lexists(source):
        return True  # moved before a crash; or removed by hand, and then there is nothing to move
    try:
        os.link(source, target, follow_symlinks=False)  # fails rather than replace what is there
    except FileExistsError:
        if not os.path.samestat(os.lstat(source), os.lstat(target)):
            return False
    except OSError:  # a file system without hard links
        if os.path.lexists(target):
            return False
        os.rename(source, target)
        return True
    os.unlink(source)
    return True


def _write_json_atomically(path: Path, record: dict) -> None:
    """Written beside under a short name of its own, then renamed in, so no reader sees half a
    record; `path`'s name plus a suffix could be too long for the file system."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{uuid.uuid4().hex}.partial")
    try:
        partial.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _original_entry(original: IntakeFile) -> dict:
    return {"file": original.name, "outcome": original.outcome_path, "batch": original.batch_id,
            "document": original.document_id, "intake": original.id}


def _folders(folder: Path) -> list[Path]:
    try:
        return sorted(Path(e.path) for e in os.scandir(folder) if e.is_dir(follow_symlinks=False))
    except FileNotFoundError:
        return []


def _entries(top: Path) -> list[Path]:
    """Everything below `top` that is not a folder (symbolic links included, not followed)."""
    found = []
    for folder, dirs, files in os.walk(top, followlinks=False):
        found += [Path(folder) / name for name in files]
        found += [Path(folder) / name for name in dirs if os.path.islink(Path(folder) / name)]
    return found


def _remove_empty_folders(folder: Path, stop_at: Path, below_only: bool = True) -> None:
    """Remove `folder` and its empty parents up to `stop_at` (a claim's work folder, once
    its file left); with below_only=False, also empty folders inside it."""
    if not below_only:
        for inner, _dirs, _files in sorted(os.walk(folder, followlinks=False), key=lambda w: -len(w[0])):
            with contextlib.suppress(OSError):
                os.rmdir(inner)
    while folder != stop_at and folder.is_relative_to(stop_at):
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = folder.parent
