"""Login rate limiting: at most N password checks per user name and client address per window,
and at most a few password hashes at once in the whole server.

Kept in the server's memory: `clausemill serve` is one process, and a restart giving an
attacker a fresh window every few minutes is no gain over waiting it out.  Keyed by name and
address together, so one attacker cannot lock a colleague out from elsewhere.

An attempt is counted when it starts, before its password is checked, and a success forgets
the pair's count: were it counted only after the check, attempts sent all at once would all
find the count below the limit and all be checked.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread

T = TypeVar("T")

SWEEP_AT_KEYS = 10_000
"""Past this many (name, address) pairs, pairs with no attempt left in the window are dropped,
so guessing many names cannot grow the table without bound."""
HASH_SLOTS = 2
"""Password hashes at once: argon2 as pwdlib recommends takes 64 MiB and about 0.13 s of CPU
each (two cores), so two hold 128 MiB at most and leave the other pages cores to run on."""
HASH_QUEUE = 32
"""Logins that may wait for a hash slot: 32 on two slots is about two seconds' wait, enough for
a team logging in at nine; a flood past it is refused at once, not queued without end."""


class LoginThrottle:
    def __init__(self, max_failures: int, window_s: float) -> None:
        self.max_failures, self.window_s = max_failures, window_s
        self._attempts: dict[tuple[str, str], deque[float]] = {}
        self._lock = threading.Lock()

    def reserve(self, name: str, address: str, now: float | None = None) -> float:
        """Count an attempt by `name` from `address` as failed until it succeeds: 0 when it may
        go ahead (and is counted now), else the seconds until one may."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if len(self._attempts) >= SWEEP_AT_KEYS:
                for key in list(self._attempts):
                    self._recent(key, now)
            attempts = self._recent((name, address), now)
            if len(attempts) >= self.max_failures:
                return attempts[-self.max_failures] + self.window_s - now
            attempts.append(now)
            self._attempts[(name, address)] = attempts
            return 0.0

    def withdraw(self, name: str, address: str) -> None:
        """Un-count the latest attempt: its password was never checked (the server was busy)."""
        with self._lock:
            attempts = self._attempts.get((name, address))
            if attempts:
                attempts.pop()

    def succeeded(self, name: str, address: str) -> None:
        with self._lock:
            self._attempts.pop((name, address), None)

    def _recent(self, key: tuple[str, str], now: float) -> deque[float]:
        """The key's attempts inside the window; a key left with none is forgotten."""
        attempts = self._attempts.get(key, deque())
        while attempts and attempts[0] <= now - self.window_s:
            attempts.popleft()
        if not attempts:
            self._attempts.pop(key, None)
        return attempts


class PasswordChecks:
    """Runs password hashes (argon2: 64 MiB and a tenth of a second of CPU each), `slots` at a
    time, on threads that do not count against the pool every page's auth check runs on, so
    a burst of logins can neither exhaust memory nor stall the other pages.  At most
    `queue` more wait their turn, a few seconds at most; past that `run` refuses at once
    (ServerBusy) instead of letting a flood queue without end."""

    def __init__(self, slots: int = HASH_SLOTS, queue: int = HASH_QUEUE) -> None:
        self._limiter = anyio.CapacityLimiter(slots)
        self.queue = queue

    async def run(self, check: Callable[..., T], *args: object) -> T:
        if self._limiter.statistics().tasks_waiting >= self.queue:
            raise ServerBusy
        return await anyio.to_thread.run_sync(check, *args, limiter=self._limiter)


class ServerBusy(Exception):
    """More password checks are waiting than PasswordChecks lets queue."""
