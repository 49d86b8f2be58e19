"""What a task does with the way its step ended: the delivery policy as one pure function.

A task never raises for a problem of the document itself: a raising chord member (an OCR
page) would break its chord and strand the document.  So every ending maps to one of three
outcomes, decided here without Celery so each branch is unit-tested:

  - no error → `Done`;
  - `DocumentFailed` (corrupt, encrypted, OCR failure, ...) → `Fail` with its stage and reason;
  - the soft time limit → `Fail`, naming the stage and the limit;
  - OCR pages not landed yet (`PagesPending`) → `Retry` every second, for up to twice the
    page time limit, then `Fail`;
  - an infrastructure error (database or broker unreachable, SQLite busy) → `Retry` with
    backoff, `infrastructure_retries` times, then `Fail`;
  - anything else is a bug → `Fail` with the exception, logged with its traceback.  An
    `IntegrityError` is one too: every write replaces its rows under the document's row lock,
    so a constraint violation is a real one, and retrying would only repeat it.
"""
from __future__ import annotations

from dataclasses import dataclass

import kombu.exceptions
import redis.exceptions
import sqlalchemy.exc
from celery.exceptions import SoftTimeLimitExceeded

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed
from pipelines.steps import PagesPending

INFRASTRUCTURE_ERRORS: tuple[type[BaseException], ...] = (
    sqlalchemy.exc.OperationalError,  # server gone, connection reset, SQLite "database is locked"
    sqlalchemy.exc.InterfaceError,
    kombu.exceptions.OperationalError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
)
MAX_BACKOFF_S = 30


@dataclass(frozen=True)
class Done:
    pass


@dataclass(frozen=True)
class Retry:
    countdown: float
    max_retries: int  # Celery's cap for this kind of retry, counted over all of the task's retries
    why: str


@dataclass(frozen=True)
class Fail:
    stage: Stage
    reason: str
    bug: bool = False  # log the traceback: nothing the user did explains it


Outcome = Done | Retry | Fail


@dataclass(frozen=True)
class Limits:
    """What one task may spend: its stage's time limit and how often it may be retried."""

    stage: Stage
    time_limit_s: int
    infrastructure_retries: int
    pages_pending_retries: int
    """One-second waits for OCR pages: twice as long as one page may take (its time limit)."""


def outcome(error: BaseException | None, attempt: int, limits: Limits) -> Outcome:
    """`attempt` counts earlier retries of this delivery (Celery's `request.retries`, 0 at first)."""
    if error is None:
        return Done()
    stage = limits.stage
    if isinstance(error, DocumentFailed):
        return Fail(error.stage, error.reason)
    if isinstance(error, SoftTimeLimitExceeded):
        return Fail(stage, f"stopped by the {limits.time_limit_s} s time limit of the {stage} stage")
    if isinstance(error, PagesPending):
        if attempt < limits.pages_pending_retries:
            return Retry(countdown=1, max_retries=limits.pages_pending_retries, why=str(error))
        return Fail(Stage.OCR, f"OCR did not complete: {error}")
    if isinstance(error, INFRASTRUCTURE_ERRORS):
        if attempt < limits.infrastructure_retries:
            return Retry(countdown=min(2 ** attempt, MAX_BACKOFF_S), max_retries=limits.infrastructure_retries,
                         why=f"infrastructure error: {error!r}")
        return Fail(stage, f"infrastructure error after {limits.infrastructure_retries} retries: {error}")
    if isinstance(error, sqlalchemy.exc.IntegrityError):
        return Fail(stage, f"internal error in {stage}: a database constraint was violated: {error.orig}", bug=True)
    return Fail(stage, f"internal error in {stage}: {type(error).__name__}: {error}", bug=True)
