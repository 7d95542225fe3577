"""At most once for changes made in another system, which no receipt of ours can make atomic.

A change in our own database commits with its receipt (`tools.idempotency.run_once`), so it
happens exactly once. A change made by another system (an MCP server) cannot join our
transaction, so the runtime promises what it can: a receipt is committed *before* the call,
under the approved change's idempotency key, and the outcome is recorded after it. A resume,
a retry, a second worker or a fork that meets the receipt never calls again: it returns the
recorded outcome, or, when the earlier attempt was cut off mid-call (a killed process, a
timeout, a dropped connection), says that the outcome is unknown and what to check. A tool
the server declares idempotent may be attempted once more with the same arguments and key.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from core.db.models import MutationReceipt
from tools.declaration import ToolContext, ToolFailure

CALLING = "calling"
DONE = "done"
ATTEMPTS_IF_IDEMPOTENT = 2


class CallNotMade(Exception):
    """The call never reached the other system (it could not be reached): safe to try later."""


class OutcomeUnknown(Exception):
    """The call may or may not have been carried out (cut off after it was sent)."""


Call = Callable[[], Awaitable[dict[str, Any]]]
"""Makes the call; raises `CallNotMade` or `OutcomeUnknown` when it cannot say it happened."""


async def attempt_once(
    ctx: ToolContext,
    tool: str,
    args: dict[str, Any],
    call: Call,
    *,
    idempotent: bool,
    check: str,
) -> dict[str, Any]:
    """Make an approved external call at most once (twice if `idempotent`) for its key.

    `check` says, for a person, where to look when the outcome is unknown.

    Raises:
        ToolFailure: the outcome is unknown, or the call was not made (one line each).
    """
    key = ctx.idempotency_key or f"adhoc:{uuid.uuid4()}"
    attempt = await _claim(ctx, key, tool, args, idempotent=idempotent, check=check)
    if isinstance(attempt, dict):
        return {**attempt, "replayed": True}
    try:
        outcome = await call()
    except CallNotMade as exc:
        await _release(ctx, key)
        raise ToolFailure(f"{tool} was not called: {exc}; nothing was changed") from exc
    except OutcomeUnknown as exc:
        raise ToolFailure(_unknown(tool, str(exc), check)) from exc
    await _settle(ctx, key, outcome)
    return outcome


async def _claim(
    ctx: ToolContext, key: str, tool: str, args: dict[str, Any], *, idempotent: bool, check: str
) -> int | dict[str, Any]:
    """Commit the receipt before the call; return the attempt's number, or the earlier outcome."""
    now = datetime.now(UTC).isoformat(timespec="seconds")
    async with ctx.database().session() as session:
        session.add(
            MutationReceipt(
                idempotency_key=key,
                tool=tool,
                actor=ctx.user_id,
                args=args,
                result={"state": CALLING, "attempts": 1, "started_at": now},
            )
        )
        try:
            await session.commit()
            return 1
        except IntegrityError:
            await session.rollback()
        query = select(MutationReceipt).where(MutationReceipt.idempotency_key == key)
        if ctx.database().dialect == "postgresql":
            query = query.with_for_update()
        receipt = await session.scalar(query)
        if receipt is None:
            raise ToolFailure(f"{tool}: its receipt vanished; it was not called again")
        earlier = dict(receipt.result or {})
        if earlier.get("state") == DONE:
            return dict(earlier.get("outcome") or {})
        attempts = int(earlier.get("attempts") or 1)
        if not idempotent or attempts >= ATTEMPTS_IF_IDEMPOTENT:
            started = earlier.get("started_at", "earlier")
            raise ToolFailure(
                _unknown(tool, f"an earlier attempt (started {started}) was cut off", check)
            )
        receipt.result = {**earlier, "attempts": attempts + 1, "started_at": now}
        await session.commit()
        return attempts + 1


async def _settle(ctx: ToolContext, key: str, outcome: dict[str, Any]) -> None:
    async with ctx.database().session() as session:
        receipt = await session.scalar(
            select(MutationReceipt).where(MutationReceipt.idempotency_key == key)
        )
        if receipt is not None:
            receipt.result = {**(receipt.result or {}), "state": DONE, "outcome": outcome}
            await session.commit()


async def _release(ctx: ToolContext, key: str) -> None:
    """Forget a receipt whose call was never made, so the change can be tried again."""
    async with ctx.database().session() as session:
        receipt = await session.scalar(
            select(MutationReceipt).where(MutationReceipt.idempotency_key == key)
        )
        if receipt is not None and (receipt.result or {}).get("state") == CALLING:
            await session.delete(receipt)
            await session.commit()


def _unknown(tool: str, what: str, check: str) -> str:
    return (
        f"the outcome of {tool} is unknown: {what}, so it may or may not have been carried "
        f"out, and it will not be called again. Check {check} before asking for it again."
    )
