"""gather: collects the sources a turn may rest on, without calling the model."""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.runtime import Runtime

from graph.context import Context
from graph.state import AgentState, GatherUpdate, Source

_WORD = re.compile(r"[\w']{4,}")


async def gather(state: AgentState, runtime: Runtime[Context]) -> GatherUpdate:
    """Find the earlier thread messages relevant to this message and record them as a source."""
    messages = state["messages"]
    start = _turn_start_index(messages, state.get("turn_start_id", ""))
    current = messages[start].text if start < len(messages) else ""
    earlier = [m for m in messages[:start] if isinstance(m, HumanMessage | AIMessage) and m.text]
    relevant = [m for m in earlier if _overlaps(current, m.text)]
    sources: list[Source] = []
    if earlier:
        sources.append(
            {
                "type": "thread",
                "reference": "this thread",
                "excerpt": f"{len(earlier)} earlier messages, {len(relevant)} on this topic",
            }
        )
    return {"sources": sources, "context_block": ""}


def _turn_start_index(messages: Sequence[BaseMessage], turn_start_id: str) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].id == turn_start_id:
            return index
    return len(messages) - 1


def _overlaps(query: str, text: str) -> bool:
    words = {w.lower() for w in _WORD.findall(query)}
    return any(w.lower() in words for w in _WORD.findall(text))
