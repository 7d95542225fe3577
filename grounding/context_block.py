"""The context block: gathered sources rendered for the system prompt within a token budget."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import HumanMessage
from langchain_core.messages.utils import count_tokens_approximately

from core.state import Source
from prompts import gathered


def fit(sources: Sequence[Source], budget_tokens: int) -> tuple[str, list[Source]]:
    """Render sources in order until the budget is spent; return the block and those kept.

    A source that does not fit whole is left out (not cut), so what the model sees and what
    the sources list says were used always agree.
    """
    kept: list[Source] = []
    lines: list[str] = []
    for source in sources:
        candidate = gathered.render_block([*lines, gathered.render_source(source)])
        if count_tokens_approximately([HumanMessage(candidate)]) > budget_tokens:
            continue
        lines.append(gathered.render_source(source))
        kept.append(source)
    return (gathered.render_block(lines) if lines else ""), kept
