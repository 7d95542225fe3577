"""The PostgreSQL checkpointer: `AsyncPostgresSaver` on a pool, with fewer round trips.

Calls run side by side. `AsyncPostgresSaver` takes one asyncio lock around every call,
what a single shared connection needs; on a pool each call takes a connection of its own,
so threads' steps are saved side by side.

A step's task writes travel with the step's checkpoint. LangGraph saves each task's
writes as the task ends (`aput_writes`), then the step's checkpoint (`aput`). On
`AsyncPostgresSaver` each is a connection taken from the pool, a pipeline and a commit: a
text turn's five tasks cost five round trips beside its four checkpoints. Here a task's
writes are held until the checkpoint that follows them, then serialized and written in
that checkpoint's pipeline (one round trip a step); writes that are not stored (below)
are never serialized. Writes and checkpoints are serialized on the event loop: a step's
values are small, and the parent's hop to a worker thread for each call cost more than
the serializing.

Nothing that ends a run waits: an interrupt or an error is written at once, with what is
held for the same checkpoint, and so is every later write to that checkpoint; so are the
null task's writes (a run's input, a resume, a state update) and any write to a
checkpoint whose step is already saved. A run that ends any other way (a timeout, a
cancellation) has its held writes written by the runner (`write_held`).

What this gives up: a process killed in the middle of a step loses the writes of that
step's finished tasks, and they run again when the thread resumes (as if they had not
finished); a mutation's idempotency key keeps its side effect from happening twice.

Once the next checkpoint is saved, a step's task writes are only history: that checkpoint
holds what they wrote, a resume loads the latest checkpoint's writes alone, and a replay
from an earlier checkpoint runs its tasks again. Unless `step_writes` is set (checkpoint
retention `all`, which keeps history), they are not stored: a text turn writes 3 write
rows instead of 17. They are stored while a `DeltaChannel` needs them (it rebuilds its
value from the writes since its last snapshot), and an interrupted, failed or cut-off
step's writes always are.

A run loads the thread once. The runner reads the thread's latest checkpoint before a
turn (does it wait on a decision? did its last turn end?); `read_latest` loads it and
keeps it for the run's own load that follows, unless the thread is written meanwhile or
`KEEP_S` passes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_serializable_checkpoint_metadata,
)
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.serde.types import ERROR, INTERRUPT, _DeltaSnapshot
from psycopg.types.json import Jsonb

NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"
"""The task id LangGraph gives writes no task made: a run's input, a resume, an update."""

PASSED_KEPT = 4096
"""Checkpoints remembered as passed (their writes go straight to the database)."""

KEEP_S = 1.0
"""How long a checkpoint `read_latest` loaded is kept for the run that follows it."""

KEPT_MAX = 1000
"""Threads whose latest checkpoint is kept at most (older reads are dropped first)."""

Key = tuple[str, str, str]
"""A checkpoint: thread id, namespace, checkpoint id."""

Rows = tuple[str, list[tuple[Any, ...]]]
"""One statement and the rows it writes."""

Held = tuple[str, str, Sequence[tuple[str, Any]]]
"""A task's writes as LangGraph gave them: task id, task path, (channel, value) pairs."""


class PooledPostgresSaver(AsyncPostgresSaver):
    """`AsyncPostgresSaver` on a pool.

    `concurrent`: calls that may hold a connection at once. `step_writes`: store a step's
    task writes beside the checkpoint that follows them (the history a replay shows).
    """

    def __init__(self, pool: Any, concurrent: int, *, step_writes: bool = False) -> None:
        super().__init__(pool)
        self.step_writes = step_writes
        self.lock = asyncio.Semaphore(concurrent)  # type: ignore[assignment]
        self._held: dict[Key, list[Held]] = {}
        """By checkpoint: its tasks' writes, serialized only if they are stored."""
        self._passed: dict[Key, None] = {}
        """Checkpoints whose step is saved or ended by an interrupt or error (an ordered set)."""
        self._kept: dict[str, tuple[CheckpointTuple | None, float]] = {}
        """By thread: the latest checkpoint `read_latest` loaded, and when it expires."""
        self._reading: set[str] = set()
        """Threads `read_latest` is loading (a write to one drops it: what loads is stale)."""

    async def read_latest(self, thread_id: str) -> CheckpointTuple | None:
        """Load the thread's latest checkpoint, kept for the next load of it (the run's)."""
        self._kept.pop(thread_id, None)
        self._reading.add(thread_id)
        try:
            found = await super().aget_tuple({"configurable": {"thread_id": thread_id}})
        finally:
            unwritten = thread_id in self._reading  # no write to the thread meanwhile
            self._reading.discard(thread_id)
        if unwritten:
            _remember(self._kept, thread_id, (found, time.monotonic() + KEEP_S), KEPT_MAX)
        return found

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Load a checkpoint; the thread's latest from `read_latest` if just loaded."""
        configurable = config["configurable"]
        if not configurable.get("checkpoint_id") and not configurable.get("checkpoint_ns"):
            kept = self._kept.pop(str(configurable["thread_id"]), None)
            if kept is not None and time.monotonic() < kept[1]:
                return kept[0]
        return await super().aget_tuple(config)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Hold a task's writes for its step's checkpoint, or write them (and what is held)."""
        key = _key(config)
        self._forget(key[0])
        special = [channel in WRITES_IDX_MAP for channel, _ in writes]
        if task_id != NULL_TASK_ID and key not in self._passed and not any(special):
            self._held.setdefault(key, []).append((task_id, task_path, tuple(writes)))
            return
        query = (
            self.UPSERT_CHECKPOINT_WRITES_SQL if all(special) else self.INSERT_CHECKPOINT_WRITES_SQL
        )
        rows = (query, self._dump_writes(*key, task_id, task_path, writes))
        if any(channel in (INTERRUPT, ERROR) for channel, _ in writes):
            self._pass(key)
        await self._write([*self._dump_held(key), rows])

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Save a checkpoint (with the writes held for its parent if kept) in one pipeline.

        As `AsyncPostgresSaver.aput` stores it (plain values in the checkpoint's row, the
        others as blobs), serialized on the event loop: a step's values are small, and a
        hop to a worker thread cost more than the serializing.
        """
        configurable = config["configurable"]
        thread_id = str(configurable["thread_id"])
        namespace = str(configurable.get("checkpoint_ns", ""))
        parent = configurable.get("checkpoint_id")
        self._forget(thread_id)
        rows: list[Rows] = []
        if parent:
            key = (thread_id, namespace, parent)
            # a delta channel's value is rebuilt from the writes since its last snapshot
            if self.step_writes or metadata.get("counters_since_delta_snapshot"):
                rows += self._dump_held(key)
            self._held.pop(key, None)
            self._pass(key)
        inline = dict(checkpoint["channel_values"])
        blobs: dict[str, Any] = {}
        for channel, value in checkpoint["channel_values"].items():
            if isinstance(value, _DeltaSnapshot):
                blobs[channel] = inline.pop(channel)
                inline[channel] = True
            elif value is not None and not isinstance(value, str | int | float | bool):
                blobs[channel] = inline.pop(channel)
        if versions := {c: v for c, v in new_versions.items() if c in blobs}:
            blob_rows = self._dump_blobs(thread_id, namespace, blobs, versions)
            rows.append((self.UPSERT_CHECKPOINT_BLOBS_SQL, blob_rows))
        stored = Jsonb({**checkpoint, "channel_values": inline})
        described = Jsonb(get_serializable_checkpoint_metadata(config, metadata))
        row = (thread_id, namespace, checkpoint["id"], parent, stored, described)
        rows.append((self.UPSERT_CHECKPOINTS_SQL, [row]))
        await self._write(rows)
        return {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": namespace,
                "checkpoint_id": checkpoint["id"],
            }
        }

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete the thread's checkpoints and writes."""
        self._forget(str(thread_id))
        await super().adelete_thread(thread_id)

    async def write_held(self, thread_id: str) -> None:
        """Write what is held for the thread's checkpoints (a run ended without saving them)."""
        keys = [key for key in self._held if key[0] == thread_id]
        rows = [row for key in keys for row in self._dump_held(key)]
        for key in keys:
            self._pass(key)
        if rows:
            await self._write(rows)

    def _dump_held(self, key: Key) -> list[Rows]:
        """Take what is held for the checkpoint `key`, serialized to be written."""
        return [
            (self.INSERT_CHECKPOINT_WRITES_SQL, self._dump_writes(*key, task, path, writes))
            for task, path, writes in self._held.pop(key, [])
        ]

    async def _write(self, rows: list[Rows]) -> None:
        async with self._cursor(pipeline=True) as cur:
            for query, params in rows:
                await cur.executemany(query, params)

    def _forget(self, thread_id: str) -> None:
        """The thread is written: what `read_latest` loaded or is loading is stale."""
        self._kept.pop(thread_id, None)
        self._reading.discard(thread_id)

    def _pass(self, key: Key) -> None:
        _remember(self._passed, key, None, PASSED_KEPT)


def _key(config: RunnableConfig) -> Key:
    configurable = config["configurable"]
    return (
        str(configurable["thread_id"]),
        str(configurable.get("checkpoint_ns", "")),
        str(configurable["checkpoint_id"]),
    )


def _remember(entries: dict[Any, Any], key: Any, value: Any, most: int) -> None:
    """Set `entries[key]` as its newest entry, dropping the oldest beyond `most`."""
    entries.pop(key, None)
    entries[key] = value
    if len(entries) > most:
        del entries[next(iter(entries))]
