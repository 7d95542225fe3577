"""Loads the agency's part of the demo workspace; running it again changes nothing."""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from core.db.base import name_key
from core.db.engine import Database
from core.db.models import TeamMember
from tools.agency import demo_data
from tools.agency.models import Assignment, Brand, Client, ClientMemoryNote, KbDocument, Task
from tools.seeding import get_or_add, without


async def seed_agency(db: Database) -> dict[str, int]:
    """Insert whatever part of the agency's demo data is missing; return rows added per table.

    The team goes into the runtime's `team_members`, with the roles the demo relies on.
    """
    added: Counter[str] = Counter()
    async with db.session() as session:
        clients = {c["name"]: await _client(session, c, added) for c in demo_data.CLIENTS}
        brands = {}
        for b in demo_data.BRANDS:
            brands[(b["client"], b["name"])] = await _brand(session, clients[b["client"]], b, added)
        team = {m["name"]: await _member(session, m, added) for m in demo_data.TEAM}
        for a in demo_data.ASSIGNMENTS:
            await get_or_add(
                session,
                added,
                Assignment,
                client_id=clients[a["client"]].id,
                team_member_id=team[a["member"]].id,
                assignment_role=a["role"],
            )
        for t in demo_data.TASKS:
            brand = brands[(t["client"], t["brand"])] if t["brand"] else None
            await get_or_add(
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
            await get_or_add(
                session,
                added,
                KbDocument,
                match={"client_id": client.id if client else None, "title": doc["title"]},
                kind=doc["kind"],
                body=doc["body"],
                tags=doc["tags"],
            )
        for n in demo_data.MEMORY_NOTES:
            await get_or_add(
                session,
                added,
                ClientMemoryNote,
                match={"client_id": clients[n["client"]].id, "note": n["note"]},
                source=n["source"],
                confidence=n["confidence"],
                tags=n["tags"],
                author="seed",
            )
        await session.commit()
    return dict(added)


async def _client(session: AsyncSession, data: dict[str, Any], added: Counter[str]) -> Client:
    return await get_or_add(
        session, added, Client, match={"name_key": name_key(data["name"])}, **data
    )


async def _brand(
    session: AsyncSession, client: Client, data: dict[str, Any], added: Counter[str]
) -> Brand:
    return await get_or_add(
        session,
        added,
        Brand,
        match={"client_id": client.id, "name_key": name_key(data["name"])},
        **without(data, "client"),
    )


async def _member(session: AsyncSession, data: dict[str, Any], added: Counter[str]) -> TeamMember:
    return await get_or_add(
        session,
        added,
        TeamMember,
        match={"email": data["email"]},
        name_key=name_key(data["name"]),
        **without(data, "email"),
    )
