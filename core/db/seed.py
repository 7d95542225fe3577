"""Loads the demo workspace (`agentloop seed --demo`); running it again changes nothing."""

from __future__ import annotations

from collections import Counter
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from core.db import demo_data
from core.db.base import Base, name_key
from core.db.engine import Database
from core.db.models import (
    Assignment,
    Booking,
    Brand,
    Client,
    ClientMemoryNote,
    KbDocument,
    Rate,
    Room,
    Task,
    TeamMember,
)

T = TypeVar("T", bound=Base)


async def seed_demo(db: Database) -> dict[str, int]:
    """Insert whatever part of the demo workspace is missing; return rows added per table."""
    added: Counter[str] = Counter()
    async with db.session() as session:
        clients = {c["name"]: await _client(session, c, added) for c in demo_data.CLIENTS}
        brands = {}
        for b in demo_data.BRANDS:
            brands[(b["client"], b["name"])] = await _brand(session, clients[b["client"]], b, added)
        team = {m["name"]: await _member(session, m, added) for m in demo_data.TEAM}
        for a in demo_data.ASSIGNMENTS:
            await _get_or_add(
                session,
                added,
                Assignment,
                client_id=clients[a["client"]].id,
                team_member_id=team[a["member"]].id,
                assignment_role=a["role"],
            )
        for t in demo_data.TASKS:
            brand = brands[(t["client"], t["brand"])] if t["brand"] else None
            await _get_or_add(
                session,
                added,
                Task,
                match={"client_id": clients[t["client"]].id, "title": t["title"]},
                brand_id=brand.id if brand else None,
                status=t["status"],
                assignee_id=team[t["assignee"]].id,
                due_date=t["due_date"],
                product_ids=t["product_ids"],
                created_by="seed",
            )
        for doc in demo_data.SOPS:
            client = clients[doc["client"]] if doc["client"] else None
            await _get_or_add(
                session,
                added,
                KbDocument,
                match={"client_id": client.id if client else None, "title": doc["title"]},
                kind=doc["kind"],
                body=doc["body"],
                tags=doc["tags"],
            )
        for n in demo_data.MEMORY_NOTES:
            await _get_or_add(
                session,
                added,
                ClientMemoryNote,
                match={"client_id": clients[n["client"]].id, "note": n["note"]},
                source=n["source"],
                confidence=n["confidence"],
                tags=n["tags"],
                author="seed",
            )
        rooms = {}
        for r in demo_data.ROOMS:
            rooms[r["room_type"]] = await _get_or_add(
                session,
                added,
                Room,
                match={"room_type": r["room_type"]},
                **_without(r, "room_type"),
            )
        for rate in demo_data.RATES:
            await _get_or_add(
                session,
                added,
                Rate,
                room_id=rooms[rate["room"]].id,
                start_date=rate["start"],
                end_date=rate["end"],
                rate_per_night=rate["rate"],
            )
        for bk in demo_data.BOOKINGS:
            await _get_or_add(
                session,
                added,
                Booking,
                match={
                    "room_id": rooms[bk["room"]].id,
                    "check_in": bk["check_in"],
                    "guest_name": bk["guest_name"],
                },
                check_out=bk["check_out"],
                guests=bk["guests"],
                created_by="seed",
            )
        await session.commit()
    return dict(added)


async def _client(session: AsyncSession, data: dict[str, Any], added: Counter[str]) -> Client:
    return await _get_or_add(
        session, added, Client, match={"name_key": name_key(data["name"])}, **data
    )


async def _brand(
    session: AsyncSession, client: Client, data: dict[str, Any], added: Counter[str]
) -> Brand:
    return await _get_or_add(
        session,
        added,
        Brand,
        match={"client_id": client.id, "name_key": name_key(data["name"])},
        **_without(data, "client"),
    )


async def _member(session: AsyncSession, data: dict[str, Any], added: Counter[str]) -> TeamMember:
    return await _get_or_add(
        session,
        added,
        TeamMember,
        match={"email": data["email"]},
        name_key=name_key(data["name"]),
        **_without(data, "email"),
    )


async def _get_or_add(
    session: AsyncSession,
    added: Counter[str],
    model: type[T],
    match: dict[str, Any] | None = None,
    **values: Any,
) -> T:
    """Return the row matching `match` (default: all of `values`), inserting it if missing."""
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


def _without(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in keys}
