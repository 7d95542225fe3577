"""What a pack's demo seed needs: add a row unless it is there, counting what was added."""

from __future__ import annotations

from collections import Counter
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.base import Base

T = TypeVar("T", bound=Base)


async def get_or_add(
    session: AsyncSession,
    added: Counter[str],
    model: type[T],
    match: dict[str, Any] | None = None,
    **values: Any,
) -> T:
    """Return the row matching `match` (default: all of `values`), inserting it if missing.

    A seed written with it can run again and change nothing: `added` counts new rows by table.
    """
    if match is None:
        match, values = values, {}
    query = select(model).filter_by(**match)
    row = (await session.scalars(query)).first()
    if row is None:
        row = model(**match, **values)
        session.add(row)
        await session.flush()
        added[model.__tablename__] += 1
    return row


def without(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    """Return `data` without `keys` (the fields a seed resolves itself, such as a parent)."""
    return {k: v for k, v in data.items() if k not in keys}
