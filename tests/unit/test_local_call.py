"""A written call's corrections: the stay length a message gives, applied after the model."""

from __future__ import annotations

from typing import Any

from core.models.local_call import stay_length
from core.models.local_values import nights_in

DATED = {"type": "string", "format": "date"}
ROOMS: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_availability",
        "parameters": {
            "type": "object",
            "properties": {"check_in": DATED, "check_out": DATED, "guests": {"type": "integer"}},
            "required": ["check_in", "check_out"],
        },
    },
}


def test_the_nights_a_message_asks_for_are_read() -> None:
    assert nights_in("one night in Hanukkah") == 1
    assert nights_in("a room for 3 nights from Friday") == 3
    assert nights_in("Two nights next weekend?") == 2
    assert nights_in("any rooms tonight?") is None


def test_a_stay_ends_the_nights_the_message_gives_after_it_starts() -> None:
    holiday = {"check_in": "2026-12-05", "check_out": "2026-12-12", "guests": 2}

    assert stay_length(holiday, ROOMS, 1) == {**holiday, "check_out": "2026-12-06"}
    assert stay_length(holiday, ROOMS, None) == holiday
    one_date = {"check_in": "2026-12-05"}
    assert stay_length(one_date, ROOMS, 1) == one_date
    assert stay_length({"check_in": "soon", "check_out": "x"}, ROOMS, 1)["check_out"] == "x"
