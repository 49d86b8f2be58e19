"""Bring a database to the current schema with Alembic.

Every process migrates the databases it opens, once, when it first opens them
(storage.database.get_engine): no entry point has to remember to, and a reader that only
looks at results gets the same schema as the workers that wrote them.
"""
from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine

MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str) -> None:
    """Run the migrations on the database at `url` now, on a connection of its own (a no-op
    at the current schema)."""
    engine = create_engine(url)
    try:
        upgrade_engine(engine)
    finally:
        engine.dispose()


def upgrade_engine(engine: Engine) -> None:
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Workers starting together would otherwise race to create the same tables.
            connection.exec_driver_sql("SELECT pg_advisory_xact_lock(471128)")
        config = alembic_config(engine.url.render_as_string(hide_password=False))
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
