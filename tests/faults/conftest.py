"""Fixtures of the fault suite: a CLI environment on a fresh workspace, queries on it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from checkpoints.savers import setup_checkpointer
from core.db.engine import sync_url
from core.settings import Settings

ON_POSTGRES = pytest.mark.parametrize(
    "workspace_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
"""Run a test on the PostgreSQL workspace only (so with the Postgres checkpointer)."""

Query = Callable[[str], list[Any]]


@pytest.fixture
def cli_env(workspace_url: str, tmp_path: Path) -> dict[str, str]:
    """Environment of `agentloop` processes on the test's workspace, checkpoint tables made.

    The workspace is migrated already; this is the checkpointer's half of `db upgrade`.
    """
    data = tmp_path / "data"
    settings = Settings(_env_file=None, database_url=workspace_url, data_dir=data)
    asyncio.run(setup_checkpointer(settings))
    return {"DATABASE_URL": workspace_url, "AGENTLOOP_DATA_DIR": str(data)}


@pytest.fixture
def query(workspace_url: str) -> Query:
    """Run a SQL statement on the workspace and return its rows."""

    def run(statement: str) -> list[Any]:
        engine = create_engine(sync_url(Settings(_env_file=None, database_url=workspace_url)))
        try:
            with engine.connect() as conn:
                return list(conn.execute(text(statement)))
        finally:
            engine.dispose()

    return run
