"""Blocking calls a turn can walk away from: each runs on a daemon thread of its own.

A chat model without native async (the local model, a scripted one) is called through the
event loop's default executor. A turn abandons such a call at its deadline, but the
standard executor still waits for the call's thread when the loop closes and again when
the interpreter exits, so a process would hang on a call nobody waits for. This executor
never waits: the thread of an abandoned call ends with the process, and its result goes to
a future that was already cancelled, so it never reaches the thread's state.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class AbandoningExecutor(ThreadPoolExecutor):
    """Runs each call on a new daemon thread; `shutdown` returns at once.

    A `ThreadPoolExecutor` only in name (an event loop takes no other kind as its default):
    none of its pool is used.
    """

    def __init__(self, name: str = "agentloop-blocking") -> None:
        super().__init__(max_workers=1, thread_name_prefix=name)
        self._name = name
        self._closed = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Start `fn(*args, **kwargs)` on a daemon thread and return its future."""
        if self._closed:
            raise RuntimeError("cannot schedule new calls after shutdown")
        future: Future[T] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # handed to whoever awaits the call, if anyone does
                future.set_exception(exc)
            else:
                future.set_result(result)

        # A thread per call: blocking calls are a few per turn, and a thread stuck in one
        # must not hold up the next.
        threading.Thread(target=run, name=self._name, daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no new calls; calls still running are abandoned, never waited for."""
        self._closed = True


def abandon_blocking_calls(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Give the loop (the running one by default) an executor that never waits at exit."""
    (loop or asyncio.get_running_loop()).set_default_executor(AbandoningExecutor())
