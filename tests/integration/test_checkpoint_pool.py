"""The PostgreSQL checkpointer saves different threads' steps side by side on its pool."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AsyncExitStack

from checkpoints import tables
from checkpoints.savers import open_checkpointer, setup_checkpointer
from core.settings import Settings


async def test_a_saver_call_does_not_wait_for_other_calls(
    pg_url: str, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(database_url=pg_url, checkpointer="postgres")
    await setup_checkpointer(settings)
    async with open_checkpointer(settings) as saver, AsyncExitStack() as in_flight:
        async with asyncio.timeout(5):  # one call at a time would wait here for good
            # calls of other threads' runs in flight, each on a connection of its own
            for _ in range(settings.checkpoint_pool_size - 3):
                await in_flight.enter_async_context(saver.lock)  # type: ignore[attr-defined]
                await in_flight.enter_async_context(saver.conn.connection())  # type: ignore[attr-defined]
            # a thread's own call, and the runner's read of the tables, go on meanwhile
            assert await saver.aget_tuple({"configurable": {"thread_id": "pool-1"}}) is None
            assert await tables.latest(saver, "pool-1", "status") == tables.Latest(
                exists=False, interrupted=False, value=None
            )
