"""A second event loop, in its own thread, where turns run.

The loop that serves Slack's requests only verifies, parses and acknowledges them; every
piece of work (claiming the event id, reading the thread, the turn itself, posting) is
handed to this loop. Acknowledgement latency then stays independent of how many turns are
in progress, whatever they do on their loop (database writes, model calls, JSON work).
Everything turns use (the runner, the databases, the Web API client) is opened on this
loop and only used from it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Coroutine
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")


class TurnLoop:
    """Runs coroutines on a dedicated thread's event loop; `close` ends it."""

    def __init__(self, name: str = "slack-turns") -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._stack = AsyncExitStack()
        self._jobs: set[concurrent.futures.Future[Any]] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        """The submitted jobs' tasks (touched only on the turn loop)."""
        self._closing = False

    def start(self) -> None:
        """Start the thread and its loop."""
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            # Whatever is left (a listener Bolt started late, a progress edit) ends here,
            # as `asyncio.run` ends a program's tasks.
            left = asyncio.all_tasks(self._loop)
            for task in left:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()

    async def call(self, work: Coroutine[Any, Any, T]) -> T:
        """Run `work` on the turn loop and wait for its result (from another loop)."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self._loop))

    def submit(self, work: Coroutine[Any, Any, Any]) -> concurrent.futures.Future[Any]:
        """Start `work` on the turn loop without waiting; a failure is logged with its traceback.

        Once `close` began, new work is dropped (its future is cancelled).
        """
        if self._closing:
            work.close()
            dropped: concurrent.futures.Future[Any] = concurrent.futures.Future()
            dropped.cancel()
            return dropped
        job = asyncio.run_coroutine_threadsafe(self._tracked(work), self._loop)
        self._jobs.add(job)
        job.add_done_callback(self._finished)
        return job

    async def _tracked(self, work: Coroutine[Any, Any, T]) -> T:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            return await work
        finally:
            self._tasks.discard(task)

    def _finished(self, job: concurrent.futures.Future[Any]) -> None:
        self._jobs.discard(job)
        if job.cancelled():
            return
        error = job.exception()
        if error is not None:
            logger.error("a Slack job failed", exc_info=error)

    async def enter(self, context: AbstractAsyncContextManager[T]) -> T:
        """Enter `context` on the turn loop; it is exited by `close`."""
        return await self.call(self._stack.enter_async_context(context))

    async def settle(self, timeout_s: float) -> None:
        """Wait up to `timeout_s` for the jobs running now (a turn's last posts) to end."""
        await self.call(self._wait_for_jobs(timeout_s))

    async def _wait_for_jobs(self, timeout_s: float) -> None:
        tasks = [task for task in self._tasks if task is not asyncio.current_task()]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout_s)

    async def close(self) -> None:
        """Cancel the jobs still running, exit the entered contexts, stop the thread."""
        if not self._thread.is_alive():
            return
        self._closing = True
        await self.call(self._cancel_jobs())
        try:
            await self.call(self._stack.aclose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            await asyncio.to_thread(self._thread.join, 30)

    async def _cancel_jobs(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
