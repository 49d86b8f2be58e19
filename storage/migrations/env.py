"""Alembic environment: runs on the connection handed over by storage.migrate, else on the URL."""
from alembic import context
from sqlalchemy import create_engine

from storage.schema import Base

config = context.config
target_metadata = Base.metadata


def run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    run(connection)
else:
    with create_engine(config.get_main_option("sqlalchemy.url")).connect() as fresh:
        run(fresh)
        fresh.commit()
