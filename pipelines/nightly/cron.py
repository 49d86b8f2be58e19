"""When a crontab(5) schedule fires in a time zone: its windows, and whether one is due.

A schedule is read as a person reads their crontab: five fields (minute hour day-of-month
month day-of-week, or an alias such as @daily) matched against the wall clock of the
configured zone, Sunday being 0 or 7, and day-of-month and day-of-week both restricted
meaning "either".  croniter evaluates the expression; Celery's `crontab` is not used, because
its argument order differs from crontab(5), `day_of_week` alone fires every minute and it
counts Sunday only as 0.

A window starts at each matching wall-clock minute, at the first instant the clock shows it.
Daylight saving time therefore never doubles or drops a run: when the clock falls back, a
time in the repeated hour fires at its first occurrence only; when it springs forward, a time
the clock skips fires once, at the first minute after the jump.  Windows are handled as
aware datetimes in UTC everywhere else.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import croniter

from pipelines.utc import as_utc

CATCH_UP = timedelta(hours=24)
"""A window missed (no scheduler was running) is caught up if it started at most this long ago;
older ones are not replayed."""

_ALIASES = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
_MINUTE = timedelta(minutes=1)
_SEARCH_LIMIT = 5 * 366 * 24 * 60
"""Wall-clock matches to walk before deciding a schedule never fires (Feb 30th): five years."""


class ScheduleError(ValueError):
    """A cron expression or time zone that cannot be used; the message says which and why."""


class Cron:
    """A validated crontab(5) expression in a time zone."""

    def __init__(self, expression: str, timezone_name: str) -> None:
        self.expression = " ".join(expression.split())
        self.timezone_name = timezone_name
        self.zone = zone(timezone_name)
        fields = self.expression.split(" ")
        if not (len(fields) == 5 or (len(fields) == 1 and fields[0].lower() in _ALIASES)):
            raise ScheduleError(
                f"cron expression {expression!r} must have five fields, minute hour day-of-month month "
                f"day-of-week (for example '0 2 * * *', every night at 02:00), or be one of {', '.join(_ALIASES)}"
            )
        if not croniter.is_valid(self.expression):
            raise ScheduleError(f"cron expression {expression!r} is not valid crontab(5) syntax "
                                "(minute 0-59, hour 0-23, day 1-31, month 1-12, day of week 0-7 with 0 and 7 Sunday)")
        self._first_after(datetime(2000, 1, 1), forward=True)  # raises for a schedule that never fires

    def __repr__(self) -> str:
        return f"Cron({self.expression!r}, {self.timezone_name!r})"

    def latest_window(self, now: datetime) -> datetime:
        """The start of the window `now` is in: the latest start at or before `now` (UTC)."""
        now = as_utc(now)
        local = now.astimezone(self.zone).replace(tzinfo=None, second=0, microsecond=0)
        for wall in self._walk(local, forward=False, inclusive=True):
            start = self.instant(wall)
            if start <= now:
                return start
        raise ScheduleError(f"{self!r} has not fired in the five years before {now:%Y-%m-%d}")

    def next_window(self, now: datetime) -> datetime:
        """The first window starting strictly after `now` (UTC)."""
        now = as_utc(now)
        local = now.astimezone(self.zone).replace(tzinfo=None, second=0, microsecond=0)
        for wall in self._walk(local, forward=True, inclusive=False):
            start = self.instant(wall)
            if start > now:
                return start
        raise ScheduleError(f"{self!r} does not fire in the five years after {now:%Y-%m-%d}")

    def windows(self, start: datetime, end: datetime) -> list[datetime]:
        """Every window starting in [start, end), in order, each once."""
        found: list[datetime] = []
        moment = as_utc(start) - timedelta(microseconds=1)
        while (moment := self.next_window(moment)) < as_utc(end):
            found.append(moment)
        return found

    def instant(self, wall: datetime) -> datetime:
        """The UTC instant a naive wall-clock time of the zone first occurs at; a time the clock
        skips maps to the first minute after the jump."""
        for _ in range(24 * 60):
            aware = wall.replace(tzinfo=self.zone, fold=0)
            in_utc = aware.astimezone(UTC)
            if in_utc.astimezone(self.zone).replace(tzinfo=None) == wall:
                return in_utc
            wall += _MINUTE  # inside a spring-forward gap
        raise ScheduleError(f"{wall} never occurs in {self.timezone_name}")  # no zone has a day-long gap

    def local(self, instant: datetime) -> datetime:
        return as_utc(instant).astimezone(self.zone)

    def _walk(self, local: datetime, *, forward: bool, inclusive: bool) -> Iterator[datetime]:
        if inclusive and croniter.match(self.expression, local):
            yield local
        it = croniter(self.expression, local)
        for _ in range(_SEARCH_LIMIT):
            yield it.get_next(datetime) if forward else it.get_prev(datetime)

    def _first_after(self, local: datetime, *, forward: bool) -> datetime:
        try:
            return next(self._walk(local, forward=forward, inclusive=False))
        except (ValueError, KeyError, StopIteration) as error:  # croniter: no match within its horizon
            raise ScheduleError(f"cron expression {self.expression!r} never fires: {error}") from None


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(f"time zone {name!r} is not known; use an IANA name such as 'Europe/Berlin', "
                            "'America/New_York' or 'UTC'") from None


def is_due(cron: Cron, last_run_at: datetime, now: datetime) -> tuple[bool, float]:
    """Whether a window started after `last_run_at` (so a run for it is owed), and how many
    seconds until the next window starts: the (is_due, next) pair Celery beat asks for."""
    due = cron.latest_window(now) > as_utc(last_run_at)
    return due, max((cron.next_window(now) - as_utc(now)).total_seconds(), 0.0)


def catch_up(window: datetime, now: datetime) -> bool:
    """Whether a window that no run claimed yet may still run now (missed within CATCH_UP)."""
    return as_utc(now) - as_utc(window) <= CATCH_UP

