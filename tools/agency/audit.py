"""The agency pack's brand-mapping audit: brands missing a destination, with a suggested fix."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import select

from tools.agency.lookup import NameArg, find_client
from tools.agency.mapping_state import is_mapped, missing_fields
from tools.agency.models import Brand, Client
from tools.declaration import Shows, ToolContext, declare


class AuditArgs(BaseModel):
    """Arguments of `audit_brand_mappings`."""

    client: NameArg | None = Field(default=None, description="only this client's brands")


def _audit_entry(brand: Brand, client: Client, mapped: list[Brand]) -> dict[str, Any]:
    """Say what a brand's mapping lacks and how to complete it from its mapped siblings."""
    gaps = missing_fields(brand)
    spaces = Counter(b.destination_space for b in mapped).most_common(1)
    space = brand.destination_space or (spaces[0][0] if spaces else None)
    steps = []
    if "destination_space" in gaps:
        steps.append(
            f"set destination_space to '{space}', the space {client.name}'s mapped brands use"
            if space
            else f"ask the account team for the destination_space: no {client.name} brand is mapped"
        )
    if "destination_list" in gaps:
        example = f", named like '{mapped[0].destination_list}'" if mapped else ""
        steps.append(f"choose or create its destination_list{example}")
    return {
        "brand_id": brand.id,
        "brand": brand.name,
        "client": client.name,
        "marketplace": brand.marketplace,
        "missing": gaps,
        "suggested_space": space,
        "remediation": "; ".join(steps),
    }


@declare(
    pack="agency",
    kind="read_only",
    asks=(
        "audit the brand mappings for Acme",
        "find brands with an incomplete destination",
        "check every brand's destination mapping",
        "brand mapping gaps for Globex",
        "are there brands without a destination space",
        "which Hooli brands need their mapping fixed?",
    ),
    shows=Shows(
        records="missing",
        fields=("brand", "client", "marketplace", "missing", "suggested_space", "remediation"),
        noun="brand missing a mapping",
        nouns="brands missing a mapping",
        lead={"": "of {checked} checked"},
    ),
)
async def audit_brand_mappings(args: AuditArgs, ctx: ToolContext) -> dict[str, Any]:
    """Audit the brand mappings: find brands whose destination is incomplete, and the fix.

    Returns:
        {"checked", "complete", "missing": [{"brand_id", "brand", "client", "marketplace",
        "missing" (of "destination_space", "destination_list"), "suggested_space",
        "remediation"}]}; or not_found/ambiguous for an unknown `client`.

    Examples:
        {}, {"client": "Distex"}.
    """
    async with ctx.database().session() as session:
        query = select(Brand, Client).join(Client, Brand.client_id == Client.id)
        if args.client is not None:
            client = await find_client(session, args.client)
            if isinstance(client, dict):
                return client
            query = query.where(Brand.client_id == client.id)
        rows = (await session.execute(query.order_by(Client.name, Brand.name, Brand.id))).all()
    mapped: dict[int, list[Brand]] = {}
    for brand, _ in rows:
        if is_mapped(brand):
            mapped.setdefault(brand.client_id, []).append(brand)
    missing = [
        _audit_entry(brand, owner, mapped.get(owner.id, []))
        for brand, owner in rows
        if not is_mapped(brand)
    ]
    return {"checked": len(rows), "complete": len(rows) - len(missing), "missing": missing}


TOOLS = [audit_brand_mappings]
