"""The agency pack's context reads: a client's context pack, KB search, tasks, mapping audit."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from datetime import date
from typing import Any, Literal

from langchain_core.messages.utils import count_tokens_approximately
from pydantic import BaseModel, Field
from sqlalchemy import Select, and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Assignment, Brand, Client, ClientMemoryNote, KbDocument, Task, TeamMember
from app.db.search import excerpt, search
from tools.agency.lookup import (
    NameArg,
    find_client,
    is_mapped,
    mapping_state,
    missing_fields,
    unresolved,
)
from tools.agency.names import resolve
from tools.declaration import ToolContext, declare

CONTEXT_LIMITS = {"tasks": 10, "sops": 8, "memory_notes": 10}
EXCERPT_CHARS = 160


class ClientContextArgs(BaseModel):
    """Arguments of `get_client_context`."""

    client: NameArg = Field(description="the client's name, e.g. 'Thorinox'")
    max_tokens: int = Field(default=1500, ge=200, le=8000, description="token budget")


class SearchKbArgs(BaseModel):
    """Arguments of `search_kb`."""

    query: NameArg = Field(description="what to look for, e.g. 'coupon code'")
    client: NameArg | None = Field(default=None, description="also search this client's docs")
    kind: Literal["sop", "doc", "task_template"] | None = None
    limit: int = Field(default=5, ge=1, le=20)


class ListTasksArgs(BaseModel):
    """Arguments of `list_tasks`."""

    client: NameArg | None = None
    status: Literal["open", "in_progress", "blocked", "done"] | None = None
    assignee: NameArg | None = Field(default=None, description="a team member's name")
    brand: NameArg | None = None
    due_before: date | None = Field(default=None, description="YYYY-MM-DD, exclusive")
    limit: int = Field(default=20, ge=1, le=100)


class AuditArgs(BaseModel):
    """Arguments of `audit_brand_mappings`."""

    client: NameArg | None = Field(default=None, description="only this client's brands")


def _tasks_query() -> Select[Task, str, str | None, str | None]:
    """Select tasks with their client's, brand's and assignee's names."""
    return (
        select(Task, Client.name, Brand.name, TeamMember.name)
        .join(Client, Task.client_id == Client.id)
        .outerjoin(Brand, Task.brand_id == Brand.id)
        .outerjoin(TeamMember, Task.assignee_id == TeamMember.id)
    )


def _task_data(task: Task, brand: str | None, assignee: str | None) -> dict[str, Any]:
    due = task.due_date.isoformat() if task.due_date else None
    return {
        "id": task.id,
        "title": task.title,
        "status": task.status,
        "brand": brand,
        "assignee": assignee,
        "due_date": due,
    }


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
        _tasks_query()
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
        "tasks": [_task_data(task, brand, person) for task, _, brand, person in tasks],
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


@declare(pack="agency", kind="read_only")
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


@declare(pack="agency", kind="read_only")
async def search_kb(args: SearchKbArgs, ctx: ToolContext) -> dict[str, Any]:
    """Search the knowledge base (SOPs, docs, task templates), best match first.

    With `client`, searches that client's documents plus agency-wide ones; without it,
    every document. Matching is by words, so "coupon code" finds "Coupon code setup SOP".

    Returns:
        {"query", "results": [{"id", "title", "kind", "client_id", "client" (None for
        agency-wide docs), "score", "excerpt"}]}; or not_found/ambiguous for an unknown
        `client`. "results" is empty when nothing matches.

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
        owner_ids = {h.client_id for h in hits if h.client_id is not None}
        names = await session.execute(
            select(Client.id, Client.name).where(Client.id.in_(owner_ids))
        )
        owners: dict[int | None, str] = {row.id: row.name for row in names}
    # Hit fields plus the owning client's name (None for agency-wide documents).
    results = [{**asdict(h), "client": owners.get(h.client_id)} for h in hits]
    return {"query": args.query[:200], "results": results}


async def _task_filters(session: AsyncSession, args: ListTasksArgs) -> list[Any] | dict[str, Any]:
    """Turn the named filters into SQL conditions, or return the name that needs clarifying."""
    conditions: list[Any] = []
    brand_scope = None
    if args.client is not None:
        client = await find_client(session, args.client)
        if isinstance(client, dict):
            return client
        conditions.append(Task.client_id == client.id)
        brand_scope = Brand.client_id == client.id
    if args.assignee is not None:
        person = await resolve(session, TeamMember, args.assignee)
        if person.match is None:
            return unresolved(person, "assignee")
        conditions.append(Task.assignee_id == person.match.id)
    if args.brand is not None:
        brand = await resolve(session, Brand, args.brand, where=brand_scope)
        if brand.status == "not_found":
            return unresolved(brand, "brand")
        # A brand name several clients share lists the tasks of each (rows name the client).
        ids = [brand.match.id] if brand.match else [c.id for c in brand.candidates]
        conditions.append(Task.brand_id.in_(ids))
    if args.status is not None:
        conditions.append(Task.status == args.status)
    if args.due_before is not None:
        conditions.append(Task.due_date < args.due_before)
    return conditions


@declare(pack="agency", kind="read_only")
async def list_tasks(args: ListTasksArgs, ctx: ToolContext) -> dict[str, Any]:
    """List tasks, filtered by client, status, assignee, brand and due date.

    Names are matched tolerantly. `due_before` keeps tasks due strictly before that date
    (tasks without a due date are then left out). Ordered by due date (undated last),
    then id.

    Returns:
        {"count", "more" (true when `limit` cut the list), "tasks": [{"id", "title",
        "status", "client", "brand", "assignee", "due_date", "product_ids"}]}; or
        not_found/ambiguous naming the "field" to clarify.

    Examples:
        {"client": "Thorinox", "status": "open"}, {"assignee": "Omar"},
        {"brand": "Garlic Press", "client": "Thorinox"}, {"due_before": "2026-12-10"}.
    """
    async with ctx.database().session() as session:
        conditions = await _task_filters(session, args)
        if isinstance(conditions, dict):
            return conditions
        query = _tasks_query().where(*conditions).limit(args.limit + 1)
        # Undated tasks last; `IS NULL` sorts the same way on SQLite and PostgreSQL.
        found = (
            await session.execute(query.order_by(Task.due_date.is_(None), Task.due_date, Task.id))
        ).all()
    tasks = [
        {**_task_data(task, brand, person), "client": client, "product_ids": task.product_ids}
        for task, client, brand, person in found[: args.limit]
    ]
    return {"count": len(tasks), "more": len(found) > args.limit, "tasks": tasks}


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


@declare(pack="agency", kind="read_only")
async def audit_brand_mappings(args: AuditArgs, ctx: ToolContext) -> dict[str, Any]:
    """Find brands whose destination mapping is incomplete, with how to fix each.

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


TOOLS = [get_client_context, search_kb, list_tasks, audit_brand_mappings]
