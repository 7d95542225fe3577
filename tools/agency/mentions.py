"""The agency pack's sources for gather: what a message points at in the workspace.

Clients, brands, team members and tasks it mentions, those clients' memory notes, and the
knowledge base's best documents for it, found without a model call.
"""

from __future__ import annotations

import re
from collections import Counter

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.base import name_key
from core.db.models import TeamMember
from core.state import Source
from tools import names
from tools.agency.models import Assignment, Brand, Client, ClientMemoryNote, Task
from tools.agency.search import search
from tools.agency.tasks import tasks_query
from tools.declaration import GatherContext

KB_HITS = 3
MEMORY_NOTES = 5
TASK_TITLES = 2000
"""The latest tasks whose titles a message may name whole ("is the Q1 PPC budget review done?")."""
EXCERPT_CHARS = 300
WORD_MIN = 4
"""A brand is named by one word of its name ("the peelers") this long, of no other name."""
_WORD = re.compile(r"\w+", re.UNICODE)


async def workspace_names(ctx: GatherContext) -> dict[str, list[str]]:
    """Every client's and brand's name (a brand two clients share, once), for `Pack.listers`."""
    if ctx.db is None:
        return {}
    async with ctx.db.session() as session:
        listed = {kind: await names.listing(session, model) for kind, model in _LISTED.items()}
    return {kind: list(dict.fromkeys(name for _, name, _ in rows)) for kind, rows in listed.items()}


_LISTED = {"client": Client, "brand": Brand}


async def workspace_sources(query: str, ctx: GatherContext) -> list[Source]:
    """Mentioned clients, brands, people and tasks, those clients' memory notes, then KB hits."""
    db = ctx.db
    if db is None:
        return []
    key = f" {' '.join(_WORD.findall(name_key(query)))} "
    sources: list[Source] = []
    async with db.session() as session:
        # Mentions are found in the cached name lists; only mentioned rows are read.
        client_list = await names.listing(session, Client)
        brand_list = await names.listing(session, Brand)
        client_ids = [i for i, name, _ in client_list if _mentions(key, name)]
        brand_ids = [i for i, name, _ in brand_list if _mentions(key, name)]
        brand_ids += sorted(_by_word(key, brand_list, client_list) - set(brand_ids))
        brands = (
            list((await session.execute(select(Brand).where(Brand.id.in_(brand_ids)))).scalars())
            if brand_ids
            else []
        )
        wanted = set(client_ids) | {brand.client_id for brand in brands}
        rows: list[Client] = (
            list((await session.execute(select(Client).where(Client.id.in_(wanted)))).scalars())
            if wanted
            else []
        )
        clients = {c.id: c for c in rows}
        mentioned: dict[int, str] = {}
        for client_id in client_ids:
            client_row = clients[client_id]
            mentioned[client_row.id] = client_row.name
            about = " ".join(client_row.notes.split())[:EXCERPT_CHARS]
            sources.append(
                {
                    "type": "client",
                    "label": "workspace client",
                    "reference": client_row.name,
                    "excerpt": f"client {client_row.name}" + (f": {about}" if about else ""),
                }
            )
        for brand in sorted(brands, key=lambda b: b.id):
            owner = clients.get(brand.client_id)
            client = owner.name if owner is not None else "?"
            destination = brand.destination_list or brand.destination_space or "no destination"
            sources.append(
                {
                    "type": "brand",
                    "label": "workspace brand",
                    "reference": f"{brand.name} ({client})",
                    "excerpt": f"brand {brand.name} of {client}, maps to {destination}",
                }
            )
            mentioned.setdefault(brand.client_id, client)
        sources += await _people(session, key, query)
        sources += await _tasks(session, key)
        if mentioned:
            notes = await session.execute(
                select(ClientMemoryNote)
                .where(
                    ClientMemoryNote.client_id.in_(mentioned),
                    ClientMemoryNote.archived_at.is_(None),
                )
                .order_by(ClientMemoryNote.created_at.desc(), ClientMemoryNote.id.desc())
                .limit(MEMORY_NOTES)
            )
            for note in notes.scalars():
                sources.append(
                    {
                        "type": "memory",
                        "label": "client memory",
                        "reference": f"{mentioned[note.client_id]} memory note #{note.id}",
                        "excerpt": note.note,
                    }
                )
        scope = next(iter(mentioned)) if len(mentioned) == 1 else None
        for hit in await search(session, db.dialect, query, client_id=scope, limit=KB_HITS):
            sources.append(
                {
                    "type": "kb",
                    "label": "knowledge base",
                    "cite": True,
                    "reference": hit.title,
                    "excerpt": hit.excerpt,
                }
            )
    return sources


async def _people(session: AsyncSession, key: str, query: str) -> list[Source]:
    """The team members the message names, with their title and roles on clients.

    A person is named in full, or by a first name written capitalized (or in a message all in
    lower case) that no one else on the team has ("what's Omar working on?").
    """
    listed = await names.listing(session, TeamMember)
    firsts = Counter(name.split()[0] for _, name, _ in listed if " " in name.strip())
    ids = [
        i
        for i, name, _ in listed
        if _mentions(key, name)
        or (firsts[first := (name.split() or [""])[0]] == 1 and _said(query, first))
    ]
    if not ids:
        return []
    people = await session.execute(select(TeamMember).where(TeamMember.id.in_(ids)))
    roles = await session.execute(
        select(Assignment.team_member_id, Assignment.assignment_role, Client.name)
        .join(Client, Client.id == Assignment.client_id)
        .where(Assignment.team_member_id.in_(ids))
        .order_by(Assignment.id)
    )
    held: dict[int, list[str]] = {}
    for person_id, role, client in roles.all():
        held.setdefault(person_id, []).append(f"{role.replace('_', ' ')} on {client}")
    return [
        {
            "type": "team_member",
            "label": "workspace team member",
            "reference": person.name,
            "excerpt": f"team member {person.name}"
            + (f", {person.title}" if person.title else "")
            + f": {'; '.join(held.get(person.id, [])) or 'no client roles'}",
        }
        for person in sorted(people.scalars(), key=lambda p: p.id)
    ]


async def _tasks(session: AsyncSession, key: str) -> list[Source]:
    """The tasks whose whole title the message says, with their status, owner and due date."""
    latest = select(Task.id, Task.title).order_by(Task.id.desc()).limit(TASK_TITLES)
    ids = [i for i, title in (await session.execute(latest)).all() if _mentions(key, title)]
    if not ids:
        return []
    found = await session.execute(tasks_query().where(Task.id.in_(ids)).order_by(Task.id))
    return [
        {
            "type": "task",
            "label": "workspace task",
            "reference": task.title,
            "excerpt": f"task {task.title} of {client}: {task.status}, "
            f"{f'assigned to {person}' if person else 'unassigned'}, "
            f"{f'due {task.due_date.isoformat()}' if task.due_date else 'no due date'}",
        }
        for task, client, _, person in found.all()
    ]


def _by_word(
    key: str, brands: list[tuple[int, str, str]], clients: list[tuple[int, str, str]]
) -> set[int]:
    """The brands the message names by one word only their name has ("and the peelers?").

    The word has at least `WORD_MIN` letters and is of one brand name alone (however many
    clients carry that name) and of no client's; said in the plural, it is said too.
    """
    taken = Counter(w for name in {n for _, n, _ in brands} for w in _stems(name))
    clients_say = {w for _, name, _ in clients for w in _stems(name)}
    said = {w.removesuffix("s") for w in key.split()}
    return {
        i
        for i, name, _ in brands
        if any(w in said and taken[w] == 1 and w not in clients_say for w in _stems(name))
    }


def _stems(name: str) -> set[str]:
    """A name's words of at least `WORD_MIN` letters, without a plural's "s"."""
    return {w.removesuffix("s") for w in _WORD.findall(name_key(name)) if len(w) >= WORD_MIN}


def _said(query: str, word: str) -> bool:
    """Whether `query` writes `word` as a word of its own, capitalized as it is spelled.

    A message that capitalizes no word after its first but abbreviations ("AM", "PPC") says
    nothing by its case: there "maya" is Maya, as in one written all in lower case.
    """
    cased = any(w[:1].isupper() and not w.isupper() for w in _WORD.findall(query)[1:])
    flags = 0 if cased else re.IGNORECASE
    found = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", query, flags)
    return word[:1].isupper() and found is not None


def _mentions(padded_query_key: str, name: str) -> bool:
    words = _WORD.findall(name_key(name))
    return bool(words) and f" {' '.join(words)} " in padded_query_key
