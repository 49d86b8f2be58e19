"""What the broker holds: messages waiting per queue, and the documents they are for.

Read straight from the broker's storage (Redis lists, or the embedded transport's message
files), not through a consumer, so reading takes nothing off a queue.  RabbitMQ cannot show a
queued message without taking it, so there only the queues' lengths are read (a passive
declare).  The recovery sweep uses it to leave alone a document whose next task is only
waiting its turn; metrics show the queue lengths.
"""
from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import kombu
import redis

from pipelines.dag import Queue
from pipelines.settings import Settings
from workers import redis_transport


def queue_lengths(settings: Settings) -> dict[Queue, int]:
    """Messages waiting in each queue (not counting those a worker has taken)."""
    if settings.embedded:
        names = _message_files(settings)
        return {queue: sum(1 for name in names if name.endswith(f".{queue}.msg")) for queue in Queue}
    if settings.rabbitmq:
        with kombu.Connection(settings.effective_broker_url, connect_timeout=5) as connection:
            return {queue: _rabbitmq_length(connection, str(queue)) for queue in Queue}
    client = _redis(settings)
    return {queue: sum(client.llen(key) for key in _redis_keys(queue)) for queue in Queue}


@dataclass(frozen=True)
class Waiting:
    """What waits in the broker, as the recovery sweep needs it.

    Messages a worker has taken are not counted (Redis keeps them in its unacked hash until the
    visibility timeout, an hour; RabbitMQ until the worker's connection closes): a taken message
    is running, and its task beats on the document (workers/heartbeat.py), or it died with its
    worker or its host, and counting it would keep the sweep off that document."""

    documents: frozenset[int]  # documents with a queued message, where the broker can list them
    listed: bool  # False on RabbitMQ: only the queues' lengths are known
    queued: int  # messages queued in all

    def holds(self, document_id: int) -> bool:
        """Whether a message for the document may be waiting.  Unlisted, any queued message
        might be it: RabbitMQ's durable queues rarely lose one, so the sweep there waits for
        the queues to drain before it takes a quiet document for lost."""
        return document_id in self.documents if self.listed else self.queued > 0


def waiting(settings: Settings) -> Waiting:
    """Raises the broker's error when it cannot be read: a caller deciding what was lost must
    not guess."""
    if settings.rabbitmq:
        return Waiting(frozenset(), listed=False, queued=sum(queue_lengths(settings).values()))
    if settings.embedded:
        folder = settings.broker_folder / "queue"
        payloads = [_read(folder / name) for name in _message_files(settings)]
    else:
        client = _redis(settings)
        payloads = [json.loads(raw) for queue in Queue for key in _redis_keys(queue) for raw in client.lrange(key, 0, -1)]
    documents = frozenset(document_id for payload in payloads
                          if payload and (document_id := _document_id(payload)) is not None)
    return Waiting(documents, listed=True, queued=len(payloads))


def _rabbitmq_length(connection: kombu.Connection, name: str) -> int:
    """A queue's ready messages; 0 when no worker has declared it yet.  A channel of its own:
    RabbitMQ closes the channel a passive declare of a missing queue was sent on."""
    with connection.channel() as channel:
        try:
            return channel.queue_declare(queue=name, passive=True).message_count
        except connection.channel_errors:  # 404: not declared yet, so empty
            return 0


def _redis(settings: Settings) -> redis.Redis:
    return redis.Redis.from_url(settings.effective_broker_url, socket_connect_timeout=5, socket_timeout=10)


def _redis_keys(queue: Queue) -> Iterator[str]:
    for step in redis_transport.PRIORITY_STEPS:
        yield f"{queue}{redis_transport.SEPARATOR}{step}" if step else str(queue)


def _message_files(settings: Settings) -> list[str]:
    try:
        return [name for name in os.listdir(settings.broker_folder / "queue") if name.endswith(".msg")]
    except FileNotFoundError:
        return []


def _read(path: Path) -> dict | None:
    """A message file; None when a worker took it between the listing and the read."""
    try:
        return json.loads(path.read_bytes())
    except FileNotFoundError:
        return None


def _document_id(payload: dict) -> int | None:
    """The document a clausemill task message is for: the first of its args."""
    if not str(payload.get("headers", {}).get("task", "")).startswith("clausemill."):
        return None
    body = payload.get("body", "")
    if payload.get("properties", {}).get("body_encoding") == "base64":
        body = base64.b64decode(body)
    args = json.loads(body)[0]
    return int(args[0]) if args else None
