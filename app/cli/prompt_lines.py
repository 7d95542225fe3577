"""The person's lines at the chat prompt, read on the event loop rather than on a thread.

A line read by `input()` on a worker thread outlives a stop: SIGTERM at the prompt left that
thread blocked in `sys.stdin`'s buffered reader, and the interpreter, ending, could not take
the reader's lock and aborted (exit -6). Here nothing waits for input but the loop itself:
standard input is watched for readiness, read below Python's buffer, and a stop cancels the
wait. A terminal keeps its own line editing (the kernel's, as with `input()`); input from a
pipe or a file is read the same way, a line at a time.
"""

from __future__ import annotations

import asyncio
import os
import sys

CHUNK = 65536


class Lines:
    """Lines of standard input; `None` once it has ended (Ctrl-D, end of a pipe or file)."""

    def __init__(self, fd: int | None = None) -> None:
        self._fd = fd
        self._buffer = b""
        self._ended = False

    async def read(self) -> str | None:
        """The next line without its newline; the rest of an unended last line; or None."""
        while b"\n" not in self._buffer and not self._ended:
            chunk = await self._chunk()
            self._ended = not chunk
            self._buffer += chunk
        if not self._buffer:
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace").removesuffix("\r")

    async def _chunk(self) -> bytes:
        """What standard input holds once it is ready (b"" at its end)."""
        fd = self._fd = sys.stdin.fileno() if self._fd is None else self._fd
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(fd, readable)
        except (OSError, ValueError):  # a regular file cannot be watched; reading it never waits
            return os.read(fd, CHUNK)
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        return os.read(fd, CHUNK)
