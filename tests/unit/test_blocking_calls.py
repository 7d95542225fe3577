"""The executor for blocking calls: threads reused, none held up by a stuck call or waited for."""

from __future__ import annotations

import threading

from graph.blocking_calls import AbandoningExecutor


def _name() -> str:
    return threading.current_thread().name + str(threading.get_ident())


def test_calls_one_after_another_reuse_one_thread() -> None:
    executor = AbandoningExecutor("reuse")
    first = executor.submit(_name).result(timeout=5)
    second = executor.submit(_name).result(timeout=5)
    third = executor.submit(_name).result(timeout=5)
    assert first == second == third
    executor.shutdown()


def test_a_stuck_call_never_holds_up_the_next_and_shutdown_does_not_wait_for_it() -> None:
    executor = AbandoningExecutor("stuck")
    release = threading.Event()
    stuck = executor.submit(release.wait)
    assert executor.submit(lambda: 6 * 7).result(timeout=5) == 42
    executor.shutdown()  # returns although a call is still running
    assert not stuck.done()
    release.set()
    assert stuck.result(timeout=5) is True


def test_errors_reach_the_caller_and_threads_end_after_shutdown() -> None:
    executor = AbandoningExecutor("ends")

    def fail() -> None:
        raise ValueError("no")

    future = executor.submit(fail)
    assert isinstance(future.exception(timeout=5), ValueError)
    executor.shutdown()
    for thread in [t for t in threading.enumerate() if t.name == "ends"]:
        thread.join(timeout=5)
        assert not thread.is_alive()
    try:
        executor.submit(_name)
    except RuntimeError as exc:
        assert "shutdown" in str(exc)
    else:
        raise AssertionError("a shut-down executor took a call")
