"""Tools that misbehave on purpose: raise, hang, or count their calls."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from tools.declaration import ToolContext, declare
from tools.registry import ToolRegistry


class EchoArgs(BaseModel):
    text: str = Field(description="Text to echo back.")
    times: int = Field(default=1, ge=1, le=5)


class NoArgs(BaseModel):
    pass


@declare(pack="test", kind="read_only")
async def echo(args: EchoArgs, ctx: ToolContext) -> dict[str, object]:
    """Echo the text back."""
    return {"echo": args.text * args.times, "today": ctx.today.isoformat()}


@declare(pack="test", kind="read_only")
async def explode(args: NoArgs, ctx: ToolContext) -> dict[str, object]:
    """Always fails."""
    raise RuntimeError("the backing service is down")


@declare(pack="test", kind="read_only")
async def hang(args: NoArgs, ctx: ToolContext) -> dict[str, object]:
    """Never finishes in time."""
    await asyncio.sleep(30)
    return {}


@declare(pack="test", kind="mutating")
async def delete_everything(args: NoArgs, ctx: ToolContext) -> dict[str, object]:
    """A mutating tool: must never run unconfirmed."""
    raise AssertionError("a mutating tool ran without confirmation")


@declare(pack="test", kind="read_only", roles=["admin"])
async def admin_report(args: NoArgs, ctx: ToolContext) -> dict[str, object]:
    """Admins only."""
    raise AssertionError("a tool ran for a role it does not allow")


def faulty_registry() -> ToolRegistry:
    return ToolRegistry([echo, explode, hang, delete_everything, admin_report])
