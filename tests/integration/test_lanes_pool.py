"""More threads than the lanes' pool holds pairs of connections: they queue, none is stuck."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from checkpoints.lanes import Lanes
from core.settings import Settings

pytestmark = pytest.mark.postgres

HANG_GUARD_S = 120.0
"""Far past any wait here: reaching it means lanes were stuck on the pool."""


async def test_lanes_beyond_the_pool_wait_their_turn(
    pg_url: str, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(database_url=pg_url, checkpointer="postgres", lanes_pool_size=4)
    ran: list[str] = []

    async def turn(lanes: Lanes, thread: str) -> None:
        async with lanes.hold(thread):
            await asyncio.sleep(0.05)
            ran.append(thread)

    async with Lanes.open(settings) as lanes, asyncio.timeout(HANG_GUARD_S):
        await asyncio.gather(*(turn(lanes, f"thread-{n}") for n in range(8)))
    assert sorted(ran) == [f"thread-{n}" for n in range(8)]
