"""gather: collects the sources a turn may rest on, without calling the model.

Sources: what the enabled packs find for the message (the records it mentions, their notes,
documents, the dates it writes out) and the records named by the ask it answers when the
assistant replied with a question, relevant thread history and the context folder's best files.
They become `sources` in state and a context block for the prompt within a token budget.
It runs beside guard, in the turn's first step; act starts when both are done. A retry
after failed verification goes back to act, so nothing here runs again for it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.runtime import Runtime
from sqlalchemy.exc import SQLAlchemyError

from core.db.engine import Database
from core.run_context import RunContext
from core.state import AgentState, GatherUpdate, Source
from core.terms import terms
from grounding import context_block
from grounding.context_folder import ContextFolder
from history.pipeline import limit_turns
from nodes.guard import MAX_MESSAGE_CHARS
from screening import injection
from tools.declaration import GatherContext, SourceFinder
from tools.registry import ToolRegistry

logger = logging.getLogger(__name__)

THREAD_EXCERPTS = 3
FILE_HITS = 3
EXCERPT_CHARS = 300
_WORD = re.compile(r"\w+", re.UNICODE)


class Gather:
    """The gather node: the packs' source finders, the context folder and the thread."""

    def __init__(self, registry: ToolRegistry, db: Database | None = None) -> None:
        self._sources = registry.sources
        self._records = registry.records
        self._db = db
        self._folders: dict[Path, ContextFolder] = {}

    async def __call__(self, state: AgentState, runtime: Runtime[RunContext]) -> GatherUpdate:
        """Collect the sources for the message that opens this turn (the thread's last).

        Gather runs beside guard, in the same step, so it reads the message as sent; one
        guard will withhold is not searched for.
        """
        ctx = runtime.context
        messages = state["messages"]
        start = max(len(messages) - 1, 0)
        sent = messages[start].text if messages else ""
        if injection.blocks(sent, ctx.input_guard):
            return {"sources": [], "context_block": ""}
        query = sent[:MAX_MESSAGE_CHARS]  # what guard lets through of a long message
        sources: list[Source] = []
        found = GatherContext(today=ctx.run_date(), db=self._db)
        put_off = _put_off(messages[:start])[:MAX_MESSAGE_CHARS]
        for find in self._sources:
            sources += await self._packs(find, query, found)
            if put_off:  # an answer goes with the ask it answers: that ask's records count
                named = await self._packs(find, put_off, found)
                sources += [s for s in named if s["type"] in self._records and s not in sources]
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
            {
                "type": "file",
                "label": "context file",
                "cite": True,
                "reference": hit.reference,
                "excerpt": hit.excerpt,
            }
            for hit in folder.search(query, limit=FILE_HITS)
        ]

    async def _packs(self, find: SourceFinder, query: str, found: GatherContext) -> list[Source]:
        try:
            return await find(query, found)
        except SQLAlchemyError:
            # The workspace enriches the prompt; without it the model still has its tools.
            logger.warning("gather: workspace search failed", exc_info=True)
            return []


def _put_off(earlier: Sequence[BaseMessage]) -> str:
    """The ask the assistant's last message answered with a question, "" if it did not."""
    asked = earlier[-1] if earlier else None
    if not isinstance(asked, AIMessage) or asked.tool_calls or not asked.text.endswith("?"):
        return ""
    return next((m.text for m in reversed(earlier) if isinstance(m, HumanMessage)), "")


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
            "label": "earlier in this thread",
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
                "label": "earlier in this thread",
                "reference": f"earlier {who} message",
                "excerpt": text[:EXCERPT_CHARS] + ("…" if len(text) > EXCERPT_CHARS else ""),
            }
        )
    return sources
