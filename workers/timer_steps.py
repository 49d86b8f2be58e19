"""Consumer steps whose work runs on the worker's timer, in its event loop.

Work a worker does beside its tasks (the recovery sweep, the reserved tasks' heartbeat) runs on
the consumer's timer rather than in a thread: a thread in a prefork parent could hold a lock at
the moment a pool child is forked.  The entries are cancelled when the consumer stops, and made
anew when it starts again after losing the broker.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import bootsteps

Schedule = Callable[[Any], list[Any]]
"""(consumer) → the timer entries it set (consumer.timer.call_repeatedly / call_after)."""


def timer_step(label: str, schedule: Schedule) -> type[bootsteps.StartStopStep]:
    """A consumer step named `label` that sets `schedule`'s entries each time the consumer starts."""

    step_label, step_name = label, "clausemill." + label.replace(" ", "_")

    class TimerStep(bootsteps.StartStopStep):
        label = step_label
        name = step_name  # a blueprint keeps its steps by name: each step needs its own
        timer_entries: list[Any] = []

        def start(self, consumer: Any) -> None:
            self.timer_entries = schedule(consumer)

        def stop(self, consumer: Any) -> None:
            for entry in self.timer_entries:
                entry.cancel()
            self.timer_entries = []

        shutdown = stop

    return TimerStep
