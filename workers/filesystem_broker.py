"""kombu's filesystem transport, with messages that appear whole.

The stock transport creates a message file under its final name and then writes it, so a
worker listing the folder at that instant takes an empty or half-written file and dies on a
JSONDecodeError (seen here in the embedded mode under load).  This transport writes to a
hidden temporary name and renames: on one file system a rename is atomic, and consumers only
ever see complete messages.

A message's name starts with its priority, then the time it was sent: consumers take the first
name in sorted order, so priority 0 goes first (as on Redis) and each priority is first in,
first out.

An empty folder is polled every `polling_interval` (5 ms: each task's hop to the next waits up
to one interval) while messages flow, and every `idle_polling_interval` (0.1 s) once none has
come for a second: a drop-folder watcher or a scheduler waiting all day polls 20 times less.
"""
from __future__ import annotations

import os
import socket
import uuid
from time import monotonic, sleep

from kombu.exceptions import ChannelError
from kombu.transport.virtual import Empty
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

SCHEME = "clausemillfs"


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: dict, **kwargs: object) -> None:
        priority = self._get_message_priority(payload)
        name = f"{priority}_{int(round(monotonic() * 1000)):015d}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # A leading dot keeps the partial file out of the consumer's "<anything>.<queue>.msg" match.
        partial = os.path.join(self.data_folder_out, f".{name}.partial")
        try:
            with open(partial, "wb") as stream:
                stream.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add message {final!r} to the queue folder") from exc


IDLE_AFTER_S = 1.0
"""How long without a message, while the worker could take one, before polling slows down."""


class Transport(filesystem.Transport):
    Channel = Channel
    global_state = filesystem.Transport.global_state

    def __init__(self, client: object, **kwargs: object) -> None:
        super().__init__(client, **kwargs)
        self.idle_polling_interval = client.transport_options.get("idle_polling_interval", self.polling_interval)
        self._last_busy = monotonic()

    def drain_events(self, connection: object, timeout: float | None = None) -> None:
        """Deliver one message, polling the folder until one comes or `timeout` passes.

        A worker whose prefetch is full counts as busy, not idle: the message it takes when a
        pool process frees must not wait out the slow interval."""
        started = monotonic()
        while True:
            try:
                self.cycle.get(self._deliver, timeout=timeout)
            except Empty:
                now = monotonic()
                if timeout is not None and now - started >= timeout:
                    raise socket.timeout() from None
                if any(channel._consumers and not channel.qos.can_consume() for channel in self.channels):
                    self._last_busy = now
                slow = now - self._last_busy >= IDLE_AFTER_S
                interval = self.idle_polling_interval if slow else self.polling_interval
                sleep(min(interval, timeout - (now - started)) if timeout is not None else interval)
            else:
                self._last_busy = monotonic()
                return


TRANSPORT_ALIASES[SCHEME] = f"{__name__}:Transport"
