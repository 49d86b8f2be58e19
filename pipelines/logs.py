"""Structured logs: one JSON object a line, always naming the batch, document and stage.

Bulk audits are debugged by grepping worker logs for a document's sha256 or a batch id, so
those keys are part of every record rather than buried in message text.
"""
from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone

logger = logging.getLogger("clausemill")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "event": record.getMessage(),
            **getattr(record, "fields", {}),
        }
        if record.exc_info:
            payload["error"] = self.formatException(record.exc_info)
        return json.dumps(payload, default=str)


def configure(level: str = "INFO") -> None:
    """Send clausemill's records to stderr as JSON lines (idempotent)."""
    if not any(isinstance(h.formatter, JsonFormatter) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)
        logger.propagate = False
    logger.setLevel(level.upper())


def log(event: str, *, stage: str, batch_id: str | None, sha256: str | None = None,
        document_id: int | None = None, level: int = logging.INFO, exc_info: bool | BaseException | None = False,
        **fields: object) -> None:
    """`exc_info`: True inside an except block, or the exception itself after it."""
    logger.log(level, event, exc_info=exc_info, extra={"fields": {
        "batch": batch_id, "document": document_id, "sha256": sha256, "stage": stage, **fields,
    }})
