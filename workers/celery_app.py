"""The Celery application: queues, routing and delivery guarantees.

Two queues: `cpu` (ingest, OCR, extraction, rules, aggregation) and `gpu` (the expert model).
Tasks are routed by name prefix, so a task's queue is part of its identity, visible in Flower.
Tasks carry document ids only; every byte of state lives in storage/.
"""
from __future__ import annotations

from celery import Celery
from kombu import Queue

from pipelines.settings import Settings, get_settings
from workers import filesystem_broker  # noqa: F401  (registers the embedded broker's URL scheme)

CPU_QUEUE = "cpu"
GPU_QUEUE = "gpu"
TASK_ROUTES = {
    "clausemill.cpu.*": {"queue": CPU_QUEUE},
    "clausemill.gpu.*": {"queue": GPU_QUEUE},
    "celery.chord_unlock": {"queue": CPU_QUEUE},
}


def broker_transport_options(settings: Settings) -> dict:
    if settings.embedded:
        folder = settings.broker_folder
        return {
            "data_folder_in": str(folder / "queue"),
            "data_folder_out": str(folder / "queue"),
            # Moving a message into a folder on the same file system is an atomic rename, so two
            # workers can never both take it (a move to /tmp may copy across devices).
            "store_processed": True,
            "processed_folder": str(folder / "processed"),
            "control_folder": str(folder / "control"),
            "polling_interval": settings.broker_poll_interval_s,
        }
    # Unacked tasks of a worker that died whole come back after the visibility timeout; sweep
    # for them every few seconds rather than kombu's default of every ~100 s.
    return {
        "visibility_timeout": settings.visibility_timeout_s,
        "unacked_restore_interval": min(10, max(1, settings.visibility_timeout_s // 2)),
        "unacked_restore_throttle": 1,
    }


def create_app(settings: Settings) -> Celery:
    app = Celery("clausemill", broker=settings.effective_broker_url, backend=settings.effective_result_backend)
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_queues=[Queue(CPU_QUEUE), Queue(GPU_QUEUE)],
        task_default_queue=CPU_QUEUE,
        task_routes=TASK_ROUTES,
        # A task is acknowledged only once it has run, and a task whose worker died is put
        # back: every task is idempotent, so a redelivery can only repeat, never lose, work.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,  # only chord members store results (see workers/tasks.py)
        result_expires=24 * 3600,
        result_chord_retry_interval=settings.chord_poll_interval_s,
        broker_transport_options=broker_transport_options(settings),
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        worker_send_task_events=not settings.embedded,
        task_send_sent_event=not settings.embedded,
        imports=["workers.tasks"],
    )
    if settings.effective_result_backend.startswith("db+sqlite"):
        app.conf.database_engine_options = {"connect_args": {"timeout": 60}}
    return app


app = create_app(get_settings())
