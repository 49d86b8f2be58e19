"""The drop-folder watcher as a process: `clausemill watch INBOX --out OUTBOX`.

One loop does everything that changes files or the ledger, one step a module, so each step can
be reasoned about alone: find candidates (file-system events from `watchfiles`, plus a full
rescan every `watch_rescan_s`, because events get lost: inotify overflows, network shares raise
none), claim the stable ones (claim.py: rename into the work folder; record.py: then a ledger
row), group claimed files into batches (submit.py), move files whose documents ended to their
outbox folder (place.py), write reports (report.py).  Events only say where to look: every
decision is made from lstat and the ledger.

Exactly once rests on three things: the claim (a rename, atomic, so a file is taken by one
watcher once), the ledger's conditional updates (storage/intake.py) with a step written down
before it is done (batch before submission, destination before the move), and the recovery
sweep for messages lost with a broker or worker.  `reconcile` runs at start: it records claims
a kill cut short and finishes interrupted submissions; interrupted moves finish by themselves,
since a row knows its destination.

One file never stops the others: what goes wrong with one file (its name, its bytes, its place
in the outbox) ends that file in failed/ or under another name, and only an outage, as
`rules.is_outage` tells them apart, stops a step until it is tried again.
"""
from __future__ import annotations

import contextlib
import fcntl
import logging
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from celery import Celery
from kombu.exceptions import OperationalError as BrokerError
from sqlalchemy.exc import SQLAlchemyError

from pipelines import logs
from pipelines.intake.claim import Sightings, candidate, claim_stable, scan
from pipelines.intake.context import LOG_STAGE, Context
from pipelines.intake.place import end_finished_documents, end_without_batch
from pipelines.intake.record import record_claims, record_leftover_claims
from pipelines.intake.report import ReportsDue, write_reports
from pipelines.intake.rules import DropFolder, Signature
from pipelines.intake.submit import submit_due, submit_interrupted
from pipelines.liveness import LivenessFile, Process
from pipelines.settings import Settings
from storage.schema import utcnow

if TYPE_CHECKING:
    from workers.lifecycle import EmbeddedWorkers

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


class Watcher:
    """The loop over one drop folder.  `run` returns once `stop` is set."""

    def __init__(self, settings: Settings, drop: DropFolder, app: Celery, *, poll: bool, options: dict,
                 view: str, embedded_workers: EmbeddedWorkers | None = None) -> None:
        self.context = Context.of(settings, drop)
        self.app, self.poll, self.options, self.view = app, poll, options, view
        self.embedded_workers = embedded_workers
        self._sightings: Sightings = {}
        self._unclaimable: dict[Path, Signature] = {}  # logged once per version of the file
        self._events: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._stop_events = threading.Event()
        self._rescan_asked = threading.Event()  # by the events thread, for what it may have missed
        self._next_rescan = 0.0
        self._reports_due = ReportsDue()
        self._stop = threading.Event()
        self._heartbeat = LivenessFile(settings.data_dir, Process.WATCHER)  # `clausemill health watcher` reads it

    def run(self, stop: threading.Event) -> None:
        """Steps that fail on an outage are tried again; a claim whose row could not be written
        then waits in the work folder for the reconcile that follows the outage."""
        self._stop = stop
        self._heartbeat.beat()
        self.reconcile()
        events = threading.Thread(target=self._watch_events, name="inbox-events", daemon=True)
        events.start()
        reconcile_due = False
        try:
            while not stop.is_set():
                self._heartbeat.beat()  # every turn of the loop, outages included: the loop still turns
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
        """One round of every step, in the order a file goes through them."""
        context, inbox = self.context, self.context.drop.inbox
        self._take_events()
        if now >= self._next_rescan or self._rescan_asked.is_set():
            self._rescan_asked.clear()
            scan(self._sightings, inbox, inbox)
            self._next_rescan = now + context.settings.watch_rescan_s
        record_claims(context, claim_stable(context, self._sightings, self._unclaimable, now, self._stop))
        self._reports_due.files_ended(end_without_batch(context))
        submit_due(context, self.app, self.options)
        self._reports_due.files_ended(end_finished_documents(context))
        write_reports(context, self._reports_due, now, options=self.options, view=self.view)
        if self.embedded_workers is not None and (revived := self.embedded_workers.revive()):
            logs.log("embedded worker restarted", stage=LOG_STAGE, batch_id=None, level=logging.WARNING,
                     workers=revived)

    def reconcile(self) -> None:
        """Pick up where a killed watcher stopped: claims without a row get one, batches
        assigned but not submitted are submitted (or linked, if the batch was created)."""
        record_leftover_claims(self.context)
        submit_interrupted(self.context, self.app, self.options)

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
                for changes in watchfiles.watch(self.context.drop.inbox, watch_filter=None,
                                                stop_event=self._stop_events,
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
            candidate(self._sightings, self.context.drop.inbox, path)


@contextlib.contextmanager
def watching(settings: Settings, drop: DropFolder) -> Iterator[tuple[Celery, EmbeddedWorkers | None]]:
    """What a watcher needs for its lifetime: one watcher per outbox (a lock file), the app,
    the embedded workers (embedded mode only) and the recovery sweep."""
    from workers.celery_app import create_app
    from workers.lifecycle import EmbeddedWorkers
    from workers.recovery import SweepLoop, sweep

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
                # once each has gone without a heartbeat for the stall limit.  A sweep that
                # looks from past that limit takes them all for stalled.
                resent = sweep(app, settings, now=utcnow() + settings.stall_after).resent
                if resent:
                    logs.log("documents under way before the restart re-sent", stage=LOG_STAGE, batch_id=None,
                             documents=len(resent))
            yield app, workers
