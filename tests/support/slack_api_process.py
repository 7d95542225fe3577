"""The mock Slack Web API in a process of its own, for a benchmark."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any


class RemoteSlackApi:
    """The mock Web API in a process of its own (`python -m tests.support.slack_api`).

    For a benchmark: the mock's work (each post, each reply) then does not run in the
    measured process, as Slack's does not.
    """

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        """The base URL of the Web API (`…/api/`)."""
        return f"http://127.0.0.1:{self.port}/api/"

    def __enter__(self) -> RemoteSlackApi:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.slack_api"],
            cwd=Path(__file__).resolve().parents[2],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        self.port = int(self._process.stdout.readline())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(10)

    def made(self, method: str, **match: Any) -> list[dict[str, Any]]:
        """Return the answered calls of `method` whose arguments include `match`."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/calls", timeout=30) as answer:
            calls: list[dict[str, Any]] = json.loads(answer.read())
        return [
            c
            for c in calls
            if c["method"] == method
            and c["status"] == 200
            and all(c["args"].get(k) == v for k, v in match.items())
        ]

    async def wait_for(
        self, method: str, within: float = 20.0, count: int = 1, **match: Any
    ) -> list[dict[str, Any]]:
        """Wait until `count` matching calls were made; return them."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            found = await asyncio.to_thread(self.made, method, **match)
            if len(found) >= count:
                return found
            await asyncio.sleep(0.2)
        raise AssertionError(f"no {count}× {method} {match} within {within}s")
