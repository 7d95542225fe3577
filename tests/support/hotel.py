"""Test doubles for the hotel scenarios: an availability tool and a slowing wrapper."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import date

from pydantic import BaseModel

from tools import calendar
from tools.declaration import Tool, ToolContext, declare
from tools.registry import ToolRegistry

ROOMS = [
    {"room_type": "Queen", "rate_per_night": 149.0, "max_guests": 2},
    {"room_type": "King Suite", "rate_per_night": 289.0, "max_guests": 4},
]
TOOL_DELAY_S = 0.2


class AvailabilityArgs(BaseModel):
    check_in: date
    check_out: date
    guests: int = 2


@declare(pack="test-hotel", kind="read_only")
async def get_availability(args: AvailabilityArgs, ctx: ToolContext) -> dict[str, object]:
    """Rooms free between check_in and check_out (test double with a fixed inventory)."""
    await asyncio.sleep(TOOL_DELAY_S)
    nights = (args.check_out - args.check_in).days
    return {
        "check_in": args.check_in.isoformat(),
        "check_out": args.check_out.isoformat(),
        "nights": nights,
        "rooms": [r for r in ROOMS if r["max_guests"] >= args.guests],
    }


def slowed(tool: Tool, delay_s: float) -> Tool:
    """The same tool, made to take at least `delay_s` (so overlap in a wave is measurable)."""
    inner = tool.fn

    async def fn(args: BaseModel, ctx: ToolContext) -> object:
        await asyncio.sleep(delay_s)
        return await inner(args, ctx)

    return dataclasses.replace(tool, fn=fn)


def hotel_registry(delay_s: float = TOOL_DELAY_S) -> ToolRegistry:
    """The real calendar tools (slowed to a measurable duration) plus get_availability."""
    return ToolRegistry([*(slowed(t, delay_s) for t in calendar.TOOLS), get_availability])
