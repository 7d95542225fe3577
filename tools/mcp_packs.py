"""MCP servers as packs: each server in `AGENTLOOP_MCP_CONFIG` is a pack of its tools.

A server that cannot start stops the process with one line naming it and why (`PackError`),
or, when the operator marks it `optional`, is left out with a warning. A server's asks file
that cannot be read or names a tool it does not list is a `PackError` even when the server
is optional: it is a mistake in the config, not a server away. The sessions opened to list
the tools serve the calls too, and close when the packs do.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from langchain_core.tools import BaseTool

from tools.mcp_config import McpConfigError, read
from tools.mcp_sessions import McpServer, ServerUnavailable
from tools.mcp_tools import server_tools
from tools.pack_loading import PackError
from tools.packs import Pack


@asynccontextmanager
async def mcp_packs(
    path: Path, log_dir: Path, warn: Callable[[str], None]
) -> AsyncIterator[list[Pack]]:
    """Open every server of the file at `path`; yield a pack per server that answered.

    Raises:
        PackError: the file cannot be used, a server that is not optional cannot start, or
            a server's asks file cannot be read or names a tool the server does not list.
    """
    try:
        config = read(path)
    except McpConfigError as exc:
        raise PackError(str(exc)) from None
    servers = [McpServer(name, server, log_dir) for name, server in config.servers.items()]
    try:
        packs = []
        for server in servers:
            try:
                listed = await server.list_tools()
            except ServerUnavailable as exc:
                if not server.config.optional:
                    raise PackError(str(exc)) from None
                warn(f"{exc}; its tools are left out (it is optional)")
                continue
            packs.append(_pack(server, listed))
        yield packs
    finally:
        for server in servers:
            await server.close()


def _pack(server: McpServer, listed: list[BaseTool]) -> Pack:
    """The pack of the tools `server` listed, with the example asks of its asks file."""
    trusted = server.config.trust == "annotations"
    tools = tuple(server_tools(server, listed))
    try:
        return Pack(
            name=server.name,
            summary=(
                "MCP server; its tool annotations are trusted"
                if trusted
                else "MCP server; untrusted: every tool waits for approval"
            )
            + f" ({len(listed)} tools)",
            tools=tools,
            asks=server.config.asks,
            origin=f"MCP server: {server.config.where}",
        )
    except ValueError as exc:  # only its asks file can be wrong here
        problem = str(exc).removeprefix(f"pack {server.name!r}: ")
        raise PackError(f"MCP server {server.name!r}: {problem}") from None
