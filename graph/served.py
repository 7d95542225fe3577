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
import logging
from contextlib import AsyncExitStack

from langchain_core.language_models import BaseChatModel

from core.db.engine import Database, open_database
from core.models import ModelConfigError, ModelResolver
from core.settings import get_settings
from tools.registry import ToolRegistry, open_registry

logger = logging.getLogger(__name__)


class ServedModels(ModelResolver):
    """The server's models: only those a run may choose, and failures that reveal nothing.

    The server's authorization refuses a run that chooses another model
    (`app/server/model_choice.py`); this holds the same line for any way a spec reaches the
    graph. On a server that authenticates, a model that cannot be built is one line that
    names the spec (the reason is in the server's log): whether a file exists there, or
    what it holds, is not the caller's to learn.
    """

    def resolve(self, spec: str | None) -> BaseChatModel:
        """Return the model for `spec` (None: the server's default)."""
        settings = self.settings
        server = settings.server
        if not server.allows_model(spec, settings.model_spec(), settings.compaction_model):
            raise ModelConfigError(f"this server does not run the model {spec!r}")
        try:
            return super().resolve(spec)
        except ModelConfigError:
            if not server.authenticates:
                raise
            logger.exception("the model %r could not be built", spec)
            raise ModelConfigError(
                f"the model {spec or settings.model_spec()!r} cannot be used on this server"
            ) from None


@functools.cache
def served_models() -> ModelResolver:
    """Return the process's model resolver, built from the server's settings on first use."""
    return ServedModels(get_settings())


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
