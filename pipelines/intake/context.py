"""What every step of one watcher reads and none changes: its settings, its drop folder, and
what follows from them once (the ledger's database, the local time zone, the outbox's name
limit).  A module of its own so that the steps take it without importing the loop that runs
them."""
from __future__ import annotations

from dataclasses import dataclass
from zoneinfo import ZoneInfo

from pipelines.intake.rules import DropFolder
from pipelines.settings import Settings

LOG_STAGE = "intake"
"""The stage of every log line the watcher writes, and of the error record of a file that ends
without a batch (refused at the claim, or a known duplicate)."""


@dataclass(frozen=True)
class Context:
    """One watcher's drop folder and settings, as each step sees them."""

    settings: Settings
    drop: DropFolder
    url: str
    """The database of the intake ledger."""
    zone: ZoneInfo
    """Batch ids and processed/YYYY-MM-DD/ are in local time."""
    name_max: int
    """The longest name the outbox's file system holds, asked once (DropFolder.name_max)."""

    @classmethod
    def of(cls, settings: Settings, drop: DropFolder) -> Context:
        return cls(settings, drop, settings.effective_database_url, ZoneInfo(settings.timezone), drop.name_max())
