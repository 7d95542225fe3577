"""The agency pack's lookups: clients, brands and a brand's destination (its context).

Names are resolved tolerantly (`tools.names`); a name that matches nothing comes
back as data with suggestions, so the model can ask instead of failing.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field
from sqlalchemy import ColumnElement, select
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.models import TeamMember
from tools.agency.mapping_state import is_mapped, missing_fields
from tools.agency.models import Assignment, Brand, Client
from tools.declaration import Shows, ToolContext, declare
from tools.names import Resolution, not_blank, resolve

MAX_BRANDS = 100


NameArg = Annotated[str, AfterValidator(not_blank)]
"""A name argument: any text, but not blank."""


def unresolved(resolution: Resolution, field: str) -> dict[str, Any]:
    """Return the not_found/ambiguous result for a name the model has to clarify."""
    if resolution.status == "ambiguous":
        candidates = [{"id": c.id, "name": c.name} for c in resolution.candidates]
        return {
            "status": "ambiguous",
            "field": field,
            "query": resolution.query,
            "candidates": candidates,
        }
    suggestions = list(dict.fromkeys(c.name for c in resolution.candidates))
    return {
        "status": "not_found",
        "field": field,
        "query": resolution.query,
        "suggestions": suggestions,
        **({} if suggestions else {"known": resolution.known}),  # none close: what there is
    }


async def find_client(session: AsyncSession, query: str) -> Client | dict[str, Any]:
    """Return the client a name refers to, or the result that asks which one is meant."""
    resolution = await resolve(session, Client, query)
    if resolution.status != "found" or resolution.match is None:
        return unresolved(resolution, "client")
    return await session.get_one(Client, resolution.match.id)


async def _client_scope(
    session: AsyncSession, client: str | None
) -> ColumnElement[bool] | dict[str, Any] | None:
    """The brand filter for a client name: None for all brands, or the clarifying result."""
    if client is None:
        return None
    found = await find_client(session, client)
    if isinstance(found, dict):
        return found
    return Brand.client_id == found.id


def brand_data(brand: Brand, client: Client) -> dict[str, Any]:
    """Return a brand as tool-result data, with its client's name."""
    return {
        "id": brand.id,
        "name": brand.name,
        "client": client.name,
        "client_id": client.id,
        "marketplace": brand.marketplace,
        "destination_space": brand.destination_space,
        "destination_list": brand.destination_list,
        "mapped": is_mapped(brand),
    }


async def _brands_with_clients(session: AsyncSession, ids: list[int]) -> list[dict[str, Any]]:
    """Load brands by id, ordered by client then brand name."""
    query = (
        select(Brand, Client)
        .join(Client, Brand.client_id == Client.id)
        .where(Brand.id.in_(ids))
        .order_by(Client.name, Brand.name, Brand.id)
    )
    return [brand_data(b, c) for b, c in (await session.execute(query)).all()]


class LookupClientArgs(BaseModel):
    """Arguments of `lookup_client`."""

    query: NameArg = Field(description="the client's name, e.g. 'Thorinox' (typos are fine)")


class LookupBrandArgs(BaseModel):
    """Arguments of `lookup_brand`."""

    query: NameArg | None = Field(default=None, description="a brand name, e.g. 'Garlic Press'")
    client: NameArg | None = Field(default=None, description="only this client's brands")


class ResolveBrandArgs(BaseModel):
    """Arguments of `resolve_brand`."""

    brand: NameArg = Field(description="the brand's name, e.g. 'Garlic Press'")
    client: NameArg | None = Field(default=None, description="the client that owns the brand")


@declare(
    pack="agency",
    kind="read_only",
    asks=(
        "look up the client Acme",
        "is Globex one of our clients?",
        "find the client named acm",
        "client details for Initech",
        "do we have a customer called Umbrella?",
        "who's the account manager for Acme?",
        "Globex: which team members are on it?",
        "can you check if Hooli is a client",
    ),
    shows=Shows(
        records="client",
        fields=("name", "notes", "brands.name", "team.name+assignment_role"),
        lead={"found": "Found the client"},
    ),
)
async def lookup_client(args: LookupClientArgs, ctx: ToolContext) -> dict[str, Any]:
    """Look up a client by name (case-insensitive, tolerant of typos like "distx").

    Returns:
        {"status": "found", "client": {"id", "name", "notes", "brands": [{"id", "name",
        "mapped"}], "team": [{"name", "title", "assignment_role"}]}};
        {"status": "ambiguous", "candidates": [{"id", "name"}]} when several clients fit;
        {"status": "not_found", "query", "suggestions": [names]} (ask the user), with
        "known": [names] (the first 20 there are) when no name is close.

    Examples:
        {"query": "Thorinox"}, {"query": "distx"}.
    """
    async with ctx.database().session() as session:
        client = await find_client(session, args.query)
        if isinstance(client, dict):
            return client
        brands = await session.scalars(
            select(Brand).where(Brand.client_id == client.id).order_by(Brand.name, Brand.id)
        )
        team = await session.execute(
            select(TeamMember.name, TeamMember.title, Assignment.assignment_role)
            .join(Assignment, Assignment.team_member_id == TeamMember.id)
            .where(Assignment.client_id == client.id)
            .order_by(TeamMember.name, Assignment.assignment_role)
        )
        return {
            "status": "found",
            "client": {
                "id": client.id,
                "name": client.name,
                "notes": client.notes,
                "brands": [{"id": b.id, "name": b.name, "mapped": is_mapped(b)} for b in brands],
                "team": [
                    {"name": r.name, "title": r.title, "assignment_role": r.assignment_role}
                    for r in team
                ],
            },
        }


@declare(
    pack="agency",
    kind="read_only",
    asks=(
        "list every brand we manage",
        "what brands does Acme own?",
        "show the brands sold on amazon_de",
        "brands of Globex",
        "which marketplace is the Sunny Oats brand on?",
        "does Initech have any brands with us",
        "give me the brand list for Hooli",
        "where is the Crunchy Bits brand mapped to",
    ),
    shows=Shows(
        records="brands",
        fields=("name", "client", "marketplace", "destination_space", "destination_list", "mapped"),
        noun="brand",
    ),
)
async def lookup_brand(args: LookupBrandArgs, ctx: ToolContext) -> dict[str, Any]:
    """List brands with their client, marketplace and destination mapping.

    Without arguments lists every brand; `client` keeps that client's brands; `query`
    matches a brand name tolerantly. A name used by several clients lists each of them.
    A brand is "mapped" when both destination_space and destination_list are set.

    Returns:
        {"status": "found", "count", "brands": [{"id", "name", "client", "client_id",
        "marketplace", "destination_space", "destination_list", "mapped"}]}, with
        "status": "ambiguous" when `query` fits several brands equally; or
        {"status": "not_found", "field": "client"|"brand", "query", "suggestions"}.

    Examples:
        {}, {"client": "Distex"}, {"query": "Garlic Press"}, {"query": "peelers",
        "client": "Thorinox"}.
    """
    async with ctx.database().session() as session:
        where = await _client_scope(session, args.client)
        if isinstance(where, dict):
            return where
        if args.query is None:
            query = select(Brand.id).order_by(Brand.id).limit(MAX_BRANDS)
            ids = list(await session.scalars(query if where is None else query.where(where)))
            status = "found"
        else:
            resolution = await resolve(session, Brand, args.query, where=where)
            if resolution.status == "not_found":
                return unresolved(resolution, "brand")
            status = resolution.status
            found = [resolution.match] if resolution.match else resolution.candidates
            ids = [c.id for c in found]
        brands = await _brands_with_clients(session, ids)
        return {"status": status, "count": len(brands), "brands": brands}


@declare(
    pack="agency",
    kind="read_only",
    asks=(
        "which client is the Sunny Oats brand under?",
        "whose brand is Crunchy Bits",
        "where do Sunny Oats tasks get filed?",
        "find the owner of the brand Zesty",
        "Crunchy Bits is a brand of which customer",
        "which account does the Zesty brand belong to",
    ),
    shows=Shows(
        fields=(
            "brand.name",
            "client",
            "brand.marketplace",
            "destination.space",
            "destination.list",
            "missing_mapping",
        ),
        lead={"found": "Where {brand[name]} tasks go"},
    ),
)
async def resolve_brand(args: ResolveBrandArgs, ctx: ToolContext) -> dict[str, Any]:
    """Resolve a brand to its client and destination (where its tasks are filed).

    Use before creating work for a brand. Pass `client` when known: the same brand name
    can belong to several clients (e.g. "Garlic Press" under Thorinox and Distex), and
    then the result is ambiguous and lists each with its client, so ask which one.

    Returns:
        {"status": "found", "brand": {"id", "name", "marketplace"}, "client": {"id",
        "name"}, "destination": {"space", "list", "mapped"}, "missing_mapping": [fields]};
        {"status": "ambiguous", "field": "brand", "candidates": [{"id", "name", "client",
        "mapped", ...}]}; or {"status": "not_found", "field", "query", "suggestions"}.

    Examples:
        {"brand": "Garlic Press", "client": "Thorinox"}, {"brand": "distex lighting"}.
    """
    async with ctx.database().session() as session:
        where = await _client_scope(session, args.client)
        if isinstance(where, dict):
            return where
        resolution = await resolve(session, Brand, args.brand, where=where)
        if resolution.status == "ambiguous":
            candidates = await _brands_with_clients(session, [c.id for c in resolution.candidates])
            return {
                "status": "ambiguous",
                "field": "brand",
                "query": resolution.query,
                "candidates": candidates,
            }
        if resolution.status != "found" or resolution.match is None:
            return unresolved(resolution, "brand")
        brand = await session.get_one(Brand, resolution.match.id)
        owner = await session.get_one(Client, brand.client_id)
        return {
            "status": "found",
            "brand": {"id": brand.id, "name": brand.name, "marketplace": brand.marketplace},
            "client": {"id": owner.id, "name": owner.name},
            "destination": {
                "space": brand.destination_space,
                "list": brand.destination_list,
                "mapped": is_mapped(brand),
            },
            "missing_mapping": missing_fields(brand),
        }


TOOLS = [lookup_client, lookup_brand, resolve_brand]
