"""gather: collects the sources a turn may rest on, without calling the model.

Sources: relevant thread history, the context folder's best files, and — with the workspace
database — brand/client mentions resolved, those clients' memory notes and a KB/SOP search.
They become `sources` in state and a context block for the prompt within a token budget.
A retry after failed verification goes back to act, so nothing here runs again for it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.runtime import Runtime
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from app.context import context_block
from app.context.context_folder import ContextFolder
from app.context.history import limit_turns
from app.context.turn import turn_start
from app.db.engine import Database
from app.db.models import Brand, Client, ClientMemoryNote, name_key
from app.db.search import search, terms
from graph.context import Context
from graph.state import AgentState, GatherUpdate, Source
from tools.agency import names

logger = logging.getLogger(__name__)

THREAD_EXCERPTS = 3
FILE_HITS = 3
KB_HITS = 3
MEMORY_NOTES = 5
EXCERPT_CHARS = 300
_WORD = re.compile(r"\w+", re.UNICODE)


class Gather:
    """The gather node; with a workspace database it also searches the workspace."""

    def __init__(self, db: Database | None = None) -> None:
        self._db = db
        self._folders: dict[Path, ContextFolder] = {}

    async def __call__(self, state: AgentState, runtime: Runtime[Context]) -> GatherUpdate:
        """Collect the sources for the message that opened this turn."""
        ctx = runtime.context
        messages = state["messages"]
        start = turn_start(messages, state.get("turn_start_id", ""))
        query = messages[start].text if messages else ""
        sources: list[Source] = []
        if self._db is not None:
            sources += await self._workspace(self._db, query)
        sources += self._files(ctx.context_dir, query)
        sources += _thread(messages[:start], messages[start:], query, ctx.history_turns)
        block, kept = context_block.fit(sources, ctx.context_block_tokens)
        logger.info(
            "gather: %d source(s) found, %d in the context block (%s)",
            len(sources),
            len(kept),
            ", ".join(s["type"] for s in kept) or "none",
        )
        return {"sources": kept, "context_block": block}

    def _files(self, root: Path | None, query: str) -> list[Source]:
        if root is None:
            return []
        folder = self._folders.setdefault(root, ContextFolder(root))
        return [
            {"type": "file", "reference": hit.reference, "excerpt": hit.excerpt}
            for hit in folder.search(query, limit=FILE_HITS)
        ]

    async def _workspace(self, db: Database, query: str) -> list[Source]:
        try:
            return await _workspace_sources(db, query)
        except SQLAlchemyError:
            # The workspace enriches the prompt; without it the model still has its tools.
            logger.warning("gather: workspace search failed", exc_info=True)
            return []


async def _workspace_sources(db: Database, query: str) -> list[Source]:
    """Mentioned clients and brands, those clients' memory notes, then KB hits."""
    key = f" {' '.join(_WORD.findall(name_key(query)))} "
    sources: list[Source] = []
    async with db.session() as session:
        # Mentions are found in the cached name lists; only mentioned rows are read.
        client_ids = [
            i for i, name, _ in await names.listing(session, Client) if _mentions(key, name)
        ]
        brand_ids = [
            i for i, name, _ in await names.listing(session, Brand) if _mentions(key, name)
        ]
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
                    "reference": f"{brand.name} ({client})",
                    "excerpt": f"brand {brand.name} of {client}, maps to {destination}",
                }
            )
            mentioned.setdefault(brand.client_id, client)
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
                        "reference": f"{mentioned[note.client_id]} memory note #{note.id}",
                        "excerpt": note.note,
                    }
                )
        scope = next(iter(mentioned)) if len(mentioned) == 1 else None
        for hit in await search(session, db.dialect, query, client_id=scope, limit=KB_HITS):
            sources.append({"type": "kb", "reference": hit.title, "excerpt": hit.excerpt})
    return sources


def _mentions(padded_query_key: str, name: str) -> bool:
    words = _WORD.findall(name_key(name))
    return bool(words) and f" {' '.join(words)} " in padded_query_key


def _thread(
    earlier: Sequence[BaseMessage], current: Sequence[BaseMessage], query: str, turns: int
) -> list[Source]:
    """Earlier messages on this topic; those the request no longer carries are excerpted."""
    said = [m for m in earlier if isinstance(m, HumanMessage | AIMessage) and m.text]
    if not said:
        return []
    words = set(terms(query))
    scored = [(len(words & set(terms(m.text))), i, m) for i, m in enumerate(said)]
    relevant = [(score, i, m) for score, i, m in scored if score > 0]
    carried = {id(m) for m in limit_turns([*earlier, *current], turns)}
    sources: list[Source] = [
        {
            "type": "thread",
            "reference": "this thread",
            "excerpt": f"{len(said)} earlier messages, {len(relevant)} on this topic",
        }
    ]
    dropped = [item for item in relevant if id(item[2]) not in carried]
    for _, _, message in sorted(dropped, key=lambda item: (-item[0], -item[1]))[:THREAD_EXCERPTS]:
        who = "user" if isinstance(message, HumanMessage) else "assistant"
        text = " ".join(message.text.split())
        sources.append(
            {
                "type": "thread",
                "reference": f"earlier {who} message",
                "excerpt": text[:EXCERPT_CHARS] + ("…" if len(text) > EXCERPT_CHARS else ""),
            }
        )
    return sources


gather = Gather()
"""The node as the graph builder adds it when no workspace database is wired in."""
