"""Nightly audits: the schedule's windows and DST, the webhook, deadlines on contracts whose
dates are known, incremental runs with real embedded workers, and real schedulers on one
PostgreSQL + Redis (one run per window, an overlapping run skipped)."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from icalendar import Calendar
from sqlalchemy import func, select

from conftest import REPO, WorkerProcess, free_port, log_tail, processes_using, run_cli, sqlite_url, wait_until
from pipelines.aggregate import aggregate_document
from pipelines.assessment import DocumentAssessment
from pipelines.dag import Stage
from pipelines.datamodel import BatchOrigin, DocumentResult, DocumentStatus, RunState
from pipelines.deadlines import deadline_for
from pipelines.nightly.beat import NightlySchedule
from pipelines.nightly.cron import Cron, ScheduleError, catch_up
from pipelines.nightly.webhook import WebhookError, notify
from pipelines.playbook import load_playbook
from pipelines.review.queue import decide
from pipelines.samples import SyntheticContract, generate_contract, write_txt
from pipelines.settings import Settings
from storage import history, metrics_queries, repository, schema
from storage.database import session_scope
from workers.outcome import Fail, Limits, outcome

# Contracts whose dates the rule pack reads exactly (checked first in each test that relies
# on it): automatic renewals with a notice period, and two whose term simply ends.
RENEWING = (6, 10, 14, 38)
ENDING = (36, 21)
QUIET = {"CLAUSEMILL_MODEL_ENABLED": "false", "CLAUSEMILL_RECOVERY_INTERVAL_S": "5"}


# --- the schedule --------------------------------------------------------------------------

def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(("month_start", "month_end"), [(utc(2026, 3, 1), utc(2026, 4, 1)), (utc(2026, 10, 1), utc(2026, 11, 1))])
def test_a_nightly_schedule_fires_once_every_night_across_a_dst_change(month_start: datetime, month_end: datetime) -> None:
    cron = Cron("30 2 * * *", "Europe/Berlin")
    windows = cron.windows(month_start, month_end)
    local_days = [cron.local(w).date() for w in windows]
    assert len(windows) == len(set(local_days)) == (month_end - month_start).days
    times = Counter(cron.local(w).strftime("%H:%M") for w in windows)
    if month_start.month == 3:  # 29 March: 02:30 does not exist, the run is at 03:00 CEST, right after the jump
        assert times == {"02:30": 30, "03:00": 1}
        assert cron.local(windows[28]).isoformat() == "2026-03-29T03:00:00+02:00"
    else:  # 25 October: 02:30 happens twice, the run is at the first (CEST)
        assert times == {"02:30": 31}
        assert cron.local(windows[24]).isoformat() == "2026-10-25T02:30:00+02:00"


def test_is_due_under_frozen_time_across_dst() -> None:
    cron = Cron("30 2 * * *", "Europe/Berlin")

    def due(now: datetime, last_run_at: datetime) -> tuple[bool, float]:
        state = NightlySchedule(cron, nowfun=lambda: now).is_due(last_run_at)
        return state.is_due, state.next

    spring_last = utc(2026, 3, 28, 1, 30, 5)  # ran at 02:30 CET on the 28th
    assert due(utc(2026, 3, 29, 0, 59), spring_last) == (False, 60.0)  # 01:59 CET: the clock jumps in a minute
    assert due(utc(2026, 3, 29, 1, 0), spring_last) == (True, 23.5 * 3600)  # 03:00 CEST; next 02:30 CEST tomorrow
    assert due(utc(2026, 3, 29, 1, 30), utc(2026, 3, 29, 1, 0, 5)) == (False, 23 * 3600)
    autumn_last = utc(2026, 10, 24, 0, 30, 5)
    assert due(utc(2026, 10, 25, 0, 30), autumn_last)[0] is True  # 02:30 CEST, the first time
    repeat = due(utc(2026, 10, 25, 1, 30), utc(2026, 10, 25, 0, 30, 5))  # 02:30 CET, the second time
    assert repeat == (False, 24 * 3600)  # not again: next at 02:30 CET on the 26th
    assert cron.next_window(utc(2026, 10, 25, 1, 30)) == utc(2026, 10, 26, 1, 30)
    assert due(utc(2026, 10, 26, 1, 30), utc(2026, 10, 25, 0, 30, 5))[0] is True


def test_the_schedule_reads_crontab_5_not_celerys_crontab() -> None:
    june = (utc(2026, 6, 1), utc(2026, 7, 1))
    # Minute first, hour second.
    assert {cron.local(w).strftime("%H:%M") for cron in [Cron("5 2 * * *", "UTC")] for w in cron.windows(*june)} == {"02:05"}
    # A day of week alone fires once that day (Celery's crontab(day_of_week=1) would fire every minute).
    mondays = Cron("0 2 * * 1", "UTC").windows(*june)
    assert [w.day for w in mondays] == [1, 8, 15, 22, 29] and all(w.hour == 2 and w.minute == 0 for w in mondays)
    # Sunday is 7 as well as 0.
    sundays = Cron("0 2 * * 7", "UTC").windows(*june)
    assert sundays == Cron("0 2 * * 0", "UTC").windows(*june) and {w.weekday() for w in sundays} == {6}
    # Day of month and day of week both restricted: either matches, as cron(8) does.
    first_or_friday = {w.date() for w in Cron("0 2 1 * 5", "UTC").windows(*june)}
    assert first_or_friday == {june[0].date() + timedelta(days=n) for n in range(30)
                               if n == 0 or (june[0] + timedelta(days=n)).weekday() == 4}
    assert len(Cron("@daily", "UTC").windows(*june)) == 30


@pytest.mark.parametrize(("expression", "zone", "message"), [
    ("0 2 * *", "UTC", "must have five fields"),
    ("0 2 * * * *", "UTC", "must have five fields"),
    ("61 2 * * *", "UTC", "not valid crontab(5) syntax"),
    ("0 0 30 2 *", "UTC", "never fires"),
    ("0 2 * * *", "Europe/Berln", "time zone 'Europe/Berln' is not known"),
])
def test_a_bad_schedule_is_refused_with_the_reason(expression: str, zone: str, message: str) -> None:
    with pytest.raises(ScheduleError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Cron(expression, zone)


def test_a_missed_night_is_caught_up_within_24_hours_only() -> None:
    window = utc(2026, 12, 1, 2, 0)
    assert catch_up(window, utc(2026, 12, 1, 2, 0))
    assert catch_up(window, utc(2026, 12, 2, 2, 0))
    assert not catch_up(window, utc(2026, 12, 2, 2, 1))


def test_a_missed_night_runs_once_when_the_scheduler_starts_and_older_ones_are_not_replayed(tmp_path: Path) -> None:
    """The beat entry's decisions under frozen time, on real storage; no worker, so a run that
    starts stays running."""
    from pipelines.nightly.runs import NightlyJob, start_scheduled
    from workers.celery_app import create_app
    from workers.lifecycle import reset_embedded_broker

    settings = Settings(data_dir=tmp_path / "data", model_enabled=False)
    settings.data_dir.mkdir()
    reset_embedded_broker(settings)
    app, out = create_app(settings), tmp_path / "out"
    daily_job, weekly_job = NightlyJob((small_repo(tmp_path / "a"),)), NightlyJob((small_repo(tmp_path / "b"),))
    daily, weekly = Cron("0 2 * * *", "Europe/Berlin"), Cron("0 2 * * 1", "Europe/Berlin")

    def states(job: NightlyJob) -> list[str]:
        with session_scope(settings.effective_database_url, write=False) as session:
            return [str(r.state) for r in history.runs(session, job.schedule)]

    # Tuesday 11:00 Berlin: the night (02:00, 9 h ago) was missed and is caught up, once.
    started = start_scheduled(app, settings, daily_job, daily, out, now=utc(2026, 12, 8, 10))
    assert started.state is RunState.RUNNING and started.plan and len(started.plan.to_send) == 2
    assert start_scheduled(app, settings, daily_job, daily, out, now=utc(2026, 12, 8, 10, 5)).state is None
    assert states(daily_job) == ["running"]
    # The next night finds that run still going: skipped, and the skip recorded.
    skipped = start_scheduled(app, settings, daily_job, daily, out, now=utc(2026, 12, 9, 1, 0, 30))
    assert skipped.state is RunState.SKIPPED and skipped.reason.startswith("the previous run (window 2026-12-08 02:00 CET")
    with session_scope(settings.effective_database_url, write=False) as session:
        assert metrics_queries.skipped_runs(session) == {"overlap": 1}  # the closed set metrics label it with
    # Down from then until Monday noon: Monday's night is decided, the nights between are not replayed.
    late = start_scheduled(app, settings, daily_job, daily, out, now=utc(2026, 12, 14, 11))
    assert late.window_start == datetime(2026, 12, 14, 1, 0) and states(daily_job) == ["running", "skipped", "skipped"]

    # A new weekly schedule started on a Thursday missed nothing: no row, its first run is on Monday.
    assert start_scheduled(app, settings, weekly_job, weekly, out, now=utc(2026, 12, 3, 12)).state is None
    assert states(weekly_job) == []
    assert start_scheduled(app, settings, weekly_job, weekly, out, now=utc(2026, 12, 7, 10)).state is RunState.RUNNING
    # Down for a week and a half: Monday the 14th's window is 83 h old on Thursday, too old to catch up.
    old = start_scheduled(app, settings, weekly_job, weekly, out, now=utc(2026, 12, 17, 12))
    assert old.state is RunState.SKIPPED and old.window_start == datetime(2026, 12, 14, 1, 0)
    assert old.reason == ("the window of 2026-12-14 02:00 CET was missed by 83 h; "
                          "only a run missed within 24 h is caught up")
    assert states(weekly_job) == ["running", "skipped"]


# --- deadlines on contracts whose dates are known ------------------------------------------

def expected_deadline(contract: SyntheticContract, as_of: date) -> tuple[str, date] | None:
    """The deadline as the contract's own terms give it, computed from the generator's values:
    an automatic renewal rolls the term on, and its deadline is the notice date, or the renewal
    itself once that has passed; a term that does not renew by itself just ends."""
    end = contract.expiration_date
    renews = contract.renewal is not None and contract.renewal.automatic
    while end < as_of:
        if not renews:
            return None  # ended, and it does not renew by itself
        end = end.replace(year=end.year + contract.renewal.term_years)
    notice = end - timedelta(days=contract.notice_days or 0)
    if not renews:
        kind, due = "term-end", end
    elif contract.notice_days and notice >= as_of:
        kind, due = "renewal-notice", notice
    else:
        kind, due = "renewal", end  # its notice window has closed (or it needs none)
    return (kind, due) if (due - as_of).days <= 90 else None


def assess_txt(contract: SyntheticContract, folder: Path) -> tuple[DocumentResult, DocumentAssessment]:
    """The contract as a .txt file, read and assessed by the pipeline's own stages."""
    from pipelines.stages.extract import extract_text_layer
    from pipelines.stages.segment import segment_document
    from pipelines.steps import rules_analyser

    path = folder / f"contract-{contract.seed}.txt"
    write_txt(contract, path)
    pages = extract_text_layer(path, "txt")
    text = "\n\n".join(p.text for p in pages)
    assessment = aggregate_document(rules_analyser(text, segment_document(pages)), load_playbook(None), len(pages))
    terms = assessment.key_terms
    assert terms["Expiration Date"].value == contract.expiration_date.isoformat(), f"seed {contract.seed}: rules misread the expiry"
    if contract.notice_days:
        assert terms["Notice Period To Terminate Renewal"].value == f"P{contract.notice_days}D", contract.seed
    document = DocumentResult(id=contract.seed, filename=path.name, path=str(path), status=DocumentStatus.DONE)
    return document, assessment


def test_deadlines_on_synthetic_contracts_match_their_known_dates(tmp_path: Path) -> None:
    contracts = [generate_contract(seed) for seed in RENEWING + ENDING]
    assessed = [(c, *assess_txt(c, tmp_path)) for c in contracts]
    as_of_dates = [date(2026, 12, 20), date(2027, 1, 10), date(2026, 3, 1), date(2024, 9, 1)]
    notice_days = [expected_deadline(c, date(2027, 1, 30)) for c in contracts]
    as_of_dates += [d for _, d in filter(None, notice_days)]  # the deadline day itself: 0 days left
    as_of_dates += [d - timedelta(days=n) for _, d in filter(None, notice_days) for n in (30, 31, 60, 61, 90, 91)]
    as_of_dates += [d + timedelta(days=1) for _, d in filter(None, notice_days)]  # the notice window just closed
    seen_kinds, seen_horizons = set(), set()
    for as_of in as_of_dates:
        for contract, document, assessment in assessed:
            found = deadline_for(document, assessment, as_of)
            expected = expected_deadline(contract, as_of)
            assert ((found.kind, found.date) if found else None) == expected, (contract.seed, as_of)
            if found:
                days = (found.date - as_of).days
                assert found.days == days and found.horizon == min(h for h in (30, 60, 90) if days <= h)
                assert {e.category for e in found.evidence} >= {"Expiration Date"}
                seen_kinds.add(found.kind)
                seen_horizons.add(found.horizon)
    assert seen_kinds == {"renewal-notice", "renewal", "term-end"} and seen_horizons == {30, 60, 90}


# --- the webhook ---------------------------------------------------------------------------

class Receiver:
    """A real HTTP endpoint on 127.0.0.1 that records POSTed JSON and answers as told."""

    def __init__(self, answers: list[int] | None = None, delay_s: float = 0.0) -> None:
        self.bodies: list[dict] = []
        self.answers = list(answers or [])
        self.delay_s = delay_s
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                time.sleep(receiver.delay_s)
                status = receiver.answers.pop(0) if receiver.answers else 200
                if status == 200:
                    receiver.bodies.append(body)
                self.send_response(status)
                self.end_headers()

            def log_message(self, *_: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/clausemill"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


def webhook_settings(tmp_path: Path, url: str, **fields: object) -> Settings:
    return Settings(**{"data_dir": tmp_path, "webhook_url": url, "webhook_retries": 2, "webhook_timeout_s": 1.0, **fields})


def test_the_webhook_is_retried_then_delivered_once(tmp_path: Path) -> None:
    receiver = Receiver(answers=[503, 500])
    try:
        notify(webhook_settings(tmp_path, receiver.url), {"state": "done", "batch_id": "b1"}, sleep=lambda _: None)
        assert receiver.bodies == [{"state": "done", "batch_id": "b1"}]
    finally:
        receiver.close()


@pytest.mark.parametrize(("answers", "delay_s", "problem", "attempts"), [
    ([404], 0.0, "answered 404 Not Found", 1),  # retrying cannot help
    ([500, 502, 503], 0.0, "answered 503 Service Unavailable", 3),
    ([], 1.5, "no answer within 0.5 s", 3),
])
def test_a_failed_webhook_names_the_url_and_the_problem(tmp_path: Path, answers: list[int], delay_s: float,
                                                        problem: str, attempts: int) -> None:
    receiver = Receiver(answers=answers, delay_s=delay_s)
    waits: list[float] = []
    try:
        with pytest.raises(WebhookError) as failure:
            notify(webhook_settings(tmp_path, receiver.url, webhook_timeout_s=0.5), {"state": "done"}, sleep=waits.append)
    finally:
        receiver.close()
    assert str(failure.value) == f"webhook {receiver.url} failed after {attempts} attempt(s): {problem}"
    assert waits == [0.5, 1.0][:attempts - 1]


def test_an_unreachable_webhook_hides_its_password(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://hook:s3cret@127.0.0.1:{port}/x"
    with pytest.raises(WebhookError) as failure:
        notify(webhook_settings(tmp_path, url, webhook_retries=0), {"state": "done"})
    assert f"webhook http://hook:***@127.0.0.1:{port}/x failed after 1 attempt(s): ConnectError" in str(failure.value)
    assert "s3cret" not in str(failure.value)


def test_failures_that_say_nothing_about_the_file_are_tried_again() -> None:
    import sqlalchemy.exc
    from celery.exceptions import SoftTimeLimitExceeded

    from pipelines.nightly.incremental import retried

    limits = Limits(stage=Stage.EXTRACT, time_limit_s=30, infrastructure_retries=0, pages_pending_retries=0)

    transient = [outcome(SoftTimeLimitExceeded(), 0, limits), outcome(KeyError("x"), 0, limits),
                 outcome(sqlalchemy.exc.OperationalError("select", {}, Exception("gone")), 0, limits)]
    reasons = [o.reason for o in transient if isinstance(o, Fail)]
    assert len(reasons) == 3 and all(retried(r) for r in reasons), reasons
    assert not retried("file is empty (0 bytes)") and not retried("encrypted PDF: a password is needed")


# --- incremental runs with real embedded workers ---------------------------------------------

def nightly(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = run_cli(["nightly", *args], env, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def ics_events(path: Path) -> dict[str, tuple[str, date]]:
    """File name -> (event summary, date), parsed back with icalendar."""
    calendar = Calendar.from_ical(path.read_bytes())
    events = {}
    for event in calendar.walk("VEVENT"):
        description = str(event["DESCRIPTION"])
        filename = Path(description.split("File: ", 1)[1].splitlines()[0]).name
        assert str(event["UID"]).endswith("@clausemill") and event["DTEND"].dt - event["DTSTART"].dt == timedelta(days=1)
        events[filename] = (str(event["SUMMARY"]), event["DTSTART"].dt)
    return events


def expected_events(contracts: dict[str, SyntheticContract], as_of: date) -> dict[str, tuple[str, date]]:
    titles = {"renewal-notice": "Last day for notice of non-renewal", "renewal": "Contract renews",
              "term-end": "Contract term ends"}
    expected = {}
    for name, contract in contracts.items():
        if found := expected_deadline(contract, as_of):
            expected[name] = (f"{titles[found[0]]}: {contract.title}", found[1])
    return expected


def present_findings(url: str, document_id: int) -> Counter[tuple[str, str]]:
    from pipelines.playbook.values import normalize

    with session_scope(url, write=False) as session:
        document = session.get(schema.Document, document_id)
        stored = repository.stored_assessments(session, [document])[document_id]  # a carried one's is its audit's
    assessment = DocumentAssessment.from_dict(stored)
    return Counter((f.finding.category, normalize(f.finding.text[:300])) for f in assessment.present())


def reported_spans(folder: Path, filename: str) -> set[tuple[str, int]]:
    """The (category, start) of each finding report.json shows for the file."""
    report = json.loads((folder / "report.json").read_text())
    doc = next(d for d in report["documents"] if d["filename"] == filename)
    return {(m["finding"]["category"], m["finding"]["start"]) for m in doc["assessment"]["findings"]}


def test_nightly_runs_audit_only_what_changed_and_report_the_delta_and_deadlines(embedded_env: dict[str, str],
                                                                                 tmp_path: Path) -> None:
    env = {**embedded_env, **QUIET}
    repo = tmp_path / "contracts"
    repo.mkdir()
    contracts = {f"contract-{s}.txt": generate_contract(s) for s in RENEWING + ENDING}
    for name, contract in contracts.items():
        write_txt(contract, repo / name)
    as_of = "2026-12-20"
    url = sqlite_url(env)

    first = nightly(env, str(repo), "--out", str(tmp_path / "night-1"), "--as-of", as_of)
    assert "re-audited 6 of 6 documents; 0 unchanged" in first.stdout
    assert "first run over these paths: 6 contracts" in first.stdout

    unreachable = f"http://127.0.0.1:{free_port()}/hooks/legal"
    worker_logs = Path(env["CLAUSEMILL_DATA_DIR"]) / "logs"
    logged = {log.name: log.stat().st_size for log in worker_logs.glob("*-worker.log")}
    assert logged, "the first run's workers wrote no log"
    second = run_cli(["nightly", str(repo), "--out", str(tmp_path / "night-2"), "--as-of", as_of],
                     {**env, "CLAUSEMILL_WEBHOOK_URL": unreachable, "CLAUSEMILL_WEBHOOK_RETRIES": "0"}, timeout=240)
    assert "re-audited 0 of 6 documents; 6 unchanged (nothing to re-audit)" in second.stdout
    assert {log.name: log.stat().st_size for log in worker_logs.glob("*-worker.log")} == logged  # no worker started
    # The notification failed: said with its URL, and the exit status; the reports are written all the same.
    assert second.returncode == 1 and f"webhook {unreachable} failed after 1 attempt(s): ConnectError" in second.stderr
    report = json.loads((tmp_path / "night-2" / "latest" / "nightly.json").read_text())
    assert report["changes"]["counts"] == {"new": 0, "changed": 0, "removed": 0, "unchanged": 6, "findings_appeared": 0,
                                           "findings_vanished": 0, "risk_changes": 0, "review_items_added": 0}
    assert report["audited"] == {"documents": 6, "re_audited": 0, "unchanged": 6, "carried": 6, "full": False,
                                 "hashed": 0}  # no file read: each kept its size and mtime
    events = ics_events(tmp_path / "night-2" / "latest" / "deadlines.ics")
    assert events == expected_events(contracts, date.fromisoformat(as_of)) and len(events) == 4
    assert {d["filename"]: d["horizon"] for d in report["deadlines"]["items"]} == {
        "contract-6.txt": 60, "contract-14.txt": 60, "contract-38.txt": 60, "contract-10.txt": 90}
    assert (tmp_path / "night-2" / "latest" / "report.html").exists() and "Upcoming deadlines" in (tmp_path / "night-2" / "latest" / "nightly.html").read_text()
    with session_scope(url, write=False) as session:
        runs = session.scalars(select(schema.ScheduleRun).order_by(schema.ScheduleRun.id)).all()
        first_batch, second_batch = (run.batch_id for run in runs)
        carried = session.scalars(select(schema.Document).where(schema.Document.batch_id == second_batch)).all()
        sources = {d.id: d for d in session.scalars(select(schema.Document).where(schema.Document.batch_id == first_batch))}
        finding_counts = {document_id: n for document_id, n in session.execute(
            select(schema.Finding.document_id, func.count()).group_by(schema.Finding.document_id))}
        read = {d.id: repository.load_findings(session, d.id) for d in carried}
        assessments = repository.load_assessments(session, second_batch)
        assessed = repository.load_assessments(session, first_batch)
        assert [run.state for run in runs] == [RunState.DONE, RunState.DONE]
        assert session.get(schema.Batch, second_batch).origin is BatchOrigin.NIGHTLY
    assert all(d.status is DocumentStatus.DONE and d.carried_from in sources and not d.timings for d in carried)
    # Carried by reference: no findings rows copied; each reads its audit's findings and assessment.
    assert all(d.id not in finding_counts and finding_counts[d.carried_from] > 0 for d in carried)
    assert all(len(read[d.id]) == finding_counts[d.carried_from] for d in carried)
    assert all(assessments[d.id] == assessed[d.carried_from] for d in carried)
    assert all(d.fingerprint == sources[d.carried_from].fingerprint and d.risk_level == sources[d.carried_from].risk_level
               for d in carried)

    # A reviewer rejects a finding of the first night's audit of a contract carried since:
    # the next night's reports, made from the carried copy, leave it out.
    with session_scope(url) as session:
        item = session.scalars(select(schema.ReviewItem).join(schema.Document, schema.Document.id == schema.ReviewItem.document_id)
                               .where(schema.Document.batch_id == first_batch, schema.ReviewItem.status == "open",
                                      schema.Document.filename != "contract-14.txt").order_by(schema.ReviewItem.id)).first()
        assert item is not None
        rejected, rejected_in = (item.category, item.evidence["start"]), session.get(schema.Document, item.document_id).filename
        decide(session, item.id, "ann", "reject", item.version, datetime(2026, 12, 20, 9), reason="not_a_clause")
    assert rejected in reported_spans(tmp_path / "night-2" / "latest", rejected_in)

    changed_from = {d.filename: d.id for d in carried}["contract-14.txt"]
    write_txt(generate_contract(39), repo / "contract-14.txt")  # another contract under the same name
    third = nightly(env, str(repo), "--out", str(tmp_path / "night-3"), "--as-of", as_of)
    assert "re-audited 1 of 6 documents; 5 unchanged" in third.stdout
    assert rejected not in reported_spans(tmp_path / "night-3" / "latest", rejected_in)
    report = json.loads((tmp_path / "night-3" / "latest" / "nightly.json").read_text())
    assert report["audited"]["hashed"] == 1  # only the file whose size or mtime moved was read
    changes = report["changes"]
    assert [c["filename"] for c in changes["changed"]] == ["contract-14.txt"] and not changes["new"] and not changes["removed"]
    with session_scope(url, write=False) as session:
        third_batch = session.scalars(select(schema.ScheduleRun.batch_id).order_by(schema.ScheduleRun.id.desc())).first()
        audited = session.scalars(select(schema.Document).where(schema.Document.batch_id == third_batch,
                                                                schema.Document.carried_from.is_(None))).one()
    before, after = present_findings(url, changed_from), present_findings(url, audited.id)
    assert Counter((f["category"], f["text"]) for f in changes["appeared"]).total() == (after - before).total() > 0
    assert Counter((f["category"], f["text"]) for f in changes["vanished"]).total() == (before - after).total() > 0
    assert {c["filename"] for c in changes["appeared"] + changes["vanished"]} == {"contract-14.txt"}
    assert "contract-14.txt" not in ics_events(tmp_path / "night-3" / "latest" / "deadlines.ics")  # seed 39 has no renewal

    (repo / "contract-21.txt").unlink()
    odd_name = "new <b>&co.txt"
    write_txt(generate_contract(7), repo / odd_name)
    fourth = nightly(env, str(repo), "--out", str(tmp_path / "night-4"), "--as-of", as_of)
    assert "re-audited 1 of 6 documents; 5 unchanged" in fourth.stdout
    changes = json.loads((tmp_path / "night-4" / "latest" / "nightly.json").read_text())["changes"]
    assert [c["filename"] for c in changes["new"]] == [odd_name]
    assert [c["filename"] for c in changes["removed"]] == ["contract-21.txt"]
    assert changes["review_added"] and {r["filename"] for r in changes["review_added"]} == {odd_name}
    html = (tmp_path / "night-4" / "latest" / "nightly.html").read_text()
    assert escape(odd_name) in html and odd_name not in html

    playbook = tmp_path / "playbook.yaml"
    playbook.write_text((REPO / "pipelines" / "playbook" / "default.yaml").read_text() + "\n# tightened by legal\n")
    fourth_folder = (tmp_path / "night-4" / "latest").resolve()
    fifth = nightly(env, str(repo), "--out", str(tmp_path / "night-4"), "--playbook", str(playbook))
    assert "re-audited 6 of 6 documents; 0 unchanged" in fifth.stdout  # a new playbook: everything again
    # into the same folder: a run never overwrites another; latest leads to the newer one
    runs = sorted(p for p in (tmp_path / "night-4").iterdir() if p.name != "latest")
    assert len(runs) == 2 and fourth_folder in runs and (fourth_folder / "nightly.json").exists()
    assert (tmp_path / "night-4" / "latest").resolve() == next(p for p in runs if p != fourth_folder)


def test_nightly_refuses_bad_input_with_a_clear_message(embedded_env: dict[str, str], tmp_path: Path) -> None:
    missing = run_cli(["nightly", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")], embedded_env)
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    unset = run_cli(["nightly", "--out", str(tmp_path / "out")], embedded_env)
    assert unset.returncode == 2 and "CLAUSEMILL_NIGHTLY_PATHS" in unset.stderr
    bad_date = run_cli(["nightly", str(tmp_path), "--as-of", "31/12/2026"], embedded_env)
    assert bad_date.returncode == 2 and "is not a date like 2026-12-31" in bad_date.stderr
    bad_cron = run_cli(["scheduler"], {**embedded_env, "CLAUSEMILL_NIGHTLY_CRON": "0 2 * *", "CLAUSEMILL_NIGHTLY_PATHS": str(tmp_path)})
    assert bad_cron.returncode == 2 and "must have five fields" in bad_cron.stderr


@pytest.mark.parametrize("command", ["nightly", "scheduler"])
def test_sigterm_stops_nightly_and_the_scheduler_with_their_embedded_workers(
        command: str, embedded_env: dict[str, str], tmp_path: Path) -> None:
    """SIGTERM, as systemd or `timeout` sends it to the command alone, leaves no process behind."""
    repo = small_repo(tmp_path)
    env = {**embedded_env, "CLAUSEMILL_NIGHTLY_PATHS": str(repo)}
    args = ["nightly", str(repo)] if command == "nightly" else ["scheduler"]
    process = subprocess.Popen([sys.executable, "-m", "pipelines.cli", *args, "--out", str(tmp_path / "out")],
                               env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    data_dir = env["CLAUSEMILL_DATA_DIR"]
    wait_until(lambda: len(processes_using(data_dir)) >= 3, timeout=60, message="embedded workers to start")
    process.send_signal(signal.SIGTERM)
    try:
        output = process.communicate(timeout=90)[0].decode()
    except subprocess.TimeoutExpired as slow:
        process.kill()
        workers = "\n".join(f"--- {log.name} ---\n{log_tail(log)}" for log in sorted(Path(data_dir, "logs").glob("*.log")))
        pytest.fail(f"still running 90 s after SIGTERM:\n{(slow.output or b'').decode(errors='replace')}\n{workers}")
    assert process.returncode in ((143,) if command == "nightly" else (0, 143)), output
    wait_until(lambda: not processes_using(data_dir), timeout=20, message="workers to exit")


# --- real schedulers on one PostgreSQL and Redis ---------------------------------------------

class Scheduler(WorkerProcess):
    """A real `clausemill scheduler` process in its own process group."""

    def __init__(self, env: dict[str, str], out: Path, log: Path) -> None:  # not super(): that starts a worker
        self.log = log
        with open(log, "ab") as stream:
            self.process = subprocess.Popen([sys.executable, "-m", "pipelines.cli", "scheduler", "--out", str(out)],
                                            env=env, cwd=REPO, stdout=stream, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    def said(self, event: str) -> bool:
        return f'"event": "{event}"' in self.log.read_text(errors="replace")


@pytest.fixture()
def schedulers(tmp_path: Path) -> Iterator:
    started: list[Scheduler] = []

    def start(env: dict[str, str], out: Path) -> Scheduler:
        scheduler = Scheduler(env, out, tmp_path / f"scheduler-{len(started)}.log")
        started.append(scheduler)
        return scheduler

    yield start
    for scheduler in started:
        scheduler.stop()


def schedule_env(server_env: dict[str, str], repo: Path, receiver: Receiver) -> dict[str, str]:
    """A daily schedule whose last window was six hours ago, so a scheduler started now catches it
    up at once and the next is far from the test's end (with a fixed 02:00, a run that began at
    01:59 Berlin met the next night's window too, and ran twice)."""
    hour = (datetime.now(ZoneInfo("Europe/Berlin")) - timedelta(hours=6)).hour
    return {**server_env, **QUIET, "CLAUSEMILL_NIGHTLY_CRON": f"0 {hour} * * *", "CLAUSEMILL_TIMEZONE": "Europe/Berlin",
            "CLAUSEMILL_NIGHTLY_PATHS": str(repo), "CLAUSEMILL_WEBHOOK_URL": receiver.url}


def small_repo(tmp_path: Path, seeds: tuple[int, ...] = (6, 36)) -> Path:
    repo = tmp_path / "contracts"
    repo.mkdir(parents=True)
    for seed in seeds:
        write_txt(generate_contract(seed), repo / f"contract-{seed}.txt")
    return repo


def schedule_runs(env: dict[str, str]) -> list[schema.ScheduleRun]:
    with session_scope(env["CLAUSEMILL_DATABASE_URL"], write=False) as session:
        return list(session.scalars(select(schema.ScheduleRun).order_by(schema.ScheduleRun.id)))


@pytest.mark.services
def test_two_schedulers_on_one_redis_run_a_window_once(server_env: dict[str, str], tmp_path: Path, start_worker,
                                                       schedulers, receiver: Receiver) -> None:
    env = schedule_env(server_env, small_repo(tmp_path), receiver)
    start_worker(env, "cpu", 1)
    out = tmp_path / "reports"
    first, second = schedulers(env, out), schedulers(env, out)
    # Both start within the day's window (six hours ago, at most 24 h ago): each beat is due at
    # once and would catch it up; one holds the beat lock, one row claims the window.
    wait_until(lambda: any(r.state is RunState.DONE for r in schedule_runs(env)), 120, message="the night's run to end")
    wait_until(lambda: first.said("another scheduler holds the beat lock; standing by")
               or second.said("another scheduler holds the beat lock; standing by"), 30, message="a scheduler standing by")
    wait_until(lambda: receiver.bodies, 30, message="the run's notification")
    holder, standby = (first, second) if first.said("beat lock taken: this scheduler sends the schedule") else (second, first)
    holder.kill(signal.SIGKILL)
    wait_until(lambda: standby.said("beat lock taken: this scheduler sends the schedule"), 30, message="the standby taking over")
    wait_until(lambda: standby.said("nightly window already claimed"), 30, message="the standby finding the window claimed")
    # The run's summary records the delivery once the receiver has answered.
    wait_until(lambda: "webhook" in schedule_runs(env)[0].summary, 10, message="the delivery recorded")
    runs = schedule_runs(env)
    assert len(runs) == 1 and runs[0].state is RunState.DONE and runs[0].summary["trigger"] == "schedule"
    with session_scope(env["CLAUSEMILL_DATABASE_URL"], write=False) as session:
        batches = session.scalars(select(schema.Batch.id).where(schema.Batch.origin == BatchOrigin.NIGHTLY)).all()
    assert batches == [runs[0].batch_id]
    assert [b["state"] for b in receiver.bodies] == ["done"] and receiver.bodies[0]["batch_id"] == runs[0].batch_id
    assert receiver.bodies[0]["documents"]["documents"] == 2 and runs[0].summary["webhook"]["delivered"] is True
    folder = out / f"{runs[0].window_start.replace(tzinfo=UTC).astimezone(Cron('0 2 * * *', 'Europe/Berlin').zone):%Y-%m-%d_%H%M}"
    assert {"nightly.html", "nightly.json", "deadlines.ics", "report.html"} <= {p.name for p in folder.iterdir()}
    assert (out / "latest").resolve() == folder.resolve()


@pytest.mark.services
def test_a_window_is_claimed_once_by_racing_schedulers(server_env: dict[str, str]) -> None:
    url, window = server_env["CLAUSEMILL_DATABASE_URL"], datetime(2026, 12, 1, 1, 0)
    barrier, won = threading.Barrier(4), []

    def claim() -> None:
        with session_scope(url) as session:
            barrier.wait()
            won.append(history.claim_window(session, "nightly-test", window) is not None)

    threads = [threading.Thread(target=claim) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(won) == [False, False, False, True]


@pytest.mark.services
def test_a_run_overlapping_the_previous_one_is_skipped_and_recorded(server_env: dict[str, str], tmp_path: Path,
                                                                     schedulers, receiver: Receiver) -> None:
    env = schedule_env(server_env, small_repo(tmp_path), receiver)
    # No worker: a run started by hand stays running.
    running = run_cli(["nightly", env["CLAUSEMILL_NIGHTLY_PATHS"], "--out", str(tmp_path / "by-hand"), "--timeout", "1"], env)
    assert running.returncode == 1 and "did not finish within 1 s" in running.stderr
    assert "re-audited 2 of 2 documents; 0 unchanged" in running.stdout
    (manual,) = schedule_runs(env)
    schedulers(env, tmp_path / "reports")
    wait_until(lambda: len(schedule_runs(env)) == 2, 60, message="the scheduler to decide on its window")
    skipped = schedule_runs(env)[1]
    assert skipped.state is RunState.SKIPPED and skipped.batch_id is None
    assert skipped.reason.startswith("the previous run (window ") and f"batch {manual.batch_id}) is still running" in skipped.reason
    wait_until(lambda: receiver.bodies, 10, message="the skip's notification")
    assert receiver.bodies[0]["state"] == "skipped" and receiver.bodies[0]["reason"] == skipped.reason
    assert schedule_runs(env)[0].state is RunState.RUNNING
