"""The turns running in this process, each a task that a stop can cancel."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")


def matches(thread_id: str, target: str, exact: bool) -> bool:
    """Whether a stop for `target` (a thread id, or a `team:channel:` prefix) names the thread."""
    return thread_id == target if exact else thread_id.startswith(target)


class RunningTurns:
    """Runner calls in progress, by thread id (a thread runs one at a time: the lanes)."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[Any]] = {}

    async def run(self, thread_id: str, work: Coroutine[Any, Any, T]) -> T | None:
        """Run a runner call as a task `stop` can cancel; None when it was stopped."""
        task = asyncio.create_task(work)
        self._tasks[thread_id] = task
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # the caller is being cancelled (shutdown), not only the turn
            logger.info("turn in %s stopped by the person", thread_id)
            return None
        finally:
            if self._tasks.get(thread_id) is task:
                del self._tasks[thread_id]

    def running(self, target: str = "", exact: bool = False) -> list[str]:
        """Return the thread ids with a turn running here that a stop for `target` names."""
        return [
            thread_id
            for thread_id, task in self._tasks.items()
            if not task.done() and matches(thread_id, target, exact)
        ]

    def stop(self, target: str, exact: bool) -> int:
        """Cancel the turns a stop for `target` names; return how many."""
        stopped = self.running(target, exact)
        for thread_id in stopped:
            self._tasks[thread_id].cancel()
        return len(stopped)

    async def close(self) -> None:
        """Cancel every running turn and wait for them (shutdown)."""
        tasks = [task for task in self._tasks.values() if not task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
