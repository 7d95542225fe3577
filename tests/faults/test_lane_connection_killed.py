"""A lane's connection killed while its turn runs: the thread still never runs twice at once.

Two workers (each its own lanes and pool) on one PostgreSQL database. While worker A holds
a thread's lane, the backend of one of its lane connections is ended with
`pg_terminate_backend`, which frees that connection's advisory lock; worker B then asks for
the same thread's lane and must wait until A's turn is over.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
import pytest

from checkpoints.lanes import LOCKS, LaneLostError, Lanes, lock_key
from core.settings import Settings

pytestmark = pytest.mark.postgres

THREAD = "T1:C1:1700000000.000100"
HANG_GUARD_S = 120.0
"""Far past any wait here: reaching it means a lane or a turn hung."""
POLL_S = 0.02


async def _holder(admin: Any, key: int) -> int:
    """The backend holding the advisory lock `key` (a bigint lock is two 32-bit halves)."""
    unsigned = key & 0xFFFFFFFFFFFFFFFF
    cur = await admin.execute(
        "select pid from pg_locks where locktype = 'advisory' and granted"
        " and classid::bigint = %s and objid::bigint = %s and objsubid = 1",
        (unsigned >> 32, unsigned & 0xFFFFFFFF),
    )
    row = await cur.fetchone()
    assert row is not None, "nobody holds the lock"
    return int(row[0])


async def _kill(admin: Any, backend: int) -> None:
    """End the backend and return once it is gone (and its locks with it)."""
    await admin.execute("select pg_terminate_backend(%s)", (backend,))
    gone = "select 1 from pg_stat_activity where pid = %s"
    await _until(lambda: _none(admin, gone, backend))


async def _waiting_or_in(admin: Any, events: list[str], name: str) -> None:
    """Return once a backend waits for an advisory lock, or worker `name` is in the lane."""
    waiting = "select 1 from pg_locks where locktype = 'advisory' and not granted"

    async def either() -> bool:
        return f"{name} in" in events or not await _none(admin, waiting)

    await _until(either)


async def _none(admin: Any, query: str, *params: Any) -> bool:
    return not await (await admin.execute(query, params)).fetchall()


async def _until(condition: Callable[[], Awaitable[bool]]) -> None:
    for _ in range(int(HANG_GUARD_S / POLL_S)):
        if await condition():
            return
        await asyncio.sleep(POLL_S)
    raise AssertionError("the condition never held")


async def _turn(
    lanes: Lanes, name: str, events: list[str], until: asyncio.Event, entered: asyncio.Event
) -> None:
    async with lanes.hold(THREAD):
        events.append(f"{name} in")
        entered.set()
        await until.wait()
        events.append(f"{name} out")


@pytest.mark.parametrize("killed", range(LOCKS))
async def test_a_killed_lane_connection_never_lets_a_second_worker_in(
    pg_url: str, make_settings: Callable[..., Settings], killed: int
) -> None:
    settings = make_settings(database_url=pg_url, checkpointer="postgres")
    events: list[str] = []
    a_done, b_done = asyncio.Event(), asyncio.Event()
    b_done.set()
    async with (
        Lanes.open(settings) as worker_a,
        Lanes.open(settings) as worker_b,
        await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as admin,
    ):
        a_in = asyncio.Event()
        a = asyncio.create_task(_turn(worker_a, "a", events, a_done, a_in))
        await a_in.wait()
        await _kill(admin, await _holder(admin, lock_key(THREAD, killed)))
        b = asyncio.create_task(_turn(worker_b, "b", events, b_done, asyncio.Event()))
        await _waiting_or_in(admin, events, "b")
        assert events == ["a in"]
        a_done.set()
        await a
        await b
    assert events == ["a in", "a out", "b in", "b out"]


async def test_a_lane_that_loses_every_connection_stops_its_turn(
    pg_url: str, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(database_url=pg_url, checkpointer="postgres")
    events: list[str] = []
    never = asyncio.Event()
    async with (
        Lanes.open(settings) as worker,
        await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as admin,
    ):
        entered = asyncio.Event()
        turn = asyncio.create_task(_turn(worker, "a", events, never, entered))
        await entered.wait()
        for n in range(LOCKS):
            await _kill(admin, await _holder(admin, lock_key(THREAD, n)))
        with pytest.raises(LaneLostError):
            async with asyncio.timeout(HANG_GUARD_S):
                await turn
        assert events == ["a in"]
        # the lane is free again, on fresh connections
        async with worker.hold(THREAD):
            events.append("again")
    assert events == ["a in", "again"]
