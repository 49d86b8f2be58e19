"""The delivery policy of every task: how each way a step can end becomes done, retry or fail."""
from __future__ import annotations

import kombu.exceptions
import pytest
import redis.exceptions
import sqlalchemy.exc
from celery.exceptions import SoftTimeLimitExceeded

from pipelines.dag import Stage
from pipelines.datamodel import DocumentFailed
from pipelines.steps import PagesPending
from workers.outcome import Done, Fail, Limits, Retry, outcome

LIMITS = Limits(Stage.SEGMENT, time_limit_s=600, infrastructure_retries=5, pages_pending_retries=20)


def test_no_error_is_done() -> None:
    assert outcome(None, 0, LIMITS) == Done()


def test_a_document_problem_fails_the_document_at_the_stage_it_names() -> None:
    error = DocumentFailed(Stage.OCR, "tesseract failed on page 3")
    assert outcome(error, 0, LIMITS) == Fail(Stage.OCR, "tesseract failed on page 3")


def test_the_soft_time_limit_fails_the_document_naming_stage_and_limit() -> None:
    decided = outcome(SoftTimeLimitExceeded(), 0, LIMITS)
    assert decided == Fail(Stage.SEGMENT, "stopped by the 600 s time limit of the segment stage")


@pytest.mark.parametrize("error", [
    sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("server closed the connection")),
    sqlalchemy.exc.InterfaceError("SELECT 1", {}, Exception("connection already closed")),
    kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:6379"),
    redis.exceptions.ConnectionError("Connection refused"),
])
def test_an_infrastructure_error_is_retried_with_backoff_below_the_cap(error: Exception) -> None:
    decided = [outcome(error, attempt, LIMITS) for attempt in range(5)]
    assert all(isinstance(d, Retry) and d.max_retries == 5 for d in decided)
    assert [d.countdown for d in decided] == [1, 2, 4, 8, 16]


def test_an_infrastructure_error_fails_the_document_at_the_cap() -> None:
    error = redis.exceptions.ConnectionError("Connection refused")
    decided = outcome(error, 5, LIMITS)
    assert decided == Fail(Stage.SEGMENT, "infrastructure error after 5 retries: Connection refused")
    assert not decided.bug


def test_backoff_never_waits_more_than_thirty_seconds() -> None:
    limits = Limits(Stage.INGEST, 120, infrastructure_retries=10, pages_pending_retries=2)
    decided = outcome(redis.exceptions.ConnectionError("down"), 8, limits)
    assert isinstance(decided, Retry) and decided.countdown == 30


def test_a_constraint_violation_is_a_bug_not_an_infrastructure_failure() -> None:
    error = sqlalchemy.exc.IntegrityError("INSERT", {}, Exception('duplicate key value violates "uq_page_document_number"'))
    decided = outcome(error, 0, LIMITS)
    assert isinstance(decided, Fail) and decided.bug
    assert decided.stage is Stage.SEGMENT and "constraint was violated" in decided.reason
    assert "uq_page_document_number" in decided.reason


def test_a_bug_fails_the_document_with_the_exception_and_a_traceback() -> None:
    decided = outcome(KeyError("category"), 0, LIMITS)
    assert decided == Fail(Stage.SEGMENT, "internal error in segment: KeyError: 'category'", bug=True)


def test_pages_still_being_read_are_waited_for_then_fail_as_ocr() -> None:
    pending = PagesPending("pages [2, 3] still wait for OCR")
    assert outcome(pending, 19, LIMITS) == Retry(countdown=1, max_retries=20, why="pages [2, 3] still wait for OCR")
    assert outcome(pending, 20, LIMITS) == Fail(Stage.OCR, "OCR did not complete: pages [2, 3] still wait for OCR")
