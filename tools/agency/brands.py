"""The agency pack's brand mutations: create and update brands, and fix missing mappings."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, Field, WithJsonSchema, model_validator
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.base import name_key
from tools.agency.brand_changes import brand_named, listed, planned_fixes
from tools.agency.models import Brand, Client
from tools.agency.mutations import ADMIN, MAPPING, Name, as_key, brand_dict
from tools.agency.records import require
from tools.arguments import Args
from tools.declaration import Shows, ToolContext, ToolFailure, declare
from tools.idempotency import run_once

_BRAND_FIELDS = (
    "brand.name",
    "brand.client",
    "brand.marketplace",
    "brand.destination_space",
    "brand.destination_list",
)
"""What a person reads of a brand a change created or updated."""


MARKETPLACE = r"^\s*[A-Za-z0-9]+(?:[\s_-]+[A-Za-z0-9]+)*[\s_-]+[A-Za-z]{2}\s*$"
"""A marketplace as written: a channel, then a two-letter country ("amazon_us", "Amazon US")."""


def as_marketplace(value: str) -> str:
    """Return a marketplace as a key ("Amazon US" → "amazon_us"), or refuse what is none."""
    if not re.fullmatch(MARKETPLACE, value):
        raise ValueError(
            f"a marketplace is a channel and a two-letter country, e.g. amazon_us; not '{value}'"
        )
    return as_key(value)


_MARKET = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": MARKETPLACE}


class MappingArgs(Args):
    """A brand's mapping fields; None leaves a field as it is."""

    marketplace: Annotated[Name, AfterValidator(as_marketplace), WithJsonSchema(_MARKET)] | None = (
        Field(default=None, description="a channel and a two-letter country, e.g. amazon_us")
    )
    destination_space: Name | None = None
    destination_list: Name | None = None

    def mapping(self) -> dict[str, str]:
        """Return the mapping fields that were given."""
        return self.model_dump(include=set(MAPPING), exclude_none=True)


class CreateBrandArgs(MappingArgs):
    """Arguments of create_brand."""

    client: Name
    name: Annotated[Name, AfterValidator(str.strip)] = Field(
        description="the new brand's name, e.g. 'Sunny Oats'"
    )


@declare(
    pack="agency",
    kind="mutating",
    roles=ADMIN,
    asks=(
        "add a new brand Sunny Oats for Acme",
        "create brand Crunchy Bits on amazon_de for Globex",
        "register a brand for a client",
        "Hooli is launching Zesty, set it up as a brand",
        "we signed a new brand, Fizz, for Initech",
        "Initech has a new brand, Fizz",
        "new brand for Globex: Crunchy Bits, on amazon_de",
        "Globex brought on another line, Tiny Forks; add it as their brand",
        "one more brand under Acme please: Sparkle Jars",
    ),
    shows=Shows(
        fields=(*_BRAND_FIELDS, "mapping_complete"),
        lead={"created": "Created the brand"},
    ),
)
async def create_brand(args: CreateBrandArgs, ctx: ToolContext) -> dict[str, Any]:
    """Add a brand to a client, optionally with its marketplace and destination mapping.

    Brand names are unique within a client (case and spacing ignored). Marketplaces are
    stored as keys ("Amazon US" → "amazon_us"). Without a destination space and list the
    brand is unmapped: its tasks have nowhere to go until update_brand maps it.

    Returns:
        {"status": "created", "brand": {"id", "client", "name", "marketplace",
        "destination_space", "destination_list"}, "mapping_complete": bool}.
    """
    async with ctx.database().session() as session:
        client = await require(session, Client, args.client, label="client")

    async def mutate(session: AsyncSession) -> dict[str, Any]:
        key = name_key(args.name)
        same = select(Brand).where(Brand.client_id == client.id, Brand.name_key == key)
        if clash := await session.scalar(same):
            raise ValueError(f"{client.name} already has a brand named {clash.name!r}")
        brand = Brand(client_id=client.id, name=args.name, name_key=key, **args.mapping())
        session.add(brand)
        await session.flush()
        complete = bool(brand.destination_space and brand.destination_list)
        shown = brand_dict(brand, client.name)
        return {"status": "created", "brand": shown, "mapping_complete": complete}

    return await run_once(ctx, "create_brand", args.model_dump(mode="json"), mutate)


class UpdateBrandArgs(MappingArgs):
    """Arguments of update_brand."""

    brand: Name
    client: Name | None = None

    @model_validator(mode="after")
    def _something_to_change(self) -> UpdateBrandArgs:
        if not self.mapping():
            raise ValueError(f"give at least one of {', '.join(MAPPING)}")
        return self


async def _updates(args: UpdateBrandArgs, ctx: ToolContext) -> str:
    """What an update would change on which brand: a person approves the values themselves."""
    async with ctx.database().session() as session:
        try:
            brand = await brand_named(session, args.brand, args.client)
        except ValueError as exc:
            raise ToolFailure(f"nothing to change yet: {exc}") from None
        client = await session.get_one(Client, brand.client_id)
    new = args.mapping()
    now = {f: getattr(brand, f) for f in new}
    changes = [f"{f} {now[f] or '(none)'!r} → {v!r}" for f, v in new.items() if now[f] != v]
    if not changes:
        raise ToolFailure(f"{brand.name} of {client.name} already reads so: nothing to change")
    return f"→ {brand.name} of {client.name}: {', '.join(changes)}"


@declare(
    pack="agency",
    kind="mutating",
    roles=ADMIN,
    asks=(
        "change the Sunny Oats destination list",
        "update the brand's marketplace to amazon_uk",
        "set the destination space of Crunchy Bits to Globex",
        "Zesty now sells on amazon_ca, update it",
        "map Fizz to the list Amazon US - Fizz",
        "Sunny Oats should file under the list Oats Ops from now on",
        "Crunchy Bits' work belongs in the Globex space",
        "move Zesty's tasks to the list Hooli Ops",
        "rename Fizz's destination list to Fizz Queue",
        "route Zesty to the Hooli space, list Zesty Intake",
        "the list for Sunny Oats is now called Oats Board",
    ),
    shows=Shows(
        fields=_BRAND_FIELDS,
        lead={"updated": "Updated the brand", "unchanged": "The brand already reads so"},
    ),
    previews=_updates,
)
async def update_brand(args: UpdateBrandArgs, ctx: ToolContext) -> dict[str, Any]:
    """Change a brand's marketplace or destination mapping (the fields given; others stay).

    The same brand name can exist under several clients (e.g. Garlic Press): give `client`
    then, or the ambiguity error lists the clients to ask about.

    Returns:
        {"status": "updated" | "unchanged", "brand": {"id", "client", "name", "marketplace",
        "destination_space", "destination_list"} after the change, "changes": {field:
        {"from", "to"}}}.
    """
    async with ctx.database().session() as session:
        brand_id = (await brand_named(session, args.brand, args.client)).id

    async def mutate(session: AsyncSession) -> dict[str, Any]:
        brand = await session.get_one(Brand, brand_id)
        changes = {}
        for field, value in args.mapping().items():
            if getattr(brand, field) != value:
                changes[field] = {"from": getattr(brand, field), "to": value}
                setattr(brand, field, value)
        await session.flush()
        client = await session.get_one(Client, brand.client_id)
        status = "updated" if changes else "unchanged"
        return {"status": status, "brand": brand_dict(brand, client.name), "changes": changes}

    return await run_once(ctx, "update_brand", args.model_dump(mode="json"), mutate)


class ApplyRemediationArgs(Args):
    """Arguments of apply_remediation."""

    client: Name | None = Field(default=None, description="omit for every client")
    default_space: Name | None = None
    default_list_suffix: Name | None = None


async def _planned(
    session: AsyncSession, args: ApplyRemediationArgs
) -> list[tuple[Client, Brand, dict[str, str]]]:
    return await planned_fixes(session, args.client, args.default_space, args.default_list_suffix)


async def _remediates(args: ApplyRemediationArgs, ctx: ToolContext) -> str:
    """What a bulk fix would set, brand by brand: a person approves the values themselves."""
    async with ctx.database().session() as session:
        try:
            planned = await _planned(session, args)
        except ValueError as exc:
            raise ToolFailure(f"nothing to fix: {exc}") from None
    sets = [
        f"{b.name} of {c.name}: " + ", ".join(f"{f} {v!r}" for f, v in fix.items())
        for c, b, fix in planned
        if fix
    ]
    stuck = sum(not fix for _, _, fix in planned)
    unfilled = f"; {stuck} more lack a space to copy (give default_space)" if stuck else ""
    if not sets:
        raise ToolFailure(f"nothing to fix: no mapping it can fill{unfilled}")
    return f"→ would set {len(sets)} brand(s): {listed(sets)}{unfilled}"


@declare(
    pack="agency",
    kind="mutating",
    roles=ADMIN,
    asks=(
        "fix the incomplete brand mappings the audit found",
        "apply the audit's suggested fix for Acme",
        "remediate the broken brand destinations",
        "repair every brand mapping the audit flagged",
        "bulk-fix the missing destinations for Hooli",
        "repair all the routing the audit flagged",
    ),
    shows=Shows(
        records="changed",
        fields=("brand", "client", "set"),
        lead={"applied": "Fixed the mappings", "nothing_to_fix": "Nothing to fix"},
    ),
    previews=_remediates,
)
async def apply_remediation(args: ApplyRemediationArgs, ctx: ToolContext) -> dict[str, Any]:
    """Fill in missing brand destination mappings, for one client or all of them.

    Only missing fields are set, never overwritten. The space is the one the client's mapped
    brands use most (else `default_space`); the list is "<marketplace> - <brand>" (e.g.
    "Amazon US - Garlic Press"), or "<brand> <default_list_suffix>" when a suffix is given.
    A brand whose space cannot be inferred is skipped and reported.

    Returns:
        {"status": "applied" | "nothing_to_fix", "changed": [{"client", "brand", "set":
        {field: value}}], "skipped": [{"client", "brand", "reason"}]}.
    """
    if args.client:
        async with ctx.database().session() as session:
            await require(session, Client, args.client, label="client")

    async def mutate(session: AsyncSession) -> dict[str, Any]:
        changed: list[dict[str, Any]] = []
        skipped: list[dict[str, Any]] = []
        for client, brand, fix in await _planned(session, args):
            where = {"client": client.name, "brand": brand.name}
            if not fix:
                reason = f"no brand of {client.name} is mapped to a space; give default_space"
                skipped.append({**where, "reason": reason})
                continue
            for field, value in fix.items():
                setattr(brand, field, value)
            changed.append({**where, "set": fix})
        await session.flush()
        status = "applied" if changed else "nothing_to_fix"
        return {"status": status, "changed": changed, "skipped": skipped}

    return await run_once(ctx, "apply_remediation", args.model_dump(mode="json"), mutate)


TOOLS = [create_brand, update_brand, apply_remediation]
