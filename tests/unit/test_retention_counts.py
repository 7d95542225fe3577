"""Retention counts checkpoints per thread in the process, within a bound."""

from __future__ import annotations

from langgraph.checkpoint.memory import InMemorySaver

from checkpoints.retention import PRUNE_ABOVE, Retention


async def test_the_counts_stay_within_their_bound() -> None:
    retention = Retention("latest", most=100)
    saver = InMemorySaver()
    for n in range(1_000):
        await retention.after_run(saver, f"thread-{n}", 5)
    assert retention.counted == 100


async def test_a_pruned_thread_is_not_counted() -> None:
    retention = Retention("latest")
    saver = InMemorySaver()
    await retention.after_run(saver, "busy", PRUNE_ABOVE)
    assert retention.counted == 1
    # past PRUNE_ABOVE the thread is pruned (in memory: nothing to count) and forgotten
    await retention.after_run(saver, "busy", 5)
    assert retention.counted == 0


async def test_the_least_recently_run_thread_is_dropped_first() -> None:
    retention = Retention("latest", most=2)
    saver = InMemorySaver()
    for thread in ("a", "b", "a", "c"):
        await retention.after_run(saver, thread, 5)
    # b ran least recently; a's runs so far still count towards its next prune
    await retention.after_run(saver, "a", PRUNE_ABOVE - 10 + 1)
    assert retention.counted == 1  # a was pruned (and forgotten), c is left
