"""The ticket desk MCP server as the tests run it: its files, its config, its calls."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
SERVER = "tests.support.mcp.tickets"


@dataclass(frozen=True)
class Desk:
    """Where one desk keeps its tickets and the calls it received."""

    folder: Path

    @property
    def env(self) -> dict[str, str]:
        return {
            "TICKETS_STATE": str(self.folder / "tickets.json"),
            "TICKETS_CALLS": str(self.folder / "calls.jsonl"),
        }

    def calls(self, tool: str | None = None) -> list[dict[str, Any]]:
        """The calls the server received (of `tool`), in order."""
        path = self.folder / "calls.jsonl"
        if not path.exists():
            return []
        heard = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        return [call for call in heard if tool is None or call["tool"] == tool]

    def status(self, ticket: str) -> str:
        tickets = json.loads((self.folder / "tickets.json").read_text(encoding="utf-8"))
        return str(tickets[ticket]["status"])

    def stdio(self, **settings: Any) -> dict[str, Any]:
        """The server's entry in a servers file, over stdio (`settings`: trust, reads, ...)."""
        env = {**self.env, **settings.pop("env", {})}
        return {
            "command": sys.executable,
            "args": ["-m", SERVER],
            "cwd": str(ROOT),
            "env": env,
            **settings,
        }

    def write_config(self, servers: dict[str, dict[str, Any]]) -> Path:
        """Write a servers file naming `servers`; return its path."""
        path = self.folder / "mcp.json"
        path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
        return path

    @contextmanager
    def over_http(self, slow_s: float = 0) -> Iterator[str]:
        """Run the server over streamable HTTP on a loopback port; yield its URL."""
        port = free_port()
        env = {**os.environ, **self.env, "TICKETS_SLOW_S": str(slow_s)}
        proc = subprocess.Popen(
            [sys.executable, "-m", SERVER, "--http", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port(port, proc)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the MCP server exited with {proc.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"the MCP server did not listen on {port}")
