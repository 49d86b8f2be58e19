"""The embedded broker's polling: fast while messages flow, slow once a worker has been idle."""
from __future__ import annotations

import socket
import statistics
from pathlib import Path
from time import monotonic

import kombu
import pytest

from pipelines.settings import Settings
from workers.celery_app import broker_transport_options
from workers.filesystem_broker import IDLE_AFTER_S, Channel


class CountingChannel(Channel):
    """The embedded broker's channel, noting when it looks in the queue folder."""

    polls: list[float] = []

    def _get(self, queue: str) -> dict:
        CountingChannel.polls.append(monotonic())
        return super()._get(queue)


def test_an_idle_consumer_polls_the_queue_folder_slowly_and_a_message_makes_it_fast_again(
        tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    options = broker_transport_options(settings)
    for folder in ("data_folder_in", "processed_folder", "control_folder"):
        Path(options[folder]).mkdir(parents=True, exist_ok=True)
    received: list[object] = []
    with kombu.Connection(settings.effective_broker_url, transport_options=options) as connection:
        connection.transport.Channel = CountingChannel
        queue = kombu.Queue("ingest")
        with connection.Consumer(queue, callbacks=[lambda body, message: (received.append(body), message.ack())]):
            start = monotonic()
            with pytest.raises(socket.timeout):
                connection.drain_events(timeout=IDLE_AFTER_S + 1.5)
            busy = [t for t in CountingChannel.polls if t - start < IDLE_AFTER_S * 0.8]
            idle = [t for t in CountingChannel.polls if t - start > IDLE_AFTER_S + 0.2]
            assert statistics.median(b - a for a, b in zip(busy, busy[1:])) < 0.05
            gaps = [b - a for a, b in zip(idle, idle[1:])][:-1]  # the last sleep is cut short by the timeout
            assert min(gaps) >= settings.broker_idle_poll_interval_s * 0.9
            assert len(idle) <= 1.3 / settings.broker_idle_poll_interval_s + 1

            connection.Producer().publish({"n": 1}, routing_key="ingest", declare=[queue], serializer="json")
            connection.drain_events(timeout=5)
            assert received == [{"n": 1}]
            CountingChannel.polls.clear()
            with pytest.raises(socket.timeout):
                connection.drain_events(timeout=0.5)
            after = CountingChannel.polls
            assert statistics.median(b - a for a, b in zip(after, after[1:])) < 0.05  # fast again
