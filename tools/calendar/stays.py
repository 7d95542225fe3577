"""A hotel-style stay: the nights from a check-in to a check-out, and how it is told."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any


@dataclass(frozen=True)
class Stay:
    """A hotel-style stay: `check_out` is exclusive (the morning you leave)."""

    check_in: date
    check_out: date
    description: str

    @property
    def nights(self) -> int:
        """Number of nights between check-in and check-out."""
        return (self.check_out - self.check_in).days

    def fields(self, hint: str) -> dict[str, Any]:
        """The stay as the date reader returns it, for the phrase `hint`."""
        return {
            "hint": hint,
            "check_in": self.check_in.isoformat(),
            "check_out": self.check_out.isoformat(),
            "nights": self.nights,
            "description": self.description,
        }


def nights(check_in: date, count: int, label: str) -> Stay:
    """Build a stay of `count` nights starting on `check_in`."""
    check_out = check_in + timedelta(days=count)
    return Stay(check_in, check_out, describe(label, check_in, check_out))


def describe(label: str, check_in: date, check_out: date) -> str:
    """Say what the stay is in one line, weekdays included so the model can sanity-check."""
    nights = (check_out - check_in).days
    return (
        f"{label}: check in {check_in:%A} {check_in.isoformat()}, "
        f"check out {check_out:%A} {check_out.isoformat()} "
        f"({nights} night{'s' if nights != 1 else ''})"
    )
