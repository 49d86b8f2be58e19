"""Moments as the database stores them, naive UTC (storage.schema.utcnow), and back.

On the core floor because the nightly schedule, the review services and the web app all read
stored times and must show them with their zone.
"""
from __future__ import annotations

from datetime import UTC, datetime


def as_utc(moment: datetime) -> datetime:
    """Aware UTC; a naive datetime is taken to be UTC, as the database stores them
    (storage.schema.utcnow), so a time read back says its zone."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def to_naive_utc(moment: datetime) -> datetime:
    """How the database stores a moment (storage.schema.utcnow's form)."""
    return as_utc(moment).replace(tzinfo=None)
