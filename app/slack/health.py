"""`GET /health`: whether the workspace database and the checkpointer answer."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy import text

from core.db.engine import Database
from graph.runner import Runner

logger = logging.getLogger(__name__)

HEALTH_THREAD = "agentloop:health"
"""A thread id no conversation uses: reading it exercises the checkpointer."""


async def problem(db: Database, runner: Runner, timeout_s: float) -> str | None:
    """Return why the app cannot serve turns now (one short line), or None when it can."""
    try:
        async with asyncio.timeout(timeout_s):
            async with db.session() as session:
                await session.execute(text("select 1"))
    except Exception as exc:
        logger.warning("health: the workspace database does not answer", exc_info=True)
        return f"workspace database: {_short(exc)}"
    try:
        async with asyncio.timeout(timeout_s):
            await runner.history(HEALTH_THREAD)
    except Exception as exc:
        logger.warning("health: the checkpointer does not answer", exc_info=True)
        return f"checkpointer: {_short(exc)}"
    return None


def _short(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}"[:200]
