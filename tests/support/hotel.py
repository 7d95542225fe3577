"""The hotel scenarios' tools: the real calendar and hospitality tools, made measurably slow."""

from __future__ import annotations

import asyncio
import dataclasses

from pydantic import BaseModel

from tools.calendar import dates as calendar
from tools.declaration import Tool, ToolContext
from tools.hospitality import rooms as hospitality
from tools.registry import ToolRegistry

TOOL_DELAY_S = 0.2
"""Each call takes at least this long, as a remote API would, so overlap is measurable."""


def slowed(tool: Tool, delay_s: float) -> Tool:
    """The same tool, made to take at least `delay_s`."""
    inner = tool.fn

    async def fn(args: BaseModel, ctx: ToolContext) -> object:
        await asyncio.sleep(delay_s)
        return await inner(args, ctx)

    return dataclasses.replace(tool, fn=fn)


def hotel_registry(delay_s: float = TOOL_DELAY_S) -> ToolRegistry:
    """The calendar tools and get_availability, each slowed to `delay_s`."""
    tools = [*calendar.TOOLS, hospitality.get_availability]
    return ToolRegistry([slowed(tool, delay_s) for tool in tools])
