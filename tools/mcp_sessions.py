"""Sessions with MCP servers: opened once per process (per event loop), reopened after one dies.

A session lives in a task that holds its transport open until the process closes it. A call
that finds the session gone (the server exited, the connection dropped) drops it, so the
next call opens a new one. A stdio server's own stderr goes to `<data_dir>/mcp-<name>.log`,
not into the person's terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx
from langchain_core.tools import BaseTool
from langchain_mcp_adapters.sessions import create_session
from langchain_mcp_adapters.tools import load_mcp_tools
from mcp import ClientSession, McpError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

from tools.mcp_config import ServerConfig

logger = logging.getLogger(__name__)

START_TIMEOUT_S = 20.0
"""How long a server may take to start and answer `initialize`."""

LOST = (McpError, anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)
"""What a call raises when the session is gone (with OSError and httpx's transport errors)."""


class ServerUnavailable(Exception):
    """A server cannot be reached; the message is one line naming it and why."""


@dataclass
class _Held:
    session: ClientSession
    stop: asyncio.Event
    task: asyncio.Task[None]


class McpServer:
    """One configured server, and its sessions (one per event loop that uses it)."""

    def __init__(self, name: str, config: ServerConfig, log_dir: Path | None = None) -> None:
        self.name = name
        self.config = config
        self._log_dir = log_dir
        self._held: dict[asyncio.AbstractEventLoop, _Held] = {}
        self._opening: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}

    async def list_tools(self) -> list[BaseTool]:
        """The server's tools as LangChain tools (their annotations in `metadata`)."""
        return await load_mcp_tools(await self.session(), server_name=self.name)

    async def call(
        self, tool: str, args: dict[str, Any], *, meta: dict[str, Any] | None = None
    ) -> CallToolResult:
        """Call one tool; a lost session is dropped (the next call reopens) and re-raised."""
        session = await self.session()
        try:
            return await session.call_tool(
                tool, args, read_timeout_seconds=timedelta(seconds=self.config.timeout), meta=meta
            )
        except (*LOST, OSError, httpx.TransportError):
            self.drop()
            raise

    async def alive(self) -> bool:
        """Whether the session answers a ping now (a dead one is dropped)."""
        try:
            session = await self.session()
            with anyio.fail_after(5):
                await session.send_ping()
        except (*LOST, OSError, httpx.TransportError, TimeoutError, ServerUnavailable):
            self.drop()
            return False
        return True

    async def session(self) -> ClientSession:
        """This event loop's session, opened on first use or after the last one was lost.

        Raises:
            ServerUnavailable: the server did not start or answer within `START_TIMEOUT_S`.
        """
        loop = asyncio.get_running_loop()
        held = self._held.get(loop)
        if held is not None and not held.task.done():
            return held.session
        async with self._opening.setdefault(loop, asyncio.Lock()):
            held = self._held.get(loop)
            if held is not None and not held.task.done():
                return held.session
            self._held[loop] = held = await self._open()
        return held.session

    def drop(self) -> None:
        """Forget this loop's session (its task closes the transport)."""
        held = self._held.pop(asyncio.get_running_loop(), None)
        if held is not None:
            held.stop.set()

    async def close(self) -> None:
        """Close this loop's session and wait for its transport (a stdio server exits)."""
        held = self._held.pop(asyncio.get_running_loop(), None)
        if held is None:
            return
        held.stop.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(held.task, timeout=5)

    async def _open(self) -> _Held:
        ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()
        task = asyncio.create_task(self._hold(ready, stop), name=f"mcp:{self.name}")
        try:
            session = await asyncio.wait_for(asyncio.shield(ready), START_TIMEOUT_S)
        except TimeoutError:
            stop.set()
            task.cancel()
            raise ServerUnavailable(
                f"MCP server {self.name!r} ({self.config.where}) did not answer within "
                f"{START_TIMEOUT_S:.0f} s"
            ) from None
        except BaseException as exc:
            raise ServerUnavailable(
                f"MCP server {self.name!r} ({self.config.where}) could not start: {reason(exc)}"
            ) from exc
        return _Held(session, stop, task)

    async def _hold(self, ready: asyncio.Future[ClientSession], stop: asyncio.Event) -> None:
        try:
            async with self._connect() as session:
                await session.initialize()
                ready.set_result(session)
                await stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            elif not isinstance(exc, asyncio.CancelledError):
                logger.warning("MCP server %r: session ended: %s", self.name, reason(exc))
            if isinstance(exc, asyncio.CancelledError):
                raise

    @asynccontextmanager
    async def _connect(self) -> AsyncIterator[ClientSession]:
        config = self.config
        if config.command is None:
            async with create_session(config.connection()) as session:  # type: ignore[arg-type]
                yield session
            return
        params = StdioServerParameters(
            command=config.command, args=list(config.args), env=config.env, cwd=config.cwd
        )
        with self._errlog() as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                yield session

    @contextlib.contextmanager
    def _errlog(self) -> Iterator[TextIO]:
        if self._log_dir is None:
            with open(os.devnull, "w", encoding="utf-8") as sink:
                yield sink
            return
        self._log_dir.mkdir(parents=True, exist_ok=True)
        with (self._log_dir / f"mcp-{self.name}.log").open("a", encoding="utf-8") as log:
            yield log


def reason(exc: BaseException) -> str:
    """One line for why a session failed: the innermost error of a task group, in its words."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"no such command: {exc.filename or exc}"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, McpError) and "closed" in text.lower():
        return "it exited before answering (its log may say why)"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
