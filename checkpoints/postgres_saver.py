"""The PostgreSQL checkpointer: `AsyncPostgresSaver` on a pool, keeping LangGraph's contract.

Everything is written by `AsyncPostgresSaver`'s own methods, through the saver's public
interface (`aput`, `aput_writes`, `aget_tuple`, `aprune`, the `lock` attribute); LangGraph's
conformance suite for checkpointers passes on it (tests/integration/
test_checkpoint_conformance.py). The runner runs turns with durability `sync`: each step's
checkpoint is saved before the next step starts (docs/storage.md).

Calls run side by side. `AsyncPostgresSaver` takes one asyncio lock around every call, what
a single shared connection needs; on a pool each call takes a connection of its own, so
its `lock` is a semaphore of the pool's size here.

A task's writes are stored as the task ends (`aput_writes` returns once they are), so a run
resumed after a crash runs again none of the tasks that had finished in the step it stopped
in (with tools that reach other systems, a second call to them). With `defer_writes`
(AGENTLOOP_CHECKPOINT_PENDING_WRITES=deferred, an opt-in that gives this up for fewer round
trips) a step's task writes are held until the checkpoint that follows them instead; once
that checkpoint is saved they are only history (it holds what they wrote, a resume loads
the latest checkpoint's writes alone), so they are dropped unless `step_writes` is set
(retention `all`, which keeps history) or a `DeltaChannel` needs them (it rebuilds its value
from the writes since its last snapshot). What ends a run is written at once, with what is
held for the same checkpoint: an interrupt, an error, and the null task's writes (a run's
input, a resume, a state update), and so is every later write to that checkpoint. A run
that ends any other way (a timeout, a cancellation) has its held writes written by the
runner (`write_held`). A process killed in the middle of a step loses the writes of that
step's finished tasks, which run again when the thread resumes.

A run loads the thread once. The runner reads the thread's latest checkpoint before a turn
(does it wait on a decision? did its last turn end?); `read_latest` loads it and keeps it
for the run's own load that follows, unless the thread is written meanwhile or `KEEP_S`
passes.

The names LangGraph gives the null task and its reserved channels are not public; they are
spelled here, the versions that use them are pinned exactly in pyproject.toml, and
`tests/integration/test_saver_contract.py` fails if an upgrade changes them.
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
)
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"
"""The task id LangGraph gives writes no task made: a run's input, a resume, an update."""

INTERRUPT = "__interrupt__"
ERROR = "__error__"
RESERVED_CHANNELS = frozenset({INTERRUPT, ERROR, "__scheduled__", "__resume__"})
"""The channels whose writes LangGraph keys by name, not position (written at once)."""

PASSED_KEPT = 4096
"""Checkpoints remembered as passed (their writes go straight to the database)."""

KEEP_S = 1.0
"""How long a checkpoint `read_latest` loaded is kept for the run that follows it."""

KEPT_MAX = 1000
"""Threads whose latest checkpoint is kept at most (older reads are dropped first)."""

_WRITES_FROM_ARRAYS = """
    INSERT INTO checkpoint_writes
        (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob)
    SELECT * FROM unnest(
        %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::int[], %s::text[],
        %s::text[], %s::bytea[]
    )
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
"""
UPSERT_WRITES = _WRITES_FROM_ARRAYS + (
    " DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob"
)
"""The stock saver's upsert of a task's writes, for every row at once."""
INSERT_WRITES = _WRITES_FROM_ARRAYS + " DO NOTHING"
"""The stock saver's insert of a task's writes (an earlier write wins), every row at once."""

BLOBS_AT_ONCE = 4
"""From this many changed channels, a checkpoint's blobs go in one statement (a round trip
more, a few statements fewer: fewer than this, the stock saver's one pipeline is cheaper)."""
UPSERT_BLOBS = """
    INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
    SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::bytea[])
    ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
"""
"""The stock saver's insert of a checkpoint's changed channels, every one at once."""

Key = tuple[str, str, str]
"""A checkpoint: thread id, namespace, checkpoint id."""

Held = tuple[str, str, Sequence[tuple[str, Any]]]
"""A task's writes as LangGraph gave them: task id, task path, (channel, value) pairs."""


class PooledPostgresSaver(AsyncPostgresSaver):
    """`AsyncPostgresSaver` on a pool.

    `concurrent`: calls that may hold a connection at once. `defer_writes`: hold a step's
    task writes until its checkpoint (the opt-in above). `step_writes`: with `defer_writes`,
    store them beside the checkpoint that follows them (the history a replay shows).
    """

    def __init__(
        self,
        pool: Any,
        concurrent: int,
        *,
        defer_writes: bool = False,
        step_writes: bool = False,
    ) -> None:
        super().__init__(pool)
        self.defer_writes = defer_writes
        self.step_writes = step_writes
        self.lock = asyncio.Semaphore(concurrent)  # type: ignore[assignment]
        self._held: dict[Key, list[Held]] = {}
        """By checkpoint: its tasks' writes, not yet written (`defer_writes` only)."""
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
        """Store a task's writes; with `defer_writes`, hold them for the step's checkpoint."""
        key = _key(config)
        self._forget(key[0])
        if not self.defer_writes:
            await self._store_writes(key, writes, task_id, task_path)
            return
        reserved = any(channel in RESERVED_CHANNELS for channel, _ in writes)
        if task_id != NULL_TASK_ID and key not in self._passed and not reserved:
            # LangGraph reuses the sequence it passes: a copy is held.
            self._held.setdefault(key, []).append((task_id, task_path, tuple(writes)))
            return
        if any(channel in (INTERRUPT, ERROR) for channel, _ in writes):
            self._pass(key)
        await self._write(key, [*self._held.pop(key, []), (task_id, task_path, writes)])

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Save a checkpoint; with `defer_writes`, the writes held for its parent first."""
        configurable = config["configurable"]
        thread_id = str(configurable["thread_id"])
        self._forget(thread_id)
        parent = configurable.get("checkpoint_id")
        if parent and self.defer_writes:
            key = (thread_id, str(configurable.get("checkpoint_ns", "")), str(parent))
            held = self._held.pop(key, [])
            self._pass(key)
            # a delta channel's value is rebuilt from the writes since its last snapshot
            if held and (self.step_writes or metadata.get("counters_since_delta_snapshot")):
                await self._write(key, held)
        values = checkpoint["channel_values"]
        blobs = {k: v for k, v in new_versions.items() if k in values and not _inline(values[k])}
        if len(blobs) >= BLOBS_AT_ONCE:
            # The stock saver sends a statement per changed channel (a turn's first step
            # changes a dozen); one statement of arrays stores them all, the checkpoint next.
            namespace = str(configurable.get("checkpoint_ns", ""))
            rows = self._dump_blobs(thread_id, namespace, values, blobs)
            async with self._cursor() as cur:
                await cur.execute(
                    UPSERT_BLOBS, [list(column) for column in zip(*rows, strict=True)]
                )
            new_versions = {k: v for k, v in new_versions.items() if k not in blobs}
        return await super().aput(config, checkpoint, metadata, new_versions)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete the thread's checkpoints and writes, and what is held for it."""
        self._forget(str(thread_id))
        for key in [key for key in self._held if key[0] == str(thread_id)]:
            del self._held[key]
        await super().adelete_thread(thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Prune the threads (`AsyncPostgresSaver.aprune`); nothing loaded of them is kept."""
        if not isinstance(thread_ids, str):
            for thread_id in thread_ids:
                self._forget(str(thread_id))
        await super().aprune(thread_ids, strategy=strategy)

    async def write_held(self, thread_id: str) -> None:
        """Write what is held for the thread's checkpoints (a run ended without saving them)."""
        for key in [key for key in self._held if key[0] == thread_id]:
            self._pass(key)
            await self._write(key, self._held.pop(key, []))

    async def _write(self, key: Key, held: list[Held]) -> None:
        """Write tasks' writes to the checkpoint `key`, side by side on the pool."""
        thread_id, namespace, checkpoint_id = key
        config: RunnableConfig = {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": namespace,
                "checkpoint_id": checkpoint_id,
            }
        }
        put = super().aput_writes
        await asyncio.gather(*(put(config, writes, task, path) for task, path, writes in held))

    async def _store_writes(
        self, key: Key, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str
    ) -> None:
        """Store one task's writes as `aput_writes` does, in one statement instead of one a row.

        A step's task writes a row per channel it sets (a dozen for some nodes): sent as one
        statement of arrays, they cost a turn a few milliseconds of CPU less. The rows, the
        conflict rule (reserved channels keyed by name are replaced, others kept) and the
        serialization are the stock saver's (`_dump_writes`, `WRITES_IDX_MAP`).
        """
        if not writes:
            return
        rows = self._dump_writes(*key, task_id, task_path, writes)
        columns = [list(column) for column in zip(*rows, strict=True)]
        replace = all(channel in WRITES_IDX_MAP for channel, _ in writes)
        async with self._cursor() as cur:
            await cur.execute(UPSERT_WRITES if replace else INSERT_WRITES, columns)

    def _forget(self, thread_id: str) -> None:
        """The thread is written: what `read_latest` loaded or is loading is stale."""
        self._kept.pop(thread_id, None)
        self._reading.discard(thread_id)

    def _pass(self, key: Key) -> None:
        _remember(self._passed, key, None, PASSED_KEPT)


def _inline(value: Any) -> bool:
    """Whether the stock saver keeps a channel's value in the checkpoint row, not as a blob."""
    return value is None or isinstance(value, str | int | float | bool)


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
