"""The agency pack's tasks, and the argument types its changes share (names, roles, keys).

Every change goes through `run_once`; checks that depend on current state run inside it, so a
replayed approval returns the first result instead of failing on its own effect.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any

from pydantic import AfterValidator, Field
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.models import TeamMember
from tools.agency.drafts import build_draft, normalize_product_ids
from tools.agency.models import Brand, Client, Task
from tools.agency.records import require
from tools.arguments import Args
from tools.declaration import Shows, ToolContext, declare
from tools.idempotency import run_once
from tools.names import not_blank

ADMIN = ("admin",)
STAFF = ("member", "admin")
MAPPING = ("marketplace", "destination_space", "destination_list")


Name = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(not_blank)]


def brand_dict(brand: Brand, client: str) -> dict[str, Any]:
    """Return a brand as tool-result data."""
    fields = {field: getattr(brand, field) for field in MAPPING}
    return {"id": brand.id, "client": client, "name": brand.name, **fields}


def as_key(value: str) -> str:
    """Return a role or marketplace as a key ("Amazon US" → "amazon_us")."""
    return "_".join(re.split(r"[\s\-_]+", value.strip().casefold()))


def marketplace_label(key: str) -> str:
    """Return the display form of a marketplace ("amazon_us" → "Amazon US")."""
    return " ".join(p.upper() if len(p) <= 3 else p.capitalize() for p in key.split("_") if p)


class CreateTaskArgs(Args):
    """Arguments of create_task."""

    client: Name = Field(description="client name, e.g. Thorinox")
    title: Annotated[str, AfterValidator(not_blank)] = Field(
        min_length=1, max_length=20000, description="the work to do, e.g. Update the listing photos"
    )
    details: str = Field(default="", max_length=50_000, description="what was asked, verbatim")
    brand: Name | None = None
    assignee: Name | None = Field(default=None, description="team member name")
    due_date: date | None = Field(default=None, description="YYYY-MM-DD")
    product_ids: Annotated[list[str], AfterValidator(normalize_product_ids)] = Field(
        default_factory=list, max_length=200, description="ASINs, e.g. B0CGP12345"
    )


@declare(
    pack="agency",
    kind="mutating",
    roles=STAFF,
    asks=(
        "add a to-do for Acme to set up the coupon",
        "make a task to update the listing photos for Globex",
        "new task for Acme: set up the lightning deal",
        "can you log a task for Globex to renew the trademark?",
        "we need a task for Hooli to redo the A+ content",
        "task for Initech: audit the reviews, due Friday",
        "Hooli needs someone to book the studio, make it a task",
        "Globex wants the manual in Spanish by May 2, track that",
    ),
    shows=Shows(
        fields=(
            "task.title",
            "task.client",
            "task.brand",
            "task.assignee",
            "task.due_date",
            "task.product_ids",
            "draft.sop",
            "draft.missing",
        ),
        lead={"created": "Created the task"},
    ),
)
async def create_task(args: CreateTaskArgs, ctx: ToolContext) -> dict[str, Any]:
    """Create a client task, grounded in the best-matching SOP.

    The draft's description is the details plus the SOP's numbered steps as a checklist;
    ASINs in the title or details ("B0CGP12345") are added to `product_ids`. Names are
    matched forgivingly; an unknown or ambiguous client, brand or assignee is an error that
    lists the candidates, so ask the person which one they meant. `draft.missing` lists what
    the task still lacks (e.g. which ASINs a coupon covers): ask about it before proposing.

    Returns:
        {"status": "created", "task": {"id", "client", "brand", "title", "description",
        "status", "assignee", "due_date", "product_ids", "created_by"},
        "draft": {"title", "description", "sop": {"id", "title"} | null, "product_ids",
        "missing"}}.

    Example:
        {"client": "Thorinox", "brand": "Garlic Press", "title": "Create a coupon code for
        Garlic Press", "details": "20% off, ASIN B0CGP12345", "due_date": "2026-12-01"}
    """
    if args.due_date and args.due_date < ctx.today:
        raise ValueError(f"due_date {args.due_date} is in the past (today is {ctx.today})")
    db = ctx.database()
    async with db.session() as session:
        client = await require(session, Client, args.client, label="client")
        brand = assignee = None
        if args.brand:
            where = Brand.client_id == client.id
            brand = await require(session, Brand, args.brand, label="brand", where=where)
        if args.assignee:
            assignee = await require(session, TeamMember, args.assignee, label="person")
        draft = await build_draft(
            session,
            db.dialect,
            title=args.title,
            details=args.details,
            client=client,
            brand=brand,
            product_ids=args.product_ids,
        )

    async def mutate(session: AsyncSession) -> dict[str, Any]:
        task = Task(
            client_id=client.id,
            brand_id=brand.id if brand else None,
            title=args.title,
            description=draft["description"],
            status="open",
            due_date=args.due_date,
            assignee_id=assignee.id if assignee else None,
            product_ids=draft["product_ids"],
            created_by=ctx.user_id,
        )
        session.add(task)
        await session.flush()
        shown = {
            "id": task.id,
            "client": client.name,
            "brand": brand.name if brand else None,
            "title": task.title,
            "description": task.description,
            "status": task.status,
            "assignee": assignee.name if assignee else None,
            "due_date": task.due_date.isoformat() if task.due_date else None,
            "product_ids": task.product_ids,
            "created_by": task.created_by,
        }
        return {"status": "created", "task": shown, "draft": draft}

    return await run_once(ctx, "create_task", args.model_dump(mode="json"), mutate)


TOOLS = [create_task]
