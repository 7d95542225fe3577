"""Exactly-once mutations: a receipt under a unique idempotency key is stored with the change."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.models import MutationReceipt
from tools.declaration import ToolContext

Mutation = Callable[[AsyncSession], Awaitable[dict[str, Any]]]


async def run_once(
    ctx: ToolContext, tool: str, args: dict[str, Any], mutate: Mutation
) -> dict[str, Any]:
    """Apply `mutate` and its receipt in one transaction, or return the earlier result.

    The receipt's unique key makes a replay (double approval, retried resume, a crash
    between approval and completion) return the first result instead of changing twice;
    a mutation that fails rolls its receipt back with it, so it can be tried again.
    Without a key (a direct call in tests or scripts) a fresh one is used.
    """
    key = ctx.idempotency_key or f"adhoc:{uuid.uuid4()}"
    db = ctx.database()
    async with db.session() as session:
        # Claim the key before touching anything: a concurrent claim of the same key waits
        # on the unique index until this transaction ends, then fails and reads our result.
        receipt = MutationReceipt(idempotency_key=key, tool=tool, actor=ctx.user_id, args=args)
        session.add(receipt)
        try:
            await session.flush()
        except IntegrityError:
            await session.rollback()
            earlier = await _receipt(session, key)
            if earlier is None:
                raise
            return {**earlier, "replayed": True}
        result = await mutate(session)
        receipt.result = result
        await session.commit()
    return result


async def _receipt(session: AsyncSession, key: str) -> dict[str, Any] | None:
    row = await session.scalar(
        select(MutationReceipt.result).where(MutationReceipt.idempotency_key == key)
    )
    return dict(row) if row is not None else None
