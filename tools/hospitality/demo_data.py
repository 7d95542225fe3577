"""The hotel's part of the demo workspace: room types, their rates and a few bookings."""

from __future__ import annotations

from datetime import date
from typing import Any

ROOMS: list[dict[str, Any]] = [
    {
        "room_type": "Queen",
        "max_guests": 2,
        "inventory": 5,
        "description": "One queen bed, city view.",
    },
    {
        "room_type": "Double Queen",
        "max_guests": 4,
        "inventory": 3,
        "description": "Two queen beds.",
    },
    {
        "room_type": "King Suite",
        "max_guests": 4,
        "inventory": 2,
        "description": "King bed, separate living room.",
    },
]

# Base rates all year, higher over the winter holidays (end dates exclusive).
RATES: list[dict[str, Any]] = [
    {"room": "Queen", "start": date(2025, 1, 1), "end": date(2028, 1, 1), "rate": 149.0},
    {"room": "Double Queen", "start": date(2025, 1, 1), "end": date(2028, 1, 1), "rate": 199.0},
    {"room": "King Suite", "start": date(2025, 1, 1), "end": date(2028, 1, 1), "rate": 289.0},
    {"room": "Queen", "start": date(2026, 12, 20), "end": date(2027, 1, 3), "rate": 189.0},
    {"room": "King Suite", "start": date(2026, 12, 20), "end": date(2027, 1, 3), "rate": 349.0},
]

BOOKINGS: list[dict[str, Any]] = [
    {
        "room": "King Suite",
        "check_in": date(2026, 12, 5),
        "check_out": date(2026, 12, 7),
        "guests": 2,
        "guest_name": "Rivka Stein",
    },
    {
        "room": "King Suite",
        "check_in": date(2026, 12, 4),
        "check_out": date(2026, 12, 6),
        "guests": 3,
        "guest_name": "Tom Alvarez",
    },
]
