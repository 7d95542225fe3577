"""The agency pack's knowledge base search over SOPs and docs."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field
from sqlalchemy import select

from tools.agency.lookup import (
    NameArg,
    find_client,
)
from tools.agency.models import Client
from tools.agency.search import search
from tools.declaration import Shows, ToolContext, declare
from tools.names import not_blank


class SearchKbArgs(BaseModel):
    """Arguments of `search_kb`."""

    query: Annotated[str, AfterValidator(not_blank)] = Field(
        min_length=1,
        max_length=20_000,
        description="what to look for, in words: a phrase or a question, e.g. 'coupon code'",
    )
    client: NameArg | None = Field(default=None, description="also search this client's docs")
    kind: Literal["sop", "doc", "task_template"] | None = None
    limit: int = Field(default=5, ge=1, le=20)


@declare(
    pack="agency",
    kind="read_only",
    asks=(
        "search the knowledge base for returns",
        "is there an SOP for launching a product?",
        "how do we handle a price change?",
        "find docs about A+ content",
        "what's the process for a brand registry request",
        "steps for setting up a promotion",
        "where's the guide on storefront design",
        "how should I write bullet points",
        "how does one file a return claim?",
        "A+ content: is there a written procedure?",
        "packaging rules, where are they documented?",
        "what's our process for pausing a listing?",
        "what do our guidelines say about brand voice",
        "how long does a price change take to show up?",
        "any how-to on setting up a storefront?",
    ),
    shows=Shows(
        records="results",
        fields=("title", "kind", "client", "excerpt"),
        noun="document",
        lead={
            "": 'matching "{query}"',
            "other_kinds": 'matching "{query}" (no {no_match_of_kind} matched: other kinds shown)',
        },
    ),
)
async def search_kb(args: SearchKbArgs, ctx: ToolContext) -> dict[str, Any]:
    """Search the knowledge base (SOPs, docs, task templates), best match first.

    With `client`, searches that client's documents plus agency-wide ones; without it,
    every document. Matching is by words, so "coupon code" finds "Coupon code setup SOP".

    Returns:
        {"query", "results": [{"id", "title", "kind", "client_id", "client" (None for
        agency-wide docs), "score", "excerpt"}]}; or not_found/ambiguous for an unknown
        `client`. "results" is empty when nothing matches. When no document of `kind` matches,
        the other kinds' matches, with "status": "other_kinds" and "no_match_of_kind".

    Examples:
        {"query": "coupon code"}, {"query": "brand guidelines", "client": "Thorinox"},
        {"query": "onboarding", "kind": "sop", "limit": 3}.
    """
    db = ctx.database()
    async with db.session() as session:
        client_id = None
        if args.client is not None:
            client = await find_client(session, args.client)
            if isinstance(client, dict):
                return client
            client_id = client.id
        hits = await search(
            session, db.dialect, args.query, client_id=client_id, kind=args.kind, limit=args.limit
        )
        widened = not hits and args.kind is not None  # "any docs on X?" also means its SOP
        if widened:
            hits = await search(
                session, db.dialect, args.query, client_id=client_id, limit=args.limit
            )
        owner_ids = {h.client_id for h in hits if h.client_id is not None}
        names = await session.execute(
            select(Client.id, Client.name).where(Client.id.in_(owner_ids))
        )
        owners: dict[int | None, str] = {row.id: row.name for row in names}
    # Hit fields plus the owning client's name (None for agency-wide documents).
    results = [{**asdict(h), "client": owners.get(h.client_id)} for h in hits]
    found = {"query": args.query[:200], "results": results}
    if widened and results:
        return {**found, "status": "other_kinds", "no_match_of_kind": args.kind}
    return found


TOOLS = [search_kb]
