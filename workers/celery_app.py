"""The Celery application: queues, routing and delivery guarantees, built from a Settings.

Two queues: `cpu` (ingest, OCR, extraction, rules, aggregation) and `gpu` (the expert model).
Tasks are routed by name prefix, so a task's queue is part of its identity, visible in Flower.
Tasks carry document ids only; every byte of state lives in storage/.

Nothing is built when this module is imported: `create_app(settings)` builds the app and
registers the stage table's tasks on it.  Only the `celery` command line (Flower:
`celery -A workers.celery_app flower`) asks for the module's `app`, built then from the
environment's settings.
"""
from __future__ import annotations

from typing import Any

from celery import Celery
from celery.signals import worker_init, worker_process_init
from kombu import Queue as KombuQueue

from pipelines.dag import STAGES, Queue
from pipelines.settings import Settings, get_settings
from storage.database import dispose_engines
from workers import filesystem_broker  # noqa: F401  (registers the embedded broker's URL scheme)
from workers import redis_transport
from workers.model_batcher import GpuModel
from workers.tasks import register_tasks

TASK_ROUTES = {
    **{f"clausemill.{queue}.*": {"queue": str(queue)} for queue in Queue},
    "celery.chord_unlock": {"queue": str(Queue.CPU)},
}


def task_routes(settings: Settings) -> dict[str, dict]:
    """Each stage's task to its queue at its turn's priority (pipelines/dag.py StageSpec.turn);
    any other task by its name's prefix."""
    stages = {spec.task_name: {"queue": str(spec.queue), "priority": message_priority(settings, spec.turn)}
              for spec in STAGES}
    return {**stages, **TASK_ROUTES}


def message_priority(settings: Settings, turn: int) -> int:
    """A stage's turn as this broker reads a message's priority.  Redis (kombu's priority lists,
    one per step) and the embedded broker (workers/filesystem_broker.py) serve 0 first; RabbitMQ
    serves the highest first."""
    return 9 - turn if settings.rabbitmq else turn


def declared_queue(settings: Settings, name: str) -> KombuQueue:
    """A queue as this broker should hold it.  On RabbitMQ, a quorum queue: replicated and
    durable, the kind RabbitMQ recommends when messages must survive a node's restart.  Quorum
    queues refuse a global prefetch limit, so Celery (worker_detect_quorum_queues, on by default)
    gives each consumer its own, and sends countdowns through RabbitMQ's native delayed delivery."""
    if settings.rabbitmq:
        return KombuQueue(name, queue_arguments={"x-queue-type": "quorum"})
    return KombuQueue(name)


def broker_transport_options(settings: Settings) -> dict:
    if settings.rabbitmq:
        # A publish returns once RabbitMQ has the message: a broker that restarts right after
        # cannot drop a message the sender already counted as sent.
        return {"confirm_publish": True}
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
            "idle_polling_interval": settings.broker_idle_poll_interval_s,
        }
    # Unacked tasks of a worker that died whole come back after the visibility timeout; sweep
    # for them every few seconds rather than kombu's default of every ~100 s.  A worker killed
    # while it restores holds kombu's restore mutex until it expires (300 s by default), and no
    # worker restores anything meanwhile; a restore takes milliseconds, and restoring one
    # message twice is harmless (each restore is a transaction that finds it gone), so the
    # mutex expires after at most a minute.
    return {
        "priority_steps": list(redis_transport.PRIORITY_STEPS),
        "visibility_timeout": settings.visibility_timeout_s,
        "unacked_restore_interval": min(10, max(1, settings.visibility_timeout_s // 2)),
        "unacked_restore_throttle": 1,
        "unacked_mutex_expire": min(60, settings.visibility_timeout_s),
    }


def create_app(settings: Settings) -> Celery:
    app = Celery("clausemill", broker=settings.effective_broker_url, backend=settings.effective_result_backend)
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_queues=[declared_queue(settings, str(queue)) for queue in Queue],
        task_default_queue=str(Queue.CPU),
        task_routes=task_routes(settings),
        # A task is acknowledged only once it has run, and a task whose worker died is put
        # back: every task is idempotent, so a redelivery can only repeat, never lose, work.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,  # only chord members store results (StageSpec.stores_result)
        result_expires=24 * 3600,
        result_chord_retry_interval=settings.chord_poll_interval_s,
        broker_transport_options=broker_transport_options(settings),
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        # Pool processes are replaced before they grow without bound (prefork only; the gpu
        # worker's threads share one process, which loads the model once).
        worker_max_memory_per_child=settings.worker_max_memory_mb * 1024 or None,
        worker_max_tasks_per_child=settings.worker_max_tasks or None,
        worker_send_task_events=not settings.embedded,
        task_send_sent_event=not settings.embedded,
    )
    if settings.effective_broker_url.startswith("redis://"):
        app.conf.broker_transport = redis_transport.NAME
    if settings.rabbitmq:
        # Each worker's control queue (its pidbox) durable and shared rather than exclusive to one
        # connection.  A host cut off the network reconnects as soon as it is back, while
        # RabbitMQ still holds its old connection until the heartbeat gives up on it; an
        # exclusive queue refuses the new connection (405 RESOURCE_LOCKED) and Celery stops the
        # worker for good.  The queue is deleted 10 s after its last consumer goes
        # (control_queue_expires); RabbitMQ 4 deprecates transient shared queues, hence durable.
        app.conf.update(control_queue_exclusive=False, control_queue_durable=True)
    if settings.effective_result_backend.startswith("db+sqlite"):
        app.conf.database_engine_options = {"connect_args": {"timeout": 60}}
    model = GpuModel(settings)
    register_tasks(app, settings, model)

    def load_model_before_consuming(sender: Any, **_: Any) -> None:
        """The gpu worker's start hook: the first document must not wait for the model (and with
        the model off, no document asks for it: nothing is loaded)."""
        if sender.app is app and settings.model_enabled and str(Queue.GPU) in (app.amqp.queues.consume_from or {}):
            model.load()

    worker_init.connect(load_model_before_consuming, weak=False)
    worker_process_init.connect(_forget_parent_connections, weak=False, dispatch_uid="clausemill-dispose-engines")
    return app


def _forget_parent_connections(**_: Any) -> None:
    """A forked pool process must not share the parent's database connections."""
    dispose_engines()


def __getattr__(name: str) -> Celery:
    """`celery -A workers.celery_app …` looks for `app`: build it then, not at import."""
    if name == "app":
        global app
        app = create_app(get_settings())
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
