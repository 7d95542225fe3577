"""Stops that reach a turn wherever it runs: in this process, and with PostgreSQL in any worker.

With the PostgreSQL checkpointer several workers serve one workspace and a thread's turn
runs in whichever took its message, so "stop" may arrive at another one. Each worker
LISTENs on the `agentloop_stop` channel; a stop cancels the matching turns here, and
NOTIFYs the others, which cancel theirs and answer on `agentloop_stopped` with how many
they stopped. With SQLite (one process) a stop stays in-process.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

from core.settings import Settings

logger = logging.getLogger(__name__)

STOP_CHANNEL = "agentloop_stop"
STOPPED_CHANNEL = "agentloop_stopped"
LocalStop = Callable[[str, bool], int]
"""Cancels this process's turns for (target, exact); returns how many."""
_RECONNECT_S = 1.0


class StopSignals:
    """Sends stops to every worker (PostgreSQL) or only to this process (`url` None)."""

    def __init__(self, local: LocalStop, url: str | None = None, reply_wait_s: float = 0.5):
        self._local = local
        self._url = url
        self._reply_wait = reply_wait_s
        self._worker = uuid.uuid4().hex
        self._replies: dict[str, list[int]] = {}
        self._answered: dict[str, asyncio.Event] = {}
        self._listening = asyncio.Event()
        self._listener: asyncio.Task[None] | None = None
        self._sender: Any = None
        self._send_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    @classmethod
    @asynccontextmanager
    async def open(cls, settings: Settings, local: LocalStop) -> AsyncIterator[StopSignals]:
        """Yield the signals for the configured checkpointer (across workers on PostgreSQL)."""
        if settings.checkpointer_kind() != "postgres":
            yield cls(local)
            return
        signals = cls(local, settings.postgres_url())
        signals._listener = asyncio.create_task(signals._listen())
        try:
            await asyncio.wait_for(signals._listening.wait(), timeout=10)
            yield signals
        finally:
            signals._listener.cancel()
            await asyncio.gather(signals._listener, *signals._tasks, return_exceptions=True)
            if signals._sender is not None:
                await signals._sender.close()

    @property
    def distributed(self) -> bool:
        """Whether stops reach other workers."""
        return self._url is not None

    async def stop(self, target: str, exact: bool) -> int:
        """Stop the turns a thread id (`exact`) or a `team:channel:` prefix names; return how many.

        A thread runs in one place at a time, so a thread stopped here is not looked for
        elsewhere; otherwise the other workers have `reply_wait_s` to answer.
        """
        stopped = self._local(target, exact)
        if self._url is None or (exact and stopped):
            return stopped
        request = uuid.uuid4().hex
        replies = self._replies[request] = []
        answered = self._answered[request] = asyncio.Event()
        try:
            await self._notify(
                STOP_CHANNEL,
                {"id": request, "target": target, "exact": exact, "from": self._worker},
            )
            with suppress(TimeoutError):
                # A thread's turn runs in one worker: its answer is the only one to wait for.
                if exact:
                    await asyncio.wait_for(answered.wait(), self._reply_wait)
                else:
                    await asyncio.sleep(self._reply_wait)
        finally:
            del self._replies[request], self._answered[request]
        return stopped + sum(replies)

    async def _listen(self) -> None:
        import psycopg

        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self._url or "", autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {STOP_CHANNEL}")
                    await conn.execute(f"LISTEN {STOPPED_CHANNEL}")
                    self._listening.set()
                    async for note in conn.notifies():
                        self._received(note.channel, note.payload)
            except psycopg.OperationalError:
                logger.warning("stop signals: the listening connection was lost", exc_info=True)
                await asyncio.sleep(_RECONNECT_S)

    def _received(self, channel: str, payload: str) -> None:
        try:
            message = json.loads(payload)
        except json.JSONDecodeError:
            message = None
        if not isinstance(message, dict) or not isinstance(message.get("id"), str):
            logger.warning("stop signals: unreadable %s payload %r", channel, payload[:200])
            return
        if channel == STOP_CHANNEL and message.get("from") != self._worker:
            count = self._local(str(message.get("target", "")), bool(message.get("exact", True)))
            if count:
                reply = {"id": message["id"], "count": count}
                task = asyncio.create_task(self._notify(STOPPED_CHANNEL, reply))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        elif channel == STOPPED_CHANNEL and message["id"] in self._replies:
            self._replies[message["id"]].append(int(message.get("count") or 0))
            self._answered[message["id"]].set()

    async def _notify(self, channel: str, message: dict[str, Any]) -> None:
        import psycopg

        payload = json.dumps(message, separators=(",", ":"))
        async with self._send_lock:
            for attempt in (1, 2):
                try:
                    if self._sender is None or self._sender.closed:
                        self._sender = await psycopg.AsyncConnection.connect(
                            self._url or "", autocommit=True
                        )
                    await self._sender.execute("SELECT pg_notify(%s, %s)", (channel, payload))
                    return
                except psycopg.OperationalError:
                    # A connection dropped by a database restart: one fresh try.
                    self._sender = None
                    if attempt == 2:
                        raise
