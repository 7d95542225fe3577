"""A TCP proxy on loopback that can drop every connection and stop listening: a server restart.

Put it between the application and PostgreSQL (point DATABASE_URL at its port) and call
`restart()` mid-run: established connections are aborted, new ones are refused until the
"server" is back, as when PostgreSQL restarts. The shared server itself is never touched.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


class TcpProxy:
    """Forwards 127.0.0.1:`port` to `target`; an async context manager."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self.connections = 0
        """Connections accepted and forwarded since the proxy started."""
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[Any]] = set()
        self._transports: set[asyncio.WriteTransport] = set()

    async def __aenter__(self) -> TcpProxy:
        await self._listen()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.down()
        # Aborted connections end their handlers; wait for them before the loop closes.
        await asyncio.gather(*self._handlers, return_exceptions=True)

    @property
    def listening(self) -> bool:
        """Whether new connections are accepted."""
        return self._server is not None

    async def down(self) -> None:
        """Abort every forwarded connection and stop listening (connections are refused)."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for transport in list(self._transports):
            transport.abort()
        self._transports.clear()
        if server is not None:
            # Since Python 3.12 this also waits for the aborted connections' handlers.
            await server.wait_closed()

    async def up(self) -> None:
        """Listen again on the same port."""
        if self._server is None:
            await self._listen()

    async def restart(self, outage_s: float) -> None:
        """Drop every connection, refuse new ones for `outage_s` seconds, then accept again."""
        await self.down()
        await asyncio.sleep(outage_s)
        await self.up()

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(
            self._accept, "127.0.0.1", self.port, reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        handler = asyncio.current_task()
        assert handler is not None
        self._handlers.add(handler)
        try:
            await self._forward(client_r, client_w)
        finally:
            self._handlers.discard(handler)

    async def _forward(
        self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter
    ) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(*self.target)
        except OSError:
            client_w.transport.abort()
            return
        self.connections += 1
        pair = {client_w.transport, server_w.transport}
        self._transports |= pair
        pipes = [
            asyncio.create_task(_pipe(client_r, server_w)),
            asyncio.create_task(_pipe(server_r, client_w)),
        ]
        try:
            # Either side closing ends the connection for both, as a server process would.
            await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pipe in pipes:
                pipe.cancel()
            await asyncio.gather(*pipes, return_exceptions=True)
            for transport in pair:
                transport.abort()
            self._transports -= pair


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
