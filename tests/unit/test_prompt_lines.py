"""The chat prompt's lines: read on the event loop from a pipe or a file, cancelled cleanly."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from app.cli.prompt_lines import Lines


async def _all(lines: Lines) -> list[str | None]:
    return [await lines.read() for _ in range(4)]


def test_lines_written_at_once_come_one_at_a_time_and_an_unended_last_line_too() -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"first\r\nsecond\nlast")
    os.close(write_end)
    try:
        assert asyncio.run(_all(Lines(read_end))) == ["first", "second", "last", None]
    finally:
        os.close(read_end)


def test_a_regular_file_is_read_though_it_cannot_be_watched(tmp_path: Path) -> None:
    path = tmp_path / "input.txt"
    path.write_bytes("héllo\n\nbye\n".encode())
    fd = os.open(path, os.O_RDONLY)
    try:
        assert asyncio.run(_all(Lines(fd))) == ["héllo", "", "bye", None]
    finally:
        os.close(fd)


def test_a_wait_for_a_line_is_cancelled_and_the_next_read_still_gets_it() -> None:
    read_end, write_end = os.pipe()

    async def scenario() -> str | None:
        lines = Lines(read_end)
        waiting = asyncio.ensure_future(lines.read())
        await asyncio.sleep(0.05)
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        assert waiting.cancelled()
        os.write(write_end, b"later\n")
        return await lines.read()

    try:
        assert asyncio.run(scenario()) == "later"
    finally:
        os.close(read_end)
        os.close(write_end)
