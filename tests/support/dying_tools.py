"""A registry whose create_task dies right after committing its change (a kill, in-process)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tools.registry import ToolRegistry, default_registry


class ProcessDied(BaseException):
    """Stands in for a kill: not an Exception, so no node turns it into a tool error."""


def dying_after_create_task() -> ToolRegistry:
    """The default tools, with create_task dying right after its change is committed (once)."""
    real = default_registry().get("create_task")
    assert real is not None
    died: list[bool] = []

    async def commit_then_die(args: Any, ctx: Any) -> Any:
        result = await real.fn(args, ctx)
        if not died:
            died.append(True)
            raise ProcessDied
        return result

    patched = replace(real, fn=commit_then_die)
    registry = default_registry()
    return ToolRegistry(
        [patched if t.name == "create_task" else t for t in registry.tools()],
        sources=registry.sources,
    )
