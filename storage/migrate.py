"""Bring a database to the current schema with Alembic (run by every entry point at start)."""
from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from storage.database import get_engine

MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str) -> None:
    engine = get_engine(url)
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Workers starting together would otherwise race to create the same tables.
            connection.exec_driver_sql("SELECT pg_advisory_xact_lock(471128)")
        config = alembic_config(url)
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
