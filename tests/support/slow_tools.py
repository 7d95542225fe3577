"""A read-only tool that takes its time: a window in which to break things mid-run."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from tools.declaration import ToolContext, declare
from tools.registry import ToolRegistry


class NapArgs(BaseModel):
    seconds: float = Field(ge=0, le=30, description="How long to take.")


@declare(pack="test", kind="read_only")
async def nap(args: NapArgs, ctx: ToolContext) -> dict[str, object]:
    """Wait, then report how long it waited."""
    await asyncio.sleep(args.seconds)
    return {"slept": args.seconds}


def slow_registry() -> ToolRegistry:
    return ToolRegistry([nap])
