"""The serving process's start-up heap is kept out of the collector's walks while it serves."""

from __future__ import annotations

import gc

from core.heap import frozen_startup


def _walked(obj: object) -> bool:
    """Whether the cyclic collector's generations hold `obj` (frozen objects are outside)."""
    return any(held is obj for held in gc.get_objects())


def test_what_lives_at_start_up_is_frozen_and_what_comes_after_is_not() -> None:
    started = [["built at start-up"]]
    with frozen_startup():
        later = [["made by a turn"]]
        assert not _walked(started)
        assert _walked(later)
    assert _walked(started)
    assert gc.get_freeze_count() == 0
