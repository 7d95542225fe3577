"""Checkpoint retention: after a run, a thread keeps only the checkpoints resuming needs.

LangGraph writes a checkpoint at every step, and each one stores the whole value of every
channel that changed, the message list included; kept forever, a thread's storage grows
with the square of its length (until compaction bounds the message list, and then by a
whole copy of it per step). With retention `latest` (the default) the runner prunes a
thread after a run once it holds more than `PRUNE_ABOVE` checkpoints: every namespace
keeps its latest checkpoint with its pending writes (an interrupt waiting for a decision,
the results of the tasks that finished beside it), and a finished planner call's
namespace goes. The state, and so the whole message history, is in the latest
checkpoint; the audit tables keep every run's messages. A prune costs about the same
whatever it deletes, so it waits for a few turns' steps instead of following every run.

Postgres uses the saver's own `aprune(strategy="keep_latest")`, one transaction on a
snapshot of the thread. SQLite has no prune, so it is done here with the same rules. The
in-memory saver is left alone: it lives as long as the process. Pruning assumes one run at
a time per thread (the lane); a run that fails to prune is logged and the next one retries.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from typing import Any

from checkpoints.tables import checkpoint_count
from core.settings import CheckpointRetention

logger = logging.getLogger(__name__)

PRUNE_ABOVE = 40
"""Checkpoints a thread may hold before a run prunes it (about four turns' steps)."""

COUNTED_MAX = 10_000
"""Threads whose checkpoints this process counts at most (the least recently run dropped)."""


class Retention:
    """Prunes threads after runs, counting in this process the checkpoints its runs wrote.

    Counting the thread's checkpoints in the database after every run would cost a query a
    turn; the steps a run took are known from its stream (about the checkpoints it wrote),
    so the database is counted (and the thread pruned) only once this process's runs have
    written about `PRUNE_ABOVE` of them. The database's count then replaces the estimate.

    The counts are bounded: a pruned thread is not counted (it starts again from none), and
    past `most` threads the least recently run is dropped. A dropped thread is pruned later
    than it would have been (its next `PRUNE_ABOVE` checkpoints are counted from none), by
    this process or any other that runs it.
    """

    def __init__(self, retention: CheckpointRetention, most: int = COUNTED_MAX) -> None:
        self.retention = retention
        self.most = most
        self._written: dict[str, int] = {}
        """By thread, least recently run first: checkpoints written since it was counted."""

    @property
    def counted(self) -> int:
        """Threads whose checkpoints are counted now."""
        return len(self._written)

    async def after_run(self, saver: Any, thread_id: str, checkpoints: int) -> None:
        """Note that a run wrote about `checkpoints` for the thread; prune when they pile up."""
        if self.retention == "all":
            return
        written = self._written.pop(thread_id, 0) + checkpoints
        if written > PRUNE_ABOVE:
            written = await apply_retention(saver, thread_id, self.retention)
        if not written:
            return
        self._written[thread_id] = written
        if len(self._written) > self.most:
            del self._written[next(iter(self._written))]


async def apply_retention(saver: Any, thread_id: str, retention: CheckpointRetention) -> int:
    """With retention `latest`, prune `thread_id` once it holds more than `PRUNE_ABOVE`.

    Returns the checkpoints it holds after (0 once pruned, or when they could not be
    counted). Database errors are logged with their traceback, not raised: the run's
    answer stands and a later run prunes again.
    """
    if retention == "all":
        return 0
    import psycopg

    try:
        held = await checkpoint_count(saver, thread_id)
        if held <= PRUNE_ABOVE:
            return held
        await prune_thread(saver, thread_id)
    except (psycopg.Error, sqlite3.Error):
        logger.warning("could not prune the checkpoints of thread %s", thread_id, exc_info=True)
    return 0


async def prune_thread(saver: Any, thread_id: str) -> bool:
    """Keep the latest checkpoint of each of the thread's namespaces; return whether pruned.

    Returns False for a saver that is not pruned (in memory, or none).
    """
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    if isinstance(saver, AsyncPostgresSaver):
        await saver.aprune([thread_id], strategy="keep_latest")
        return True
    if isinstance(saver, AsyncSqliteSaver):
        await _prune_sqlite(saver, thread_id)
        return True
    return False


async def _prune_sqlite(saver: Any, thread_id: str) -> None:
    """The `keep_latest` rules on the SQLite saver's tables, in one transaction.

    Only checkpoints older than a namespace's head are deleted, so one written meanwhile
    (by another process sharing the file) is kept whatever was read before.
    """
    await saver.setup()
    async with saver.lock:
        conn = saver.conn
        try:
            heads = await (
                await conn.execute(
                    "SELECT checkpoint_ns, max(checkpoint_id) FROM checkpoints "
                    "WHERE thread_id = ? GROUP BY checkpoint_ns",
                    (thread_id,),
                )
            ).fetchall()
            latest = dict(heads)
            for namespace in await _finished_calls(conn, thread_id, latest):
                for table in ("checkpoints", "writes"):
                    await conn.execute(
                        f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns = ?",
                        (thread_id, namespace),
                    )
                del latest[namespace]
            for namespace, head in latest.items():
                for table in ("writes", "checkpoints"):
                    await conn.execute(
                        f"DELETE FROM {table} "
                        "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?",
                        (thread_id, namespace, head),
                    )
                await conn.execute(
                    "UPDATE checkpoints SET parent_checkpoint_id = NULL "
                    "WHERE thread_id = ? AND checkpoint_ns = ? AND parent_checkpoint_id < ?",
                    (thread_id, namespace, head),
                )
            await conn.commit()
        except BaseException:
            await conn.rollback()
            raise


async def _finished_calls(conn: Any, thread_id: str, latest: dict[str, str]) -> list[str]:
    """Subgraph call namespaces (`node:task_id`) whose root checkpoint is no longer the latest.

    A call belongs to the root checkpoint it started from; while that one is the root's
    latest (the call is paused inside, or running) it stays. The root checkpoint must be
    saved too: a run saves in the background, so a call can be written before its root.
    """
    root_head = latest.get("")
    finished: list[str] = []
    for namespace, head in latest.items():
        if ":" not in namespace:
            continue
        row = await (
            await conn.execute(
                "SELECT metadata FROM checkpoints "
                "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
                (thread_id, namespace, head),
            )
        ).fetchone()
        root = json.loads(row[0]).get("parents", {}).get("") if row and row[0] else None
        if root is None or root == root_head:
            continue
        saved = await (
            await conn.execute(
                "SELECT 1 FROM checkpoints "
                "WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
                (thread_id, root),
            )
        ).fetchone()
        if saved:
            finished.append(namespace)
    return finished
