"""The tool registry: every declared tool by name and by pack."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import Any

from core.settings import Settings
from tools.declaration import Capability, SourceFinder, Tool
from tools.pack_loading import PackError, enabled
from tools.packs import Pack

logger = logging.getLogger(__name__)
_ASIDE = re.compile(r"\s*\([^()]*\)")
"""A parenthesis: detail for the model ("(case-insensitive, tolerant of typos ...)")."""


class ToolRegistry:
    """An immutable-by-convention collection of tools, looked up by name."""

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        sources: Iterable[SourceFinder] = (),
        records: Iterable[str] = (),
        packs: Iterable[Pack] = (),
    ) -> None:
        self._tools: dict[str, Tool] = {}
        self._schemas: list[dict[str, Any]] | None = None
        self._abilities: dict[str, tuple[str, ...]] = {}
        """By role, what it may ask for (`abilities`), made once: every model call names it."""
        self.sources: tuple[SourceFinder, ...] = tuple(sources)
        """The packs' source finders gather runs for each message."""
        self.records: frozenset[str] = frozenset(records)
        """The kinds of workspace record those finders name: a source of such a type names a
        value for the arguments of that name (a `client` source, a `client` argument)."""
        self.packs: tuple[Pack, ...] = tuple(packs)
        """The packs the tools came from (the runtime's own tools belong to none)."""
        self.read_as: dict[str, str] = {k: v for pack in self.packs for k, v in pack.read_as}
        """How the embedded model reads a record of each kind that declares it (`Pack.read_as`)."""
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        """Register a tool; names are unique across packs."""
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is registered twice")
        self._tools[tool.name] = tool
        self._schemas = None
        self._abilities = {}

    def get(self, name: str) -> Tool | None:
        """Return the tool called `name`, if any."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Return every tool name, sorted."""
        return sorted(self._tools)

    def tools(self) -> list[Tool]:
        """Return every tool, in registration order."""
        return list(self._tools.values())

    def abilities(self, role: str) -> tuple[str, ...]:
        """What a person of `role` may ask for, a line per tool.

        Each line is the tool's summary without its asides in parentheses, a change marked
        as one that waits for approval. The planner and the result loader are left out:
        they serve the conversation, not a request of their own.
        """
        if role in self._abilities:
            return self._abilities[role]
        lines = []
        for tool in self._tools.values():
            if (
                role not in tool.roles
                or tool.kind == "delegate"
                or "result_loader" in tool.provides
            ):
                continue
            line = _ASIDE.sub("", tool.summary).strip()
            lines.append(f"{line} (once you approve)" if tool.mutating else line)
        self._abilities[role] = tuple(lines)
        return self._abilities[role]

    def starters(self, role: str, limit: int = 4) -> list[tuple[str, str]]:
        """A few requests to start a conversation with: (a short title, an ask).

        The packs' declared starters, a pack's at a time in turn; without any, the first
        example ask of each pack's tools `role` may use (reads before changes). Whatever
        packs are enabled, the starters are theirs.
        """
        queues = [list(pack.starters) for pack in self.packs if pack.starters]
        if not queues:
            by_pack: dict[str, list[Tool]] = {}
            for tool in self._tools.values():
                serves_the_talk = tool.kind == "delegate" or "result_loader" in tool.provides
                if role in tool.roles and tool.asks and not serves_the_talk:
                    by_pack.setdefault(tool.pack, []).append(tool)
            queues = [
                [(_ASIDE.sub("", t.summary).strip(), t.asks[0]) for t in sorted(ts, key=_changes)]
                for ts in by_pack.values()
            ]
        picked: list[tuple[str, str]] = []
        while len(picked) < limit and any(queues):
            for queue in queues:
                if queue and len(picked) < limit:
                    picked.append(queue.pop(0))
        return picked

    def providing(self, capability: Capability) -> Tool | None:
        """Return the tool declared for a job the graph gives (the first one, if several)."""
        return next((t for t in self._tools.values() if capability in t.provides), None)

    def by_pack(self) -> dict[str, list[Tool]]:
        """Return the tools grouped by pack."""
        packs: dict[str, list[Tool]] = {}
        for tool in self._tools.values():
            packs.setdefault(tool.pack, []).append(tool)
        return packs

    def openai_schemas(self, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Return the function definitions to bind to the chat model (built once).

        Args:
            names: Only these tools, in this order (unknown names are skipped); None: all.
        """
        # JSON-schema generation costs about a millisecond per model call otherwise.
        if self._schemas is None:
            self._schemas = [tool.openai_schema() for tool in self._tools.values()]
        if names is None:
            return self._schemas
        by_name = {schema["function"]["name"]: schema for schema in self._schemas}
        return [by_name[name] for name in names if name in by_name]

    def __len__(self) -> int:
        return len(self._tools)


_OWN_ASKS = Path(__file__).with_name("asks.toml")
"""More example asks for the runtime's own tools, as a pack's asks file holds for its tools."""


@cache
def _own_tools() -> tuple[Tool, ...]:
    """The runtime's own tools with their asks file's examples (read once per process)."""
    from tools import meta, plan

    own = Pack("meta", "The runtime's own tools", (*meta.TOOLS, *plan.TOOLS), asks=_OWN_ASKS)
    return own.tools


def _changes(tool: Tool) -> bool:
    return tool.mutating


def registry_of(packs: Iterable[Pack]) -> ToolRegistry:
    """Return the registry of the runtime's own tools and the packs' tools and sources."""
    packs = list(packs)
    return ToolRegistry(
        [*(tool for pack in packs for tool in pack.tools), *_own_tools()],
        sources=[find for pack in packs for find in pack.sources],
        records=[record for pack in packs for record in pack.records],
        packs=packs,
    )


def registry_for(settings: Settings) -> ToolRegistry:
    """Return the registry of the packs `settings` enables (`AGENTLOOP_PACKS`).

    Raises:
        PackError: an enabled pack cannot be used (one line naming it and why).
    """
    return registry_of(enabled(settings.packs))


@asynccontextmanager
async def open_registry(
    settings: Settings, warn: Callable[[str], None] = logger.warning
) -> AsyncIterator[ToolRegistry]:
    """Yield the registry of the enabled packs and of the MCP servers `settings` names.

    The servers' sessions stay open while the registry is in use (calls go through them).

    Raises:
        PackError: a pack or a server that is not optional cannot be used (one line).
    """
    packs = list(enabled(settings.packs))
    if settings.mcp_config is None:
        yield registry_of(packs)
        return
    from tools.mcp_packs import mcp_packs  # the MCP SDK is imported only when it is used

    async with mcp_packs(settings.mcp_config, settings.data_dir, warn) as servers:
        clash = sorted({p.name for p in packs} & {s.name for s in servers})
        if clash:
            raise PackError(
                f"MCP server {clash[0]!r} has the name of an enabled pack; rename it in "
                f"{settings.mcp_config}"
            )
        yield registry_of([*packs, *servers])


def default_registry() -> ToolRegistry:
    """Return the registry of the packs agentloop ships, as an unset `AGENTLOOP_PACKS` enables."""
    return registry_of(enabled(None))
