"""Calls that do not stop when told to: they go on for a while after being cancelled.

A stuck driver or a remote call deep in its clean-up behaves this way; a turn must not wait
for one past its deadline.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from tools.declaration import ToolContext, declare
from tools.registry import ToolRegistry, default_registry

STUBBORN_S = 10.0
"""How long a stubborn call goes on, told to stop or not."""


class NoArgs(BaseModel):
    pass


async def _go_on_for(seconds: float) -> None:
    """Wait `seconds`, whatever cancels the wait meanwhile."""
    until = time.monotonic() + seconds
    while (left := until - time.monotonic()) > 0:
        try:
            await asyncio.sleep(left)
        except asyncio.CancelledError:
            continue


@declare(pack="test", kind="read_only")
async def stubborn(args: NoArgs, ctx: ToolContext) -> dict[str, object]:
    """Look something up, taking its time and ignoring every request to stop."""
    await _go_on_for(STUBBORN_S)
    return {"found": "late"}


def stubborn_registry() -> ToolRegistry:
    return ToolRegistry([stubborn])


def create_task_then_stuck() -> ToolRegistry:
    """The default tools, with create_task stuck (ignoring cancellation) after its commit."""
    real = default_registry().get("create_task")
    assert real is not None

    async def commit_then_hang(args: Any, ctx: Any) -> Any:
        result = await real.fn(args, ctx)
        await _go_on_for(STUBBORN_S)
        return result

    registry = default_registry()
    return ToolRegistry(
        [
            replace(real, fn=commit_then_hang) if t.name == "create_task" else t
            for t in registry.tools()
        ],
        sources=registry.sources,
    )
