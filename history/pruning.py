"""Context pruning: shrink old tool results in what is sent to the model, never in the state.

Two passes, both only when the estimated request is a large share of the context window:
a soft trim (results over 4,000 characters keep their first and last 1,500) from 30 %, and
a hard clear (the whole result replaced, oldest first) from 50 % until the share drops below
it. System messages, the first user message and everything from the third-last assistant
message on are protected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

CLEARED = "[Old tool result content cleared]"


@dataclass(frozen=True)
class PruningPolicy:
    """The pruning thresholds (defaults from the reference design)."""

    context_window: int
    """Tokens the model accepts in one request."""
    soft_trim_ratio: float = 0.3
    hard_clear_ratio: float = 0.5
    soft_trim_over_chars: int = 4_000
    soft_trim_keep_chars: int = 1_500
    """Characters kept at each end of a soft-trimmed result."""
    min_prunable_tool_chars: int = 50_000
    """Hard clear runs only when the prunable results hold at least this many characters
    (or, for a small window, at least the window's hard-clear share in characters)."""
    keep_last_assistants: int = 3


def prune(
    messages: Sequence[BaseMessage], policy: PruningPolicy, fixed_tokens: int = 0
) -> list[BaseMessage]:
    """Return `messages` with old tool results trimmed or cleared as the window requires.

    Args:
        messages: the history to send (without the system prompt).
        policy: thresholds and the window size.
        fixed_tokens: tokens the request spends outside `messages` (system prompt, tools).
    """
    pruned = list(messages)
    window = policy.context_window

    def ratio() -> float:
        return (fixed_tokens + count_tokens_approximately(pruned)) / window

    if ratio() < policy.soft_trim_ratio:
        return pruned
    prunable = _prunable_indexes(pruned, policy.keep_last_assistants)
    for index in prunable:
        message = pruned[index]
        if len(message.text) > policy.soft_trim_over_chars:
            pruned[index] = _with_content(message, _soft_trim(message.text, policy))
    if ratio() < policy.hard_clear_ratio:
        return pruned
    prunable_chars = sum(len(pruned[i].text) for i in prunable)
    # Characters per token as langchain-core's estimate counts them.
    window_share_chars = int(window * policy.hard_clear_ratio * 4)
    if prunable_chars < min(policy.min_prunable_tool_chars, window_share_chars):
        return pruned
    for index in prunable:
        if pruned[index].text == CLEARED:
            continue
        pruned[index] = _with_content(pruned[index], CLEARED)
        if ratio() < policy.hard_clear_ratio:
            break
    return pruned


def _prunable_indexes(messages: Sequence[BaseMessage], keep_last_assistants: int) -> list[int]:
    """Indexes of tool results outside the protected zone, oldest first."""
    first_user = next((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), None)
    if first_user is None:
        return []
    assistants = [i for i, m in enumerate(messages) if isinstance(m, AIMessage)]
    if len(assistants) < keep_last_assistants:
        return []
    cutoff = assistants[-keep_last_assistants] if keep_last_assistants else len(messages)
    return [i for i in range(first_user + 1, cutoff) if isinstance(messages[i], ToolMessage)]


def _soft_trim(text: str, policy: PruningPolicy) -> str:
    keep = policy.soft_trim_keep_chars
    return (
        f"{text[:keep]}\n...\n{text[-keep:]}\n"
        f"[Tool result trimmed: kept the first and last {keep:,} of {len(text):,} characters]"
    )


def _with_content(message: BaseMessage, content: str) -> BaseMessage:
    return message.model_copy(update={"content": content})
