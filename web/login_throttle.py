"""Login rate limiting: at most N wrong passwords per user name and client address per window.

Kept in the server's memory: `clausemill serve` is one process, and a restart giving an
attacker a fresh window every few minutes is no gain over waiting it out.  Keyed by name and
address together, so one attacker cannot lock a colleague out from elsewhere.
"""
from __future__ import annotations

import threading
import time
from collections import deque

SWEEP_AT_KEYS = 10_000
"""Past this many (name, address) pairs, pairs with no failure left in the window are dropped,
so guessing many names cannot grow the table without bound."""


class LoginThrottle:
    def __init__(self, max_failures: int, window_s: float) -> None:
        self.max_failures, self.window_s = max_failures, window_s
        self._failures: dict[tuple[str, str], deque[float]] = {}
        self._lock = threading.Lock()

    def retry_after_s(self, name: str, address: str, now: float | None = None) -> float:
        """Seconds until `name` may try again from `address`: 0 while under the limit."""
        now = time.monotonic() if now is None else now
        with self._lock:
            failures = self._recent((name, address), now)
            if len(failures) < self.max_failures:
                return 0.0
            return failures[-self.max_failures] + self.window_s - now

    def failed(self, name: str, address: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            if len(self._failures) >= SWEEP_AT_KEYS:
                for key in list(self._failures):
                    self._recent(key, now)
            failures = self._recent((name, address), now)
            failures.append(now)
            self._failures[(name, address)] = failures

    def succeeded(self, name: str, address: str) -> None:
        with self._lock:
            self._failures.pop((name, address), None)

    def _recent(self, key: tuple[str, str], now: float) -> deque[float]:
        """The key's failures inside the window; a key left with none is forgotten."""
        failures = self._failures.get(key, deque())
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        if not failures:
            self._failures.pop(key, None)
        return failures
