"""What the graphs a LangGraph Server serves share in one process: models, workspace, tools.

The server loads each graph of langgraph.json from its own file, as a module of its own, so
a cache inside `graph/builder.py` or `graph/planner.py` would exist once per graph. Both
factories come here instead, a module imported the ordinary way: one `ModelResolver` per
process means the local model loads once and a scripted model consumes its file once,
whichever graph (and whichever of act, verify, draft, review or step) calls it first.
"""

from __future__ import annotations

import asyncio
import functools
from contextlib import AsyncExitStack

from core.db.engine import Database, open_database
from core.models import ModelResolver
from core.settings import get_settings
from tools.registry import ToolRegistry, open_registry


@functools.cache
def served_models() -> ModelResolver:
    """Return the process's model resolver, built from the server's settings on first use."""
    return ModelResolver(get_settings())


@functools.cache
def served_database() -> Database:
    """Return the process's workspace database (the server's `DATABASE_URL`)."""
    return open_database(get_settings())


_registry: list[ToolRegistry] = []
_opening = asyncio.Lock()
_sessions = AsyncExitStack()
"""Holds the MCP servers' sessions open for the life of the process."""


async def served_registry() -> ToolRegistry:
    """Return the tools of the enabled packs and MCP servers, opened on first use.

    Raises:
        PackError: a pack or a server that is not optional cannot be used.
    """
    async with _opening:
        if not _registry:
            _registry.append(await _sessions.enter_async_context(open_registry(get_settings())))
    return _registry[0]
