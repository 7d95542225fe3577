"""Alembic environment: migrates the workspace schema on the connection it is handed."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from core.db.base import Base

config = context.config


def _migrate(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite cannot ALTER most things in place; batch mode rebuilds the table.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _migrate(connection)
else:
    with create_engine(config.get_main_option("sqlalchemy.url") or "").begin() as conn:
        _migrate(conn)
