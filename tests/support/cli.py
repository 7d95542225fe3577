"""Run the `agentloop` CLI in a fresh process, as a person would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def agentloop(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `agentloop ARGS` in a new Python process (fed `stdin`) and capture its output."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def upgraded(env: dict[str, str]) -> dict[str, str]:
    """Run `agentloop db upgrade` in `env` (every command but that one needs it); return `env`."""
    proc = agentloop("db", "upgrade", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return env


def ask_json(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run `agentloop ask ... --json`, check it printed exactly one JSON object, return it."""
    proc = agentloop("ask", *args, "--json", env=env)
    assert proc.returncode in (0, 1), proc.stderr
    return _one_json(proc)


def resume_json(*args: str, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """Run `agentloop resume ... --json`; return its exit code and the one JSON object printed."""
    proc = agentloop("resume", *args, "--json", env=env)
    return proc.returncode, _one_json(proc)


def _one_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, f"expected one JSON line, got: {proc.stdout!r} / {proc.stderr!r}"
    return json.loads(lines[0])
