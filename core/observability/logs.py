"""Logging for CLI processes: everything (with tracebacks) to a file, nothing noisy on screen."""

from __future__ import annotations

import logging
from pathlib import Path


def configure(data_dir: Path, verbose: bool) -> Path:
    """Send logs to `<data_dir>/agentloop.log` (and to stderr when verbose); return the path."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "agentloop.log"
    handlers: list[logging.Handler] = [logging.FileHandler(path, encoding="utf-8")]
    if verbose:
        handlers.append(logging.StreamHandler())
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    for noisy in ("httpx", "httpcore", "openai", "aiosqlite"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return path
