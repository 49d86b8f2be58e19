"""kombu's Redis transport, with a worker that survives its broker vanishing while it holds a task.

When Redis goes away, the worker's consumer collects its broken connection: it closes the
connection's channels one by one, and each channel puts back the messages it holds
unacknowledged.  With Redis down, the first such restore fails; kombu stops closing there and
releases the transport (its `client` becomes None).  A channel left open, the control channel
or the task channel, is closed a moment later by Celery's bootsteps, its restore builds a Redis
client from the released transport, and the stock transport raises AttributeError.  That is no
connection error, so Celery stops the worker for good ("Unrecoverable error: AttributeError(
\"'NoneType' object has no attribute 'hostname'\")"; seen in tests/test_multihost.py when a
broker restart met a worker holding a task).

Here that restore raises Redis's ConnectionError instead, which Celery ignores while it closes
and then reconnects.  Nothing is lost: the messages stay in Redis's unacked hash, and the
recovery sweep sends their documents again once nothing beats for them (workers/recovery.py).

Used for `redis://` brokers (`workers/celery_app.create_app` names it as the broker transport);
`rediss://` keeps kombu's own, whose TLS defaults depend on the scheme's name.
"""
from __future__ import annotations

from typing import Any

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError

NAME = f"{__name__}:Transport"
"""What Celery's `broker_transport` setting names to use this transport."""
PRIORITY_STEPS = tuple(range(10))
"""A list per priority, taken lowest first (kombu's default steps, 0, 3, 6 and 9, would put two
stages of pipelines/dag.py in one list, first in first out): a queue's messages of priority 0
wait in the list named as the queue, those of priority p in the queue's name + SEPARATOR + p."""
SEPARATOR = "\x06\x16"


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        transport = self.connection
        if transport is None or transport.client is None:
            raise RedisConnectionError("the connection to the broker was released before this channel closed")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel
