"""clausemill's Prometheus metrics, read at each scrape from the database and the broker.

Nothing is counted in process memory: prefork pool children and workers on other machines
would each hold a part, and a restart would lose it.  Every value is read when Prometheus
asks, from the tables (storage/metrics_queries.py), the broker's queues (workers/broker.py)
and a control ping of the workers, so one `clausemill metrics` anywhere sees the whole fleet.

Label values are closed sets (the StrEnums of pipelines/) except `batch`, a digest of the batch
id (`metrics_queries.batch_label`: ids are free text, and nobody logs in to read /metrics)
limited to running batches and the RECENT_BATCHES newest others.  A source that cannot be read is left
out of the scrape and shown by `clausemill_metrics_source_up{source=...} 0`, so an outage is
not mistaken for zeros.
"""
from __future__ import annotations

import fcntl
import logging
import re
import socketserver
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from celery import Celery
from prometheus_client import CollectorRegistry, make_wsgi_app
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import text
from sqlalchemy.orm import Session

from pipelines import logs
from pipelines.dag import STAGES, Queue
from pipelines.settings import Settings
from storage import metrics_queries as queries
from storage.database import session_scope
from storage.schema import utcnow
from workers.broker import queue_lengths

LOG_STAGE = "metrics"
RECENT_BATCHES = 10
"""Finished batches shown per document state besides the running ones: bounds the `batch` label."""
STAGE_BUCKETS_S = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
"""From a text page's rules pass (tenths of a second) to a long scan's OCR (many minutes)."""
PING_TIMEOUT_S = 1.0
NO_STAGE = "none"
"""The `stage` label of a document that has not completed a stage yet."""
OTHER = "other"
_REASON_LABEL = re.compile(r"[a-z][a-z0-9_]{0,31}")


class ClausemillCollector(Collector):
    """A custom collector: prometheus_client calls `collect` once per scrape."""

    def __init__(self, settings: Settings, app: Celery) -> None:
        self.settings, self.app = settings, app

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("clausemill_metrics_source_up",
                               "Whether this scrape could read the source (database, broker, workers).", labels=["source"])
        readers: dict[str, Callable[[], list[Metric]]] = {
            "database": self._database, "broker": self._broker, "workers": self._workers,
        }
        for source, read in readers.items():
            try:
                families = read()
            except Exception as error:  # noqa: BLE001 - one source down must not hide the others
                logs.log("metrics source unreadable", stage=LOG_STAGE, batch_id=None, level=logging.WARNING,
                         source=source, error=f"{type(error).__name__}: {error}")
                up.add_metric([source], 0)
                continue
            up.add_metric([source], 1)
            yield from families
        yield up

    def _database(self) -> list[Metric]:
        with session_scope(self.settings.effective_database_url, write=False) as session:
            return [*document_families(session), *operations_families(session, self.settings)]

    def _broker(self) -> list[Metric]:
        lengths = queue_lengths(self.settings)
        family = GaugeMetricFamily("clausemill_queue_messages", "Task messages waiting in each queue (not yet taken).",
                                   labels=["queue"])
        for queue in Queue:
            family.add_metric([queue], lengths[queue])
        return [family]

    def _workers(self) -> list[Metric]:
        family = GaugeMetricFamily(
            "clausemill_workers_online", f"Workers answering a control ping, by the queues they consume ('{OTHER}': "
            "neither).", labels=["queue"])
        for queue, count in online_workers(self.app, self.settings).items():
            family.add_metric([queue], count)
        return [family]


def document_families(session: Session) -> list[Metric]:
    """Documents by batch, status and stage; ended documents; batches; stage durations."""
    documents = GaugeMetricFamily(
        "clausemill_documents",
        f"Documents of the running batches and the {RECENT_BATCHES} newest others, by batch (a digest of its id: "
        f"`clausemill status BATCH` prints it), status and the stage they reached or failed at ('{NO_STAGE}' "
        "before the first).", labels=["batch", "status", "stage"])
    for row in queries.documents_by_batch(session, queries.shown_batches(session, RECENT_BATCHES)):
        documents.add_metric([queries.batch_label(row.batch_id), row.status, row.stage or NO_STAGE], row.count)
    ended = CounterMetricFamily("clausemill_documents_ended", "Documents that ended, over every batch, by status.",
                                labels=["status"])
    for status, count in queries.ended_documents(session).items():
        ended.add_metric([status], count)
    batches = GaugeMetricFamily("clausemill_batches", "Batches by status and by who submitted them.",
                                labels=["status", "origin"])
    for (status, origin), count in sorted(queries.batches_by_status(session).items()):
        batches.add_metric([status, origin], count)
    durations = HistogramMetricFamily("clausemill_stage_duration_seconds",
                                      "Time a document spent in each stage (OCR: its pages together).", labels=["stage"])
    for stage, (buckets, total) in stage_histogram(queries.stage_timings(session)).items():
        durations.add_metric([stage], buckets=buckets, sum_value=total)
    return [documents, ended, batches, durations]


def operations_families(session: Session, settings: Settings) -> list[Metric]:
    """The drop folder's intake, the recovery sweep's re-sends, the nightly schedule's runs."""
    now = utcnow()
    intake = CounterMetricFamily("clausemill_intake_files", "Files taken from watched inboxes, by outcome.",
                                 labels=["outcome"])
    pending = GaugeMetricFamily("clausemill_intake_pending_files",
                                "Files taken from watched inboxes and not yet ended, by state.", labels=["state"])
    for state, count in queries.intake_counts(session).items():
        (intake if state.ended else pending).add_metric([state], count)
    oldest = GaugeMetricFamily("clausemill_intake_oldest_pending_age_seconds",
                               "Age of the longest-waiting intake file not yet ended (0 when none waits).",
                               value=_age_s(queries.oldest_pending_intake(session), now))
    resent = CounterMetricFamily("clausemill_documents_resent",
                                 "Documents re-sent by the recovery sweep, by the stage they resumed at.", labels=["stage"])
    resent_by_stage = {str(spec.stage): 0 for spec in STAGES if not spec.per_page}  # OCR resumes via `segment`
    for stage, count in queries.resends_by_stage(session).items():
        resent_by_stage[str(stage or NO_STAGE)] = count
    for stage, count in resent_by_stage.items():
        resent.add_metric([stage], count)
    families: list[Metric] = [intake, pending, oldest, resent]
    if settings.nightly_paths or queries.any_scheduled_run(session):
        families.append(GaugeMetricFamily(
            "clausemill_nightly_last_success_timestamp_seconds",
            "When the last successful scheduled (nightly) run finished, as a Unix time; 0 before the first.",
            value=_unix_time(queries.last_successful_run(session))))
    skipped = CounterMetricFamily(
        "clausemill_nightly_runs_skipped", f"Scheduled runs skipped, by reason ('{OTHER}' for a reason that is not an "
        "identifier).", labels=["reason"])
    for reason, count in reason_labels(queries.skipped_runs(session)).items():
        skipped.add_metric([reason], count)
    return [*families, skipped]


def stage_histogram(timings: Iterable[dict[str, float]]) -> dict[str, tuple[list[tuple[str, float]], float]]:
    """Cumulative buckets and sum per stage, in the stage table's order, from per-document timings.

    Every stage gets a series (zeros before its first document), so a stage never appears
    out of nowhere in a rate()."""
    counts = {spec.stage: [0] * (len(STAGE_BUCKETS_S) + 1) for spec in STAGES}
    sums = {spec.stage: 0.0 for spec in STAGES}
    for document in timings:
        for stage, seconds in document.items():
            if stage not in counts or seconds is None:
                continue
            seconds = float(seconds)
            index = next((i for i, bound in enumerate(STAGE_BUCKETS_S) if seconds <= bound), len(STAGE_BUCKETS_S))
            counts[stage][index] += 1
            sums[stage] += seconds
    result: dict[str, tuple[list[tuple[str, float]], float]] = {}
    for stage, per_bucket in counts.items():
        cumulative, buckets = 0, []
        for bound, count in zip((*map(str, STAGE_BUCKETS_S), "+Inf"), per_bucket):
            cumulative += count
            buckets.append((bound, cumulative))
        result[str(stage)] = (buckets, sums[stage])
    return result


def reason_labels(counts: dict[str, int]) -> dict[str, int]:
    """Skip reasons as label values: short identifiers as recorded, anything else as 'other',
    so a free-text reason can never open an unbounded set of series."""
    labels: dict[str, int] = {}
    for reason, count in counts.items():
        label = reason if _REASON_LABEL.fullmatch(reason) else OTHER
        labels[label] = labels.get(label, 0) + count
    return labels


def online_workers(app: Celery, settings: Settings) -> dict[str, int]:
    """Workers that answer a control ping, per queue they consume.

    Their queues are then asked of exactly the workers that answered (returning as soon as
    each has), so a worker counts for its role whatever it is named; one consuming both
    queues counts for both, one consuming neither (or too slow to say) under 'other'.
    Embedded workers live only inside a running `clausemill audit`: when none runs there is
    no one to ping, and a ping would only leave messages in the broker folder for the queues
    of workers long gone, so the answer is zero without asking."""
    roles = {str(queue) for queue in Queue}
    counts = {role: 0 for role in sorted(roles)} | {OTHER: 0}
    if settings.embedded and not embedded_audit_running(settings):
        return counts
    names = [name for reply in app.control.ping(timeout=PING_TIMEOUT_S) or [] for name in reply]
    if not names:
        return counts
    inspect = app.control.inspect(destination=names, timeout=PING_TIMEOUT_S, limit=len(names))
    consumed = inspect.active_queues() or {}
    for name in names:
        served = roles & {queue["name"] for queue in consumed.get(name) or []}
        for queue in served or {OTHER}:
            counts[queue] += 1
    return counts


def embedded_audit_running(settings: Settings) -> bool:
    """Whether a `clausemill audit` holds this data folder's embedded lock (its workers run).

    Probed with a shared lock taken and dropped at once, never held: the audit's exclusive
    lock (workers/lifecycle.py) makes the probe fail while it runs."""
    try:
        with open(settings.data_dir / "embedded.lock") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(lock, fcntl.LOCK_UN)
            return False
    except FileNotFoundError:
        return False


def health(settings: Settings) -> list[str]:
    """What stops clausemill from working right now (empty when the database and broker answer)."""
    problems = []
    try:
        with session_scope(settings.effective_database_url, write=False) as session:
            session.execute(text("SELECT 1"))
    except Exception as error:  # noqa: BLE001 - reported to the caller, whatever it was
        problems.append(f"database: {type(error).__name__}: {error}")
    try:
        queue_lengths(settings)
    except Exception as error:  # noqa: BLE001
        problems.append(f"broker: {type(error).__name__}: {error}")
    return problems


def _age_s(since: datetime | None, now: datetime) -> float:
    return max(0.0, (now - since).total_seconds()) if since else 0.0


def _unix_time(moment: datetime | None) -> float:
    return moment.replace(tzinfo=UTC).timestamp() if moment else 0.0


# --- the HTTP endpoint --------------------------------------------------------------------

WsgiApp = Callable[[dict, Callable], Iterable[bytes]]


def metrics_app(settings: Settings, app: Celery) -> WsgiApp:
    """`/metrics` (Prometheus text format) and `/healthz`; both without auth by design: they
    hold counts and digests of batch ids, never contract text or anything a user typed."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ClausemillCollector(settings, app))
    exposition = make_wsgi_app(registry)

    def route(environ: dict, start_response: Callable) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/metrics":
            return exposition(environ, start_response)
        if path == "/healthz":
            problems = health(settings)
            status = "503 Service Unavailable" if problems else "200 OK"
            start_response(status, [("Content-Type", "text/plain; charset=utf-8")])
            return [("\n".join(problems) if problems else "ok").encode() + b"\n"]
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
        return [b"not found: clausemill serves /metrics and /healthz\n"]

    return route


class _ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    """No access line per scrape on stderr: Prometheus asks every few seconds."""

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve_metrics(settings: Settings, app: Celery, address: str, port: int,
                  ready: Callable[[str, int], None] | None = None) -> None:
    """Serve until interrupted; `ready` is told the address and port (the real one for port 0)."""
    with make_server(address, port, metrics_app(settings, app), server_class=_ThreadingServer,
                     handler_class=_QuietHandler) as server:
        host, bound_port = server.server_address[:2]
        if ready is not None:
            ready(str(host), int(bound_port))
        logs.log("metrics served", stage=LOG_STAGE, batch_id=None, address=host, port=bound_port)
        server.serve_forever()
