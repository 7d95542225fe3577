"""The agency pack's client context: assignments, brands, SOPs, tasks and notes in a budget."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from langchain_core.messages.utils import count_tokens_approximately
from pydantic import BaseModel, Field
from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.models import TeamMember
from tools.agency.lookup import NameArg, find_client
from tools.agency.mapping_state import mapping_state
from tools.agency.models import Assignment, Brand, Client, ClientMemoryNote, KbDocument, Task
from tools.agency.search import excerpt
from tools.agency.tasks import task_data, tasks_query
from tools.declaration import Shows, ToolContext, declare

CONTEXT_LIMITS = {"tasks": 10, "sops": 8, "memory_notes": 10}
EXCERPT_CHARS = 160


class ClientContextArgs(BaseModel):
    """Arguments of `get_client_context`."""

    client: NameArg = Field(description="the client's name, e.g. 'Thorinox'")
    max_tokens: int = Field(default=1500, ge=200, le=8000, description="token budget")


async def _context_pack(session: AsyncSession, client: Client) -> dict[str, Any]:
    """Collect what is worth knowing about a client, most important first in each list."""
    people = await session.execute(
        select(TeamMember.name, TeamMember.title, Assignment.assignment_role)
        .join(Assignment, Assignment.team_member_id == TeamMember.id)
        .where(Assignment.client_id == client.id)
        .order_by(Assignment.id)
    )
    brands = await session.scalars(
        select(Brand).where(Brand.client_id == client.id).order_by(Brand.name)
    )
    # The client's own documents come first: they refine the agency-wide SOPs.
    own, agency = KbDocument.client_id == client.id, KbDocument.client_id.is_(None)
    docs = await session.scalars(
        select(KbDocument)
        .where(or_(own, and_(agency, KbDocument.kind == "sop")))
        .order_by(agency, KbDocument.id)
        .limit(CONTEXT_LIMITS["sops"])
    )
    tasks = await session.execute(
        tasks_query()
        .where(Task.client_id == client.id)
        .order_by(Task.created_at.desc(), Task.id.desc())
        .limit(CONTEXT_LIMITS["tasks"])
    )
    notes = await session.scalars(
        select(ClientMemoryNote)
        .where(ClientMemoryNote.client_id == client.id, ClientMemoryNote.archived_at.is_(None))
        .order_by(ClientMemoryNote.confidence.desc(), ClientMemoryNote.created_at.desc())
        .limit(CONTEXT_LIMITS["memory_notes"])
    )
    return {
        "status": "found",
        "client": {"id": client.id, "name": client.name, "notes": client.notes},
        "assignments": [
            {"person": p.name, "title": p.title, "role": p.assignment_role} for p in people
        ],
        "brands": [{"id": b.id, "name": b.name, **mapping_state(b)} for b in brands],
        "sops": [
            {
                "id": d.id,
                "title": d.title,
                "kind": d.kind,
                "excerpt": excerpt(d.body, [], EXCERPT_CHARS),
            }
            for d in docs
        ],
        "tasks": [task_data(task, brand, person) for task, _, brand, person in tasks],
        "memory_notes": [
            {"note": n.note, "confidence": n.confidence, "source": n.source} for n in notes
        ],
    }


def _drop_one(pack: dict[str, Any]) -> str | None:
    """Drop the least important item left and say what it was (None: nothing left)."""
    if pack["tasks"]:
        pack["tasks"].pop()  # the oldest
        return "tasks"
    excerpts = [sop for sop in pack["sops"] if "excerpt" in sop]
    if excerpts:
        del excerpts[-1]["excerpt"]
        return "sop_excerpts"
    for key in ("memory_notes", "sops", "brands", "assignments"):
        if pack[key]:
            pack[key].pop()
            return key
    if pack["client"]["notes"]:
        pack["client"]["notes"] = ""
        return "client_notes"
    return None


def _fit(pack: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """Drop the least important items until the pack's JSON fits `max_tokens`."""
    omitted: Counter[str] = Counter()

    def tokens() -> int:
        # Measured with the budget as the count: the real count has no more digits.
        draft = {**pack, "truncated": bool(omitted), "tokens": max_tokens}
        if omitted:
            draft["omitted"] = dict(omitted)
        return count_tokens_approximately([json.dumps(draft, ensure_ascii=False)])

    while tokens() > max_tokens:
        dropped = _drop_one(pack)
        if dropped is None:
            break  # the bare client alone exceeds the budget
        omitted[dropped] += 1
    used = tokens()
    pack.update(truncated=bool(omitted), tokens=used)
    if omitted:
        pack["omitted"] = dict(omitted)
    return pack


@declare(
    pack="agency",
    kind="read_only",
    asks=(
        "what do we know about Acme?",
        "brief me on Globex before the meeting",
        "client context for Initech",
        "what notes and SOPs apply to Acme?",
        "summarize the Globex account for me",
        "catch me up on Hooli",
        "I'm starting work for Initech, what should I know?",
        "Acme's history and preferences",
        "list the notes on file for Globex",
        "are any notes kept about Hooli?",
        "what's on file for Acme?",
        "anything I should know about Globex's history?",
        "Initech, in a nutshell?",
        "Hooli's pricing: anything we were told?",
        "what did Acme tell us about payment terms?",
        "jog my memory about Globex",
    ),
    shows=Shows(
        fields=(
            "client.name",
            "client.notes",
            "assignments.person+role",
            "brands.name",
            "tasks.title",
            "memory_notes.note",
            "sops.title",
        ),
        lead={"found": "What we know about {client[name]}"},
    ),
)
async def get_client_context(args: ClientContextArgs, ctx: ToolContext) -> dict[str, Any]:
    """Gather one client's context pack within a token budget, before working for them.

    The pack holds the account team, the brands with missing destination fields, relevant
    SOPs (the client's docs first, then agency-wide SOPs; titles and short excerpts), the
    newest tasks and the client's memory notes (highest confidence first). When it exceeds
    `max_tokens`, older tasks go first, then SOP excerpts, then lower-confidence notes.

    Returns:
        {"status": "found", "client": {"id", "name", "notes"}, "assignments": [{"person",
        "title", "role"}], "brands": [{"id", "name", "mapped", "missing_mapping"}], "sops": [{"id",
        "title", "kind", "excerpt"?}], "tasks": [{"id", "title", "status", "assignee",
        "brand", "due_date"}], "memory_notes": [{"note", "confidence", "source"}],
        "truncated", "tokens", "omitted"? (counts dropped per kind)}; or not_found/ambiguous
        with "suggestions"/"candidates".

    Examples:
        {"client": "Thorinox"}, {"client": "distex", "max_tokens": 600}.
    """
    async with ctx.database().session() as session:
        client = await find_client(session, args.client)
        if isinstance(client, dict):
            return client
        return _fit(await _context_pack(session, client), args.max_tokens)


TOOLS = [get_client_context]
