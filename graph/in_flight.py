"""The runner calls in progress in one process, so a stopping process can end them cleanly.

Each call runs as a task of its own. `shutdown` stops new calls, lets those in flight end
within a grace period, and cancels the rest, saying why: their runs are recorded
`interrupted`, their threads keep their last saved step, and a resume carries them on.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from checkpoints.lanes import Lane, LaneLostError, Lanes, OnWait
from graph.results import TurnResult
from prompts import replies

logger = logging.getLogger(__name__)

T = TypeVar("T")

SHUTDOWN = "the process was asked to stop"
LANE_LOST = "the process lost its connection to the database"
CANCELLED_WAIT_S = 5.0
"""How long a shutdown waits for the calls it cancelled to record how they ended."""


@dataclass
class Invocation:
    """One runner call: its run id (known before the run starts), and why it was stopped."""

    run_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    started: bool = False
    """Whether the run began (it has its audit row and run id from then on)."""
    lane: Lane | None = None
    stopped_by: str | None = None

    def stop_cause(self) -> str | None:
        """Why the call was cancelled, when it was not by its caller (None: by its caller)."""
        if self.lane is not None and self.lane.lost:
            return LANE_LOST
        return self.stopped_by


class Interrupted(Exception):
    """A call a shutdown cancelled (its run, if it began, is recorded `interrupted`)."""


class NotStarted(Exception):
    """A call that arrived after the process began to stop: nothing ran."""


class InFlight:
    """Tracks the runner calls of a process."""

    def __init__(self) -> None:
        self._calls: dict[asyncio.Task[Any], Invocation] = {}
        self.stopping = False

    async def call(
        self,
        lanes: Lanes,
        thread_id: str,
        on_wait: OnWait | None,
        work: Callable[[Invocation], Coroutine[Any, Any, TurnResult]],
    ) -> TurnResult:
        """Run a runner call in the thread's lane; a stop or a lost lane is its result."""
        call = Invocation()
        try:
            async with lanes.hold(thread_id, on_wait) as lane:
                call.lane = lane
                return await self.run(work(call), call)
        except LaneLostError:
            return interrupted(thread_id, call, LANE_LOST)
        except (Interrupted, NotStarted):
            return interrupted(thread_id, call, SHUTDOWN)

    async def run(self, work: Coroutine[Any, Any, T], invocation: Invocation) -> T:
        """Run `work` as a task a shutdown can interrupt.

        Raises:
            Interrupted: a shutdown cancelled it.
            NotStarted: the process is stopping; `work` never ran.
        """
        if self.stopping:
            work.close()
            raise NotStarted
        task = asyncio.create_task(work)
        self._calls[task] = invocation
        try:
            return await task
        except asyncio.CancelledError:
            caller = asyncio.current_task()
            if invocation.stopped_by is not None and (caller is None or not caller.cancelling()):
                raise Interrupted from None
            raise
        finally:
            self._calls.pop(task, None)

    async def shutdown(self, grace_s: float) -> int:
        """Refuse new calls; give those in flight `grace_s` to end; interrupt the rest.

        Returns how many were interrupted.
        """
        self.stopping = True
        calls = dict(self._calls)
        if not calls:
            return 0
        logger.info("stopping: %d turn(s) in flight get %.1f s to end", len(calls), grace_s)
        _done, late = await asyncio.wait(calls, timeout=grace_s)
        for task in late:
            calls[task].stopped_by = SHUTDOWN
            task.cancel()
        if late:
            logger.warning("stopping: %d turn(s) interrupted after the grace period", len(late))
            # Their runs record how they ended as they unwind.
            await asyncio.wait(late, timeout=CANCELLED_WAIT_S)
        return len(late)


def interrupted(thread_id: str, call: Invocation, cause: str) -> TurnResult:
    """The result of a call stopped by `cause`: how to carry it on, or that nothing ran."""
    if not call.started:
        return TurnResult(thread_id, "", "interrupted", replies.not_started(cause))
    text = replies.turn_interrupted(thread_id, call.run_id, cause)
    return TurnResult(thread_id, call.run_id, "interrupted", text)
