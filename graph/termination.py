"""SIGTERM as a request to stop cleanly: how `docker stop`, systemd and Kubernetes stop a process.

Within `on_sigterm`, the signal no longer kills the process: it runs the surface's way of
stopping once (for every surface: the runner's shutdown, which lets the turns in flight end
within the grace period and interrupts the rest), and the surface then exits 0.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

logger = logging.getLogger(__name__)


class StopRequest:
    """Whether the process was asked to stop, and an event set when it was."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self._stopped: asyncio.Task[Any] | None = None

    @property
    def requested(self) -> bool:
        """Whether SIGTERM arrived."""
        return self.event.is_set()

    async def stopped(self) -> None:
        """Wait until the stop that SIGTERM set off (if it arrived) is over."""
        if self._stopped is not None:
            await asyncio.shield(self._stopped)


@contextmanager
def on_sigterm(stop: Callable[[], Awaitable[Any]]) -> Iterator[StopRequest]:
    """While the block runs, SIGTERM runs `stop()` once, in a task, on the running loop.

    Only the main thread may handle signals; elsewhere (a test's loop in a thread) the
    signal keeps its default and the request is never set.
    """
    loop = asyncio.get_running_loop()
    request = StopRequest()

    def handle() -> None:
        if request.requested:
            return
        logger.info("SIGTERM: stopping")
        request.event.set()
        request._stopped = loop.create_task(_logged(stop()))

    try:
        loop.add_signal_handler(signal.SIGTERM, handle)
    except (RuntimeError, ValueError):  # not the main thread: nothing to handle here
        yield request
        return
    try:
        yield request
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


async def _logged(stopping: Awaitable[Any]) -> None:
    try:
        await stopping
    except Exception:
        # The process goes on stopping; what failed is in the log with its traceback.
        logger.exception("stopping after SIGTERM failed")
