"""Describe the machine and package versions a benchmark ran on."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from importlib.metadata import version


def describe() -> str:
    """Return a markdown list of machine facts and key package versions."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            names = [line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    packages = ", ".join(
        f"{name} {version(name)}" for name in ("langgraph", "langchain-core", "langchain")
    )
    return "\n".join(
        [
            f"- run: {datetime.now(UTC):%Y-%m-%d %H:%M UTC}",
            f"- machine: {os.cpu_count()} cores, {cpu}, {platform.system()} {platform.release()}",
            f"- python: {platform.python_version()}",
            f"- packages: {packages}",
        ]
    )
