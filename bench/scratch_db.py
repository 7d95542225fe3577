"""A PostgreSQL database created for one benchmark run and dropped after it."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import psycopg

from bench.workspace import PG_ADMIN_URL
from checkpoints.savers import setup_checkpointer
from core.settings import Settings
from tools.pack_data import upgrade_workspace


@asynccontextmanager
async def scratch_postgres(label: str) -> AsyncIterator[str]:
    """Yield the URL of a new, migrated database `agentloop_bench_<label>_<hex>`; drop it after.

    Migrated means the workspace tables (so runs are audited, as in production) and the
    checkpoint tables. Raises `psycopg.OperationalError` when the server does not answer.
    """
    name = f"agentloop_bench_{label}_{uuid.uuid4().hex[:8]}"
    async with await psycopg.AsyncConnection.connect(PG_ADMIN_URL, autocommit=True) as admin:
        await admin.execute(f'CREATE DATABASE "{name}"')
    url = f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}"
    try:
        settings = Settings(_env_file=None, database_url=url)
        await asyncio.to_thread(upgrade_workspace, settings)
        await setup_checkpointer(settings)
        yield url
    finally:
        async with await psycopg.AsyncConnection.connect(PG_ADMIN_URL, autocommit=True) as admin:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
