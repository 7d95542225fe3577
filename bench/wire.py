"""Counting database round trips on the wire: a loopback TCP proxy in a process of its own.

A client's connection is pointed at the proxy's port; every time the server answers after
the client has sent something since its last answer, that is one round trip (the client
sent and then waited for a reply, whatever protocol messages it pipelined). The proxy runs
in a child process, so its work is in neither the agent's CPU time nor the server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit


class Wire:
    """The proxy's port and the round trips it has counted so far."""

    def __init__(self, port: int, counter: Any) -> None:
        self.port = port
        self._counter = counter

    @property
    def round_trips(self) -> int:
        """Replies from the server to something the client sent, over all connections."""
        return int(self._counter.value)

    def url(self, database_url: str) -> str:
        """`database_url` with its host and port replaced by the proxy's."""
        parts = urlsplit(database_url)
        auth = parts.netloc.rpartition("@")[0]
        netloc = f"{auth}@127.0.0.1:{self.port}" if auth else f"127.0.0.1:{self.port}"
        return urlunsplit(parts._replace(netloc=netloc))


@contextmanager
def counting_proxy(target_host: str = "127.0.0.1", target_port: int = 5432) -> Iterator[Wire]:
    """Run the proxy to `target` in a child process for the block."""
    context = multiprocessing.get_context("spawn")
    counter = context.Value("q", 0)
    ready = context.Queue()
    child = context.Process(
        target=_serve, args=(target_host, target_port, counter, ready), daemon=True
    )
    child.start()
    try:
        port = ready.get(timeout=30)
        yield Wire(port, counter)
    finally:
        child.terminate()
        child.join(timeout=10)


def _serve(host: str, port: int, counter: Any, ready: Any) -> None:
    asyncio.run(_listen(host, port, counter, ready))


async def _listen(host: str, port: int, counter: Any, ready: Any) -> None:
    async def connected(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection(host, port)
        sent = [False]  # the client has sent since the server last answered

        async def pump(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter, up: bool
        ) -> None:
            with contextlib.suppress(ConnectionError):
                while data := await reader.read(65536):
                    if up:
                        sent[0] = True
                    elif sent[0]:
                        sent[0] = False
                        with counter.get_lock():
                            counter.value += 1
                    writer.write(data)
                    await writer.drain()
            writer.close()

        await asyncio.gather(
            pump(client_r, server_w, True), pump(server_r, client_w, False), return_exceptions=True
        )

    server = await asyncio.start_server(connected, "127.0.0.1", 0)
    ready.put(server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()
