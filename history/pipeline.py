"""The history pipeline run before every model call: limit turns → prune → repair pairing.

It shapes the request only; the checkpointed history keeps every message. A decision typed
in the thread ("yes, create it") is the person's, kept in the transcript but not sent: the
model learns it from the change's result, right after its call. A last step
(langchain-core's `trim_messages`) drops the oldest turns if the request would still not
fit the window, and a saved compaction summary goes at the top.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)
from langchain_core.messages.utils import count_tokens_approximately

from core.messages import calls_of
from history.pruning import PruningPolicy, prune

MISSING_RESULT = "[Tool result missing -- session was compacted]"
DECISION_REPLY = "decision_reply"
"""`additional_kwargs` key of a person's message that decided on a proposed change."""
SUMMARY_HEADER = "[Previous conversation summary]"
SUMMARY_ACK = "I understand the context from the summary; let's continue."


@dataclass(frozen=True)
class HistoryPolicy:
    """How much history a request carries."""

    max_turns: int
    """User turns kept (each with its assistant and tool messages)."""
    context_window: int
    """Tokens the model accepts in one request."""


def is_decision(message: BaseMessage) -> bool:
    """Whether the message is a person's decision on a proposed change (not an ask)."""
    return isinstance(message, HumanMessage) and bool(message.additional_kwargs.get(DECISION_REPLY))


def call_ids(message: AIMessage) -> list[str]:
    """Ids of every call of an AI message, valid or not (each gets one ToolMessage)."""
    return [call.id for call in calls_of(message)]


def limit_turns(messages: Sequence[BaseMessage], max_turns: int) -> list[BaseMessage]:
    """Keep the last `max_turns` user turns and everything after the first of them."""
    humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    if len(humans) <= max_turns:
        return list(messages)
    return list(messages[humans[-max_turns] :])


def repair_pairing(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Make tool calls and results pair up: each call followed by exactly its ToolMessages.

    Orphan or duplicate ToolMessages are dropped; a call without a result gets a placeholder.
    """
    repaired: list[BaseMessage] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if isinstance(message, ToolMessage):
            continue  # not right after its call: an orphan
        repaired.append(message)
        if not isinstance(message, AIMessage) or not call_ids(message):
            continue
        results: dict[str, ToolMessage] = {}
        while index < len(messages) and isinstance(messages[index], ToolMessage):
            result = messages[index]
            assert isinstance(result, ToolMessage)
            results.setdefault(result.tool_call_id, result)
            index += 1
        for call_id in call_ids(message):
            kept = results.get(call_id)
            repaired.append(
                kept if kept is not None else ToolMessage(MISSING_RESULT, tool_call_id=call_id)
            )
    return repaired


def pairing_problems(messages: Sequence[BaseMessage]) -> list[str]:
    """Describe every break of tool-call/tool-result pairing (empty for valid history)."""
    problems: list[str] = []
    pending: list[str] = []
    for position, message in enumerate(messages):
        if isinstance(message, ToolMessage):
            if message.tool_call_id in pending:
                pending.remove(message.tool_call_id)
            else:
                problems.append(f"#{position}: orphan result for {message.tool_call_id}")
            continue
        if pending:
            problems.append(f"#{position}: calls without results: {', '.join(pending)}")
            pending = []
        if isinstance(message, AIMessage):
            pending = call_ids(message)
    if pending:
        problems.append(f"end: calls without results: {', '.join(pending)}")
    return problems


def summary_messages(summary: str) -> list[BaseMessage]:
    """The two messages that carry a compaction summary at the top of a request."""
    if not summary:
        return []
    return [HumanMessage(f"{SUMMARY_HEADER}\n{summary}"), AIMessage(SUMMARY_ACK)]


def prepare(
    system: SystemMessage,
    messages: Sequence[BaseMessage],
    *,
    summary: str,
    policy: HistoryPolicy,
    tools: Sequence[dict[str, object]] = (),
) -> list[BaseMessage]:
    """Return the request: system prompt, summary, and the history shaped to fit the window."""
    fixed = count_tokens_approximately([system], tools=list(tools) or None)
    head = summary_messages(summary)
    fixed += count_tokens_approximately(head) if head else 0
    history = limit_turns([m for m in messages if not is_decision(m)], policy.max_turns)
    history = prune(history, PruningPolicy(context_window=policy.context_window), fixed)
    history = repair_pairing(history)
    # Tool schemas can outweigh a small window (a local model renders them compactly
    # itself), so history always keeps a floor of a quarter of the window.
    budget = max(policy.context_window - fixed, policy.context_window // 4)
    if count_tokens_approximately(history) > budget:
        trimmed = trim_messages(
            history,
            max_tokens=budget,
            token_counter=count_tokens_approximately,
            strategy="last",
            start_on="human",
        )
        # A single turn bigger than the budget is still sent: the question must reach the model.
        history = repair_pairing(trimmed) if trimmed else limit_turns(history, 1)
    return [system, *head, *history]
