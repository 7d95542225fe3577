"""Blocking calls a turn can walk away from: they run on daemon threads nobody waits for.

A chat model without native async (the local model, a scripted one) and the synchronous
database work are called through the event loop's default executor. A turn abandons such a
call at its deadline, but the standard executor still waits for the call's thread when the
loop closes and again when the interpreter exits, so a process would hang on a call nobody
waits for; and its fixed number of threads lets calls stuck past their deadline hold up the
next ones. This executor never waits and never queues a call behind a busy thread: a call
goes to an idle thread, or to a new one when none is idle; a thread left in an abandoned
call ends with the process, and the call's result goes to a future that was already
cancelled, so it never reaches the thread's state.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
_Call = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]] | None
"""A call for a thread, or None: the executor is shut down, the thread ends."""


class AbandoningExecutor(ThreadPoolExecutor):
    """Runs each call on an idle daemon thread, or a new one; `shutdown` returns at once.

    A `ThreadPoolExecutor` only in name (an event loop takes no other kind as its default):
    none of its pool is used. Threads are reused (starting one per call cost a turn about a
    millisecond of CPU), never capped, and never joined.
    """

    def __init__(self, name: str = "agentloop-blocking") -> None:
        super().__init__(max_workers=1, thread_name_prefix=name)
        self._name = name
        self._closed = False
        self._calls: queue.SimpleQueue[_Call] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        """One token per thread waiting for a call."""
        self._started = 0

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Hand `fn(*args, **kwargs)` to an idle thread (or a new one); return its future."""
        if self._closed:
            raise RuntimeError("cannot schedule new calls after shutdown")
        future: Future[T] = Future()
        self._calls.put((future, fn, args, kwargs))
        # Every call queued is matched by an idle thread's token or a thread of its own, so
        # no call ever waits behind one that is still running.
        if not self._idle.acquire(blocking=False):
            self._started += 1
            threading.Thread(target=self._serve, name=self._name, daemon=True).start()
        return future

    def _serve(self) -> None:
        while (call := self._calls.get()) is not None:
            future, fn, args, kwargs = call
            del call  # hold nothing of a finished call while idle
            if not future.set_running_or_notify_cancel():
                self._idle.release()
                continue
            error: BaseException | None = None
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # handed to whoever awaits the call, if anyone does
                error, result = exc, None
            del fn, args, kwargs
            # Idle before the caller hears back, so that its next call finds this thread.
            self._idle.release()
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)
            del future, result, error

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no new calls; calls still running are abandoned, never waited for.

        Each thread ends when it is next free: idle ones at once, one still in a call when
        (if ever) that call returns.
        """
        if not self._closed:
            self._closed = True
            for _ in range(self._started):
                self._calls.put(None)


def abandon_blocking_calls(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Give the loop (the running one by default) an executor that never waits at exit."""
    (loop or asyncio.get_running_loop()).set_default_executor(AbandoningExecutor())
