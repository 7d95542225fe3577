"""What a brand change would change, read before it is made: the brand it names, the fixes.

The mutations in `tools.agency.brands` make the change; their previews read it from here too,
so a proposal shows what an approval would do with the same lookup the change will use.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from tools.agency.models import Brand, Client
from tools.agency.mutations import marketplace_label
from tools.agency.records import require

SHOWN = 5
"""How many brands a preview of a bulk fix names before it counts the rest."""


async def brand_named(session: AsyncSession, brand: str, client: str | None) -> Brand:
    """The one brand `brand` names (among `client`'s brands when given).

    Raises:
        ValueError: The name matches no brand, or brands of several clients: it names them.
    """
    where = None
    if client:
        where = Brand.client_id == (await require(session, Client, client, label="client")).id
    return await require(session, Brand, brand, label="brand", where=where)


async def planned_fixes(
    session: AsyncSession, client: str | None, default_space: str | None, list_suffix: str | None
) -> list[tuple[Client, Brand, dict[str, str]]]:
    """Each incompletely mapped brand of `client` (else of every client), with its fix.

    Raises:
        ValueError: `client` names no client, or several.
    """
    clients = select(Client).order_by(Client.name)
    if client:
        named = await require(session, Client, client, label="client")
        clients = clients.where(Client.id == named.id)
    planned = []
    for row in (await session.scalars(clients)).all():
        brands = select(Brand).where(Brand.client_id == row.id).order_by(Brand.name)
        found = list(await session.scalars(brands))
        planned += [(row, brand, fix) for brand, fix in fixes(found, default_space, list_suffix)]
    return planned


def fixes(
    brands: list[Brand], default_space: str | None, list_suffix: str | None
) -> list[tuple[Brand, dict[str, str]]]:
    """Return each incompletely mapped brand with the fields to set ({}: no space to infer)."""
    # Like the mapping audit: copy the space the client's fully mapped brands use most.
    spaces = Counter(b.destination_space for b in brands if b.destination_list)
    space = next((s for s, _ in spaces.most_common() if s), default_space)
    found: list[tuple[Brand, dict[str, str]]] = []
    for brand in brands:
        if brand.destination_space and brand.destination_list:
            continue
        if not (brand.destination_space or space):
            found.append((brand, {}))
            continue
        fix = {} if brand.destination_space else {"destination_space": space or ""}
        if not brand.destination_list:
            market = f"{marketplace_label(brand.marketplace)} - " if brand.marketplace else ""
            named = f"{brand.name} {list_suffix}" if list_suffix else market + brand.name
            fix["destination_list"] = named
        found.append((brand, fix))
    return found


def listed(lines: list[str]) -> str:
    """The first few of `lines` joined, and how many more there are."""
    more = f"; and {len(lines) - SHOWN} more" if len(lines) > SHOWN else ""
    return "; ".join(lines[:SHOWN]) + more
