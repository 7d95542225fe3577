"""Acme's support tickets: the table, a read, a change, a gather source and the demo seed."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import Field
from sqlalchemy import String, Text, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from core.db.base import Base
from core.db.engine import Database
from core.state import Source
from tools.arguments import Args
from tools.declaration import GatherContext, ToolContext, declare
from tools.idempotency import run_once
from tools.seeding import get_or_add


class SupportTicket(Base):
    """A customer's support ticket."""

    __tablename__ = "acme_support_tickets"
    id: Mapped[int] = mapped_column(primary_key=True)
    customer: Mapped[str] = mapped_column(Text)
    subject: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="open")
    closed_by: Mapped[str | None] = mapped_column(Text)


class ListArgs(Args):
    """Arguments of list_support_tickets."""

    status: str = Field(default="open", description="open or closed")


class CloseArgs(Args):
    """Arguments of close_support_ticket."""

    ticket: int = Field(ge=1, description="the ticket's number")


@declare(pack="acme_support", kind="read_only", asks=("which support tickets are open?",))
async def list_support_tickets(args: ListArgs, ctx: ToolContext) -> dict[str, Any]:
    """List Acme's support tickets with a status (open or closed)."""
    async with ctx.database().session() as session:
        rows = await session.scalars(
            select(SupportTicket)
            .where(SupportTicket.status == args.status)
            .order_by(SupportTicket.id)
        )
        found = [{"ticket": t.id, "customer": t.customer, "subject": t.subject} for t in rows]
    return {"status": args.status, "tickets": found}


@declare(pack="acme_support", kind="mutating", roles=["member", "admin"], asks=("close ticket 1",))
async def close_support_ticket(args: CloseArgs, ctx: ToolContext) -> dict[str, Any]:
    """Close one of Acme's support tickets."""

    async def close(session: AsyncSession) -> dict[str, Any]:
        ticket = await session.get(SupportTicket, args.ticket)
        if ticket is None:
            raise ValueError(f"no support ticket {args.ticket}")
        ticket.status, ticket.closed_by = "closed", ctx.user_id
        return {"ticket": ticket.id, "status": "closed"}

    return await run_once(ctx, "close_support_ticket", args.model_dump(mode="json"), close)


TOOLS = [list_support_tickets, close_support_ticket]


async def ticket_sources(message: str, ctx: GatherContext) -> list[Source]:
    """The ticket a message names by number ("ticket 2")."""
    if ctx.db is None or "ticket" not in message.casefold():
        return []
    numbers = [int(word) for word in message.split() if word.isdigit()]
    async with ctx.db.session() as session:
        rows = [await session.get(SupportTicket, number) for number in numbers]
    return [
        {"type": "ticket", "reference": f"ticket {t.id}", "excerpt": f"{t.customer}: {t.subject}"}
        for t in rows
        if t is not None
    ]


async def seed_tickets(db: Database) -> dict[str, int]:
    """Two open tickets."""
    added: Counter[str] = Counter()
    async with db.session() as session:
        for customer, subject in (
            ("Globex", "Invoice shows the wrong VAT"),
            ("Initech", "Cannot log in"),
        ):
            await get_or_add(session, added, SupportTicket, customer=customer, subject=subject)
        await session.commit()
    return dict(added)
