"""The one agency record a name means.

A change names records as a person typed them ("thorinx"); `require` finds the one row meant,
forgivingly, or raises with the candidates so the model can ask which.
"""

from __future__ import annotations

from typing import TypeVar

from sqlalchemy import ColumnElement
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.models import TeamMember
from tools.agency.models import Brand, Client
from tools.names import resolve

M = TypeVar("M", Client, Brand, TeamMember)


async def require(
    session: AsyncSession,
    model: type[M],
    query: str,
    *,
    label: str,
    where: ColumnElement[bool] | None = None,
) -> M:
    """Return the one row `query` names (optionally among `where`), found forgivingly.

    Raises:
        ValueError: Naming the candidates, so the model can ask, when the name is ambiguous
            or matches nothing.
    """
    found = await resolve(session, model, query, where=where)
    if found.status == "found" and found.match is not None:
        return await session.get_one(model, found.match.id)
    if found.status == "ambiguous":
        rows = [await session.get_one(model, c.id) for c in found.candidates]
        names = [await _describe(session, row) for row in rows]
        raise ValueError(f"{label} {query!r} is ambiguous: which one, {' or '.join(names)}?")
    if found.candidates:
        names = [c.name for c in found.candidates]
        raise ValueError(f"no {label} matches {query!r}; did you mean: {', '.join(names)}?")
    raise ValueError(f"no {label} matches {query!r}; known: {', '.join(found.known) or 'none'}")


async def _describe(session: AsyncSession, row: Client | Brand | TeamMember) -> str:
    if isinstance(row, Brand):
        return f"{row.name} (client {(await session.get_one(Client, row.client_id)).name})"
    return f"{row.name} ({row.email})" if isinstance(row, TeamMember) else row.name
