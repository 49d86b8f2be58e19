"""The nightly run's notification: a JSON summary POSTed to CLAUSEMILL_WEBHOOK_URL, retried
with a doubling wait.  Apart from the runs so that delivery and its retry rule need settings
alone, not the database or Celery."""
from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from pipelines.settings import Settings

WEBHOOK_BACKOFF_S = 0.5
"""First wait between webhook attempts; it doubles each time, up to 30 s."""


class WebhookError(RuntimeError):
    """The webhook could not be delivered; the message names the URL and the last problem."""


def notify(settings: Settings, payload: dict, *, sleep: Callable[[float], None] = time.sleep) -> None:
    """POST the run's JSON summary to CLAUSEMILL_WEBHOOK_URL, if set: each attempt times out
    after webhook_timeout_s; failures worth retrying (no answer, 5xx, 408, 429) are retried
    webhook_retries times with a doubling wait, any other answer fails at once."""
    import httpx

    url = settings.webhook_url
    if not url:
        return
    attempts = max(1, settings.webhook_retries + 1)
    problem = ""
    for attempt in range(1, attempts + 1):
        try:
            answer = httpx.post(url, json=payload, timeout=settings.webhook_timeout_s)
        except httpx.TimeoutException:
            problem, retry = f"no answer within {settings.webhook_timeout_s:g} s", True
        except httpx.HTTPError as error:
            problem, retry = f"{type(error).__name__}: {error}", True
        else:
            if answer.is_success:
                return
            problem = f"answered {answer.status_code} {answer.reason_phrase}"
            retry = answer.status_code >= 500 or answer.status_code in (408, 429)
        if not retry:
            break
        if attempt < attempts:
            sleep(min(WEBHOOK_BACKOFF_S * 2 ** (attempt - 1), 30.0))
    raise WebhookError(f"webhook {shown_url(url)} failed after {attempt} attempt(s): {problem}")


def shown_url(url: str) -> str:
    """The URL as messages show it: a password in it is masked."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
