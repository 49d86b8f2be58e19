"""A nightly run, from its window to its report: claimed once, audited incrementally, reported once.

These are the steps both `clausemill nightly` (one run now) and the scheduler's tasks
(pipelines/nightly/beat.py) take; apart from beat, so that a run by hand needs no beat, lock
or schedule queue.

  - the claim is the ScheduleRun row, unique per (schedule, window): whoever inserts it runs
    the window, a late or second attempt finds it and does nothing;
  - ending a run is a conditional UPDATE, so one process writes the reports and notifies.

A window whose run finds the previous run still going is recorded `skipped` (with the
reason) rather than stacked on it.  A night missed within 24 hours runs once (the row says it
ran); an older one is recorded `skipped` and not replayed.  A crash leaves nothing lost: the
row and the batch are written in one transaction, the recovery sweep re-sends stalled
documents, and `finish_ready_runs` completes any run whose batch ended.
"""
from __future__ import annotations

import hashlib
import logging
import os
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from celery import Celery

from pipelines import logs
from pipelines.assessment import Assessed
from pipelines.datamodel import BatchOrigin, BatchResult, BatchStatus, RunState, SkipReason
from pipelines.deadlines import upcoming_deadlines
from pipelines.nightly.cron import Cron, catch_up, zone
from pipelines.nightly.deltas import NightlyReport, compare_runs, write_nightly_report
from pipelines.nightly.incremental import AuditVersions, Plan, audit_versions, plan_batch, refresh_fingerprints
from pipelines.nightly.webhook import WebhookError, notify
from pipelines.playbook import Playbook
from pipelines.producer import document_canvas, pin_clause_types
from pipelines.reported import load_reported
from pipelines.settings import Settings
from pipelines.utc import as_utc, to_naive_utc
from storage import history, repository, retention
from storage.database import session_scope

LOG_STAGE = "schedule"
LATEST = "latest"
"""Beside the runs' report folders, the link to the last one written."""


# --- what a nightly run audits -----------------------------------------------------------

@dataclass(frozen=True)
class NightlyJob:
    """The contract repository a nightly run audits, and how."""

    paths: tuple[Path, ...]
    options: dict = field(default_factory=dict)  # batch options: view, playbook text
    full: bool = False

    @property
    def schedule(self) -> str:
        """The history a run belongs to: runs over the same paths are compared with each other,
        whether started by the scheduler or by `clausemill nightly`."""
        named = "\n".join(sorted(str(p.resolve()) for p in self.paths))
        return "nightly-" + hashlib.sha256(named.encode()).hexdigest()[:16]


def nightly_paths(settings: Settings) -> tuple[Path, ...]:
    """CLAUSEMILL_NIGHTLY_PATHS, separated like PATH."""
    return tuple(Path(p).expanduser() for p in settings.nightly_paths.split(os.pathsep) if p.strip())


@dataclass(frozen=True)
class Started:
    """What starting a window's run did."""

    run_id: int | None
    state: RunState | None  # None: the window was already claimed, nothing was done
    window_start: datetime
    batch_id: str | None = None
    reason: str | None = None
    plan: Plan | None = None


@dataclass(frozen=True)
class Finished:
    """A run this process ended: where its reports are and how the notification went."""

    run_id: int
    report: NightlyReport
    out: Path
    written: list[Path]
    webhook_error: str | None = None
    reports_error: str | None = None


# --- starting a run ------------------------------------------------------------------------

def run_folder(out: Path, window_local: datetime) -> Path:
    """Where one run's reports go: a folder of its own under `out`, named for its window in local
    time (2026-12-20_0200), so no run overwrites another's; a second run in the same minute (by
    hand) gets "-2"."""
    folder = out / f"{window_local:%Y-%m-%d_%H%M}"
    n = 2
    while folder.exists():
        folder, n = out / f"{window_local:%Y-%m-%d_%H%M}-{n}", n + 1
    return folder


def point_latest(latest: Path, folder: Path) -> None:
    """`latest` (beside the runs' folders) now leads to `folder`: a relative link, replaced in
    one rename, so a reader never finds it missing."""
    staged = latest.with_name(f".{latest.name}.{uuid.uuid4().hex[:8]}")
    os.symlink(folder.name, staged)
    os.replace(staged, latest)


def start_run(app: Celery, settings: Settings, job: NightlyJob, *, window_start: datetime, trigger: str,
              out: Path) -> Started:
    """Claim the window and plan its incremental audit: the batch holds every contract found,
    the already-audited ones carry their results over; `send_planned` sends the rest.  Its
    reports go to a folder of its own under `out` (run_folder), and `out`/latest leads to the
    last one written."""
    from pipelines.inputs import collect_inputs

    window = to_naive_utc(window_start)
    folder = run_folder(out, as_utc(window).astimezone(zone(settings.timezone)))
    summary = {"trigger": trigger, "out": str(folder.resolve()), "latest": str(out.resolve() / LATEST),
               "paths": [str(p) for p in job.paths]}
    try:
        inputs = collect_inputs(job.paths)
        problem = None if inputs else f"no .pdf, .txt or .docx files found in {', '.join(map(str, job.paths))}"
    except OSError as error:
        inputs, problem = [], str(error)
    if problem:
        return _record_without_batch(settings, job, window, RunState.FAILED, problem, summary)
    with session_scope(settings.effective_database_url, write=False) as session:
        options = pin_clause_types(session, settings, job.options)
    versions = audit_versions(settings, options)
    batch_id = f"nightly-{window:%Y%m%dT%H%M}-{uuid.uuid4().hex[:6]}"
    summary["versions"] = versions.to_dict()
    with session_scope(settings.effective_database_url) as session:
        run = history.claim_window(session, job.schedule, window, batch_id=batch_id, summary=summary)
        if run is None:
            return Started(None, None, window)
        repository.create_batch(session, batch_id, inputs, options, BatchOrigin.NIGHTLY)
        run_id = run.id
    plan = plan_batch(settings, batch_id, versions, full=job.full)
    with session_scope(settings.effective_database_url) as session:
        history.update_summary(session, run_id, audited=plan.to_dict())
    logs.log("nightly run planned", stage=LOG_STAGE, batch_id=batch_id, schedule=job.schedule, trigger=trigger,
             window_start=window.isoformat(), **plan.to_dict())
    return Started(run_id, RunState.RUNNING, window, batch_id, plan=plan)


def send_planned(app: Celery, settings: Settings, started: Started) -> None:
    """Send the documents the plan re-audits through the DAG; a batch with none ends now.
    Apart from `start_run`, so that the plan is recorded (and shown) before a document moves."""
    if started.plan is None or started.batch_id is None:
        return
    for document_id in started.plan.to_send:
        document_canvas(app, document_id).apply_async()
    if not started.plan.to_send:
        with session_scope(settings.effective_database_url) as session:
            repository.finalize_batch_if_complete(session, started.batch_id)


def start_scheduled(app: Celery, settings: Settings, job: NightlyJob, cron: Cron, out: Path,
                    now: datetime | None = None) -> Started:
    """The beat entry's work: run the current window unless it is claimed, too old to catch
    up, or the previous run still holds the schedule (then the skip is recorded)."""
    now = now or datetime.now(UTC)
    window = cron.latest_window(now)
    with session_scope(settings.effective_database_url, write=False) as session:
        claimed = history.run_for_window(session, job.schedule, to_naive_utc(window)) is not None
    if claimed:
        logs.log("nightly window already claimed", stage=LOG_STAGE, batch_id=None, schedule=job.schedule,
                 window_start=window.isoformat())
        return Started(None, None, to_naive_utc(window))
    finish_ready_runs(settings, job.schedule)
    summary = {"trigger": "schedule", "cron": cron.expression, "timezone": cron.timezone_name}
    with session_scope(settings.effective_database_url, write=False) as session:
        running = [r for r in history.open_runs(session, job.schedule) if r.still_running]
        first_ever = not history.runs(session, job.schedule)
    if not catch_up(window, now):
        hours = (now - window).total_seconds() / 3600
        reason = (f"the window of {cron.local(window):%Y-%m-%d %H:%M %Z} was missed by {hours:.0f} h; "
                  "only a run missed within 24 h is caught up")
        if first_ever:  # a new schedule missed nothing: its first run is at its next window
            logs.log("first window is at the next start", stage=LOG_STAGE, batch_id=None, schedule=job.schedule,
                     next_window=cron.next_window(now).isoformat())
            return Started(None, None, to_naive_utc(window))
        return _record_without_batch(settings, job, window, RunState.SKIPPED, reason,
                                     {**summary, "skip": SkipReason.MISSED.value})
    if running:
        previous = running[-1]
        reason = (f"the previous run (window {cron.local(previous.window_start):%Y-%m-%d %H:%M %Z}, batch "
                  f"{previous.batch_id}) is still running")
        return _record_without_batch(settings, job, window, RunState.SKIPPED, reason,
                                     {**summary, "skip": SkipReason.OVERLAP.value})
    started = start_run(app, settings, job, window_start=window, trigger="schedule", out=out)
    if started.state is None:
        logs.log("nightly window already claimed", stage=LOG_STAGE, batch_id=None, schedule=job.schedule,
                 window_start=window.isoformat())
    send_planned(app, settings, started)
    return started


def _record_without_batch(settings: Settings, job: NightlyJob, window: datetime, state: RunState, reason: str,
                          summary: dict) -> Started:
    """A window that ends without a batch (skipped, or failed before one): recorded, claimed
    like any run, and notified."""
    window = to_naive_utc(window)
    with session_scope(settings.effective_database_url) as session:
        run = history.claim_window(session, job.schedule, window, state=state, reason=reason, summary=summary)
        run_id = run.id if run else None
    if run_id is None:
        return Started(None, None, window)
    logs.log(f"nightly run {state}", stage=LOG_STAGE, batch_id=None, level=logging.WARNING, schedule=job.schedule,
             window_start=window.isoformat(), reason=reason)
    payload = {**_payload_head(job.schedule, window, state, reason, None), "trigger": summary.get("trigger")}
    _notify_and_record(settings, run_id, payload)
    return Started(run_id, state, window, reason=reason)


# --- finishing a run -----------------------------------------------------------------------

def finish_ready_runs(settings: Settings, schedule: str | None = None) -> list[Finished]:
    """End every running run (of one schedule, or all) whose batch has ended; one whose batch
    was deleted ends `failed`, so it cannot hold the schedule for ever."""
    with session_scope(settings.effective_database_url, write=False) as session:
        runs = history.open_runs(session, schedule)
    if lost := [r for r in runs if r.batch_status is None]:
        with session_scope(settings.effective_database_url) as session:
            for run in lost:
                history.end_run(session, run.id, RunState.FAILED, reason=f"its batch {run.batch_id} no longer exists")
    ready = [r.id for r in runs if r.batch_done]
    return [finished for run_id in ready if (finished := finish_run(settings, run_id)) is not None]


def finish_run(settings: Settings, run_id: int, *, as_of: date | None = None,
               now: datetime | None = None) -> Finished | None:
    """Report a run whose batch ended: the batch reports and the nightly report in its folder,
    then the webhook.  None when the batch still runs or another process ended the run."""
    url = settings.effective_database_url
    now = now or datetime.now(UTC)
    with session_scope(url, write=False) as session:
        run = history.get_run(session, run_id)
        if run.state is not RunState.RUNNING or run.batch_id is None:
            return None
        if repository.batch_status(session, run.batch_id) is not BatchStatus.DONE:
            return None
        schedule, window, batch_id, summary = run.schedule, run.window_start, run.batch_id, dict(run.summary or {})
        previous = history.previous_done_run(session, schedule, window)
        previous_batch, previous_window = (previous.batch_id, previous.window_start) if previous else (None, None)
    if "versions" in summary:
        refresh_fingerprints(settings, batch_id, AuditVersions(**summary["versions"]))
    tz = zone(settings.timezone)
    current, batch, playbook, options = _assessed(settings, batch_id)
    earlier = _assessed(settings, previous_batch)[0] if previous_batch else None
    delta = compare_runs(current, earlier)
    as_of = as_of or now.astimezone(tz).date()
    report = NightlyReport(
        run={"schedule": schedule, "trigger": summary.get("trigger", "schedule"),
             "trigger_label": "Scheduled run" if summary.get("trigger") == "schedule" else "Run by hand",
             "window_start": window.isoformat(), "when": _local(window, tz), "batch_id": batch_id,
             "previous_batch_id": previous_batch, "previous_when": _local(previous_window, tz) if previous_window else None,
             "timezone": settings.timezone, "paths": summary.get("paths", [])},
        audited=summary.get("audited") or {"documents": len(current), "re_audited": len(current), "unchanged": 0,
                                           "carried": 0, "full": False},
        delta=delta, deadlines=upcoming_deadlines(current, as_of), as_of=as_of, generated_at=now.astimezone(tz),
    )
    out = Path(summary.get("out") or ".")
    ended = {**summary, "changes": delta.counts(), "deadlines": report.deadline_counts(), "previous_batch": previous_batch}
    with session_scope(url) as session:
        if not history.end_run(session, run_id, RunState.DONE, ended):
            return None
    logs.log("nightly run done", stage=LOG_STAGE, batch_id=batch_id, schedule=schedule, **delta.counts())
    written: list[Path] = []
    reports_error = None
    try:
        from pipelines.reports import write_reports

        written = write_reports(batch, out, view=options.get("view", "full"), playbook=playbook,
                                assessments={doc.id: a for doc, a in current if a is not None}, as_of=as_of)
        written += write_nightly_report(report, out)
        if summary.get("latest"):
            point_latest(Path(summary["latest"]), out)
    except OSError as error:
        reports_error = f"cannot write the reports to {out}: {error}"
        logs.log("nightly reports not written", stage=LOG_STAGE, batch_id=batch_id, level=logging.ERROR, error=reports_error)
    payload = {**_payload_head(schedule, window, RunState.DONE, reports_error, batch_id),
               "trigger": summary.get("trigger"), "documents": report.audited, "changes": delta.counts(),
               "deadlines": report.deadline_counts(), "reports": str(out), "previous_batch": previous_batch}
    webhook_error = _notify_and_record(settings, run_id, payload, reports_error=reports_error)
    retention.after_run(settings, run_id)  # keeps the last CLAUSEMILL_KEEP_RUNS runs' details
    return Finished(run_id, report, out, written, webhook_error, reports_error)


def _assessed(settings: Settings, batch_id: str) -> tuple[list[Assessed], BatchResult, Playbook, dict]:
    """A batch's documents as its reports show them (reviewers' decisions applied), its
    playbook and options."""
    with session_scope(settings.effective_database_url, write=False) as session:
        reported = load_reported(session, batch_id, settings.analysers)
    return reported.assessed(), reported.batch, reported.playbook, reported.options


def _local(moment: datetime, tz: Any) -> str:
    return moment.replace(tzinfo=UTC).astimezone(tz).strftime("%Y-%m-%d %H:%M %Z")


# --- the notification ----------------------------------------------------------------------

def _payload_head(schedule: str, window: datetime, state: RunState, reason: str | None, batch_id: str | None) -> dict:
    return {"event": "clausemill.nightly.run_ended", "schedule": schedule, "window_start": window.isoformat() + "Z",
            "state": str(state), "reason": reason, "batch_id": batch_id}


def _notify_and_record(settings: Settings, run_id: int, payload: dict, **extra: object) -> str | None:
    error = None
    try:
        notify(settings, payload)
    except WebhookError as failure:
        error = str(failure)
        logs.log("webhook failed", stage=LOG_STAGE, batch_id=payload.get("batch_id"), level=logging.ERROR, error=error)
    if settings.webhook_url:
        with session_scope(settings.effective_database_url) as session:
            history.update_summary(session, run_id, webhook={"delivered": error is None, "error": error}, **extra)
    return error
