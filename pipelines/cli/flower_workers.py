"""Flower's worker list (`/api/workers`) kept current from the workers' own events.

Flower serves `/api/workers` from its inspector's cache, which it fills by one `inspect`
broadcast when it starts and again only when a request asks `?refresh=1`
(flower/app.py `Flower.start`, flower/api/workers.py `ListWorkers.get`). A worker that starts
after Flower, or answers that first broadcast too late on a busy machine, is never listed by a
plain request, although its `worker-online` and `worker-heartbeat` events (sent by every
server-mode worker) put it in Flower's events state, which the `/workers` page shows, at once.
No Flower option refreshes the inspector, so this subclass does: once a second it looks, in the
events state, for a live worker the inspector has not described, and only then broadcasts
Flower's own inspect, the one `?refresh=1` runs.
"""
from __future__ import annotations

from flower import command
from flower.app import Flower
from tornado.ioloop import PeriodicCallback

CHECK_INTERVAL_MS = 1000
"""How often the events state is compared with the inspector's list: a dictionary read in
Flower's event loop, with a broadcast only while a live worker is missing from the list. A
worker's first heartbeat arrives before its control consumer listens, so a missed inspect is
tried again on the next check (Celery's heartbeat: every 2 s)."""


class WorkerListingFlower(Flower):
    """Flower whose inspector asks again while a live worker is missing from its list."""

    def start(self) -> None:
        PeriodicCallback(self.inspect_unlisted_workers, CHECK_INTERVAL_MS).start()
        super().start()

    def unlisted_workers(self) -> list[str]:
        """Workers the events state says are alive whose inspect answers are not all in."""
        wanted = self.inspector.methods_to_inspect(None)
        listed = self.inspector.workers
        return [name for name, worker in self.events.state.workers.items()
                if worker.alive and any(method not in listed.get(name, {}) for method in wanted)]

    def inspect_unlisted_workers(self) -> None:
        if self.unlisted_workers():
            self.update_workers()  # one inspect at a time: the inspector joins one already running


def use_worker_listing_flower() -> None:
    """Make `celery flower` (flower/command.py builds the app as `Flower(...)`) build ours; fails
    loudly if a Flower release stops building it there, rather than silently listing nobody."""
    if command.Flower is not Flower and command.Flower is not WorkerListingFlower:
        raise RuntimeError("flower.command no longer builds flower.app.Flower; see pipelines/cli/flower_workers.py")
    command.Flower = WorkerListingFlower
