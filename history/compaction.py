"""Compaction: past its budget, a thread's older history becomes a model-written summary.

Durable memories are flushed first. Two kinds of model call, both documented extra cost:
the memory flush (1 to 5 calls with only the memory tool bound; the model answers NO_REPLY
when there is nothing to keep) and one summary call. The caller removes the summarized
messages from the state and stores the summary, which the history pipeline puts at the top
of every later request. Without a model (`extract`), the summary lists the earlier asks
and answers in their own words and nothing is flushed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.utils import count_tokens_approximately

from prompts import compaction as prompts
from tools.declaration import Tool, ToolArgumentsError, ToolContext

logger = logging.getLogger(__name__)

MAX_MESSAGES = 50
"""More messages than this in the history triggers compaction."""
WINDOW_RATIO = 0.75
"""History estimated above this share of the context window triggers compaction."""
KEEP_LAST = 4
"""Messages kept verbatim after a compaction (more when a turn boundary demands it)."""
FLUSH_MAX_ITERATIONS = 5
FLUSH_TIMEOUT_S = 90.0
SUMMARY_TIMEOUT_S = 120.0
TRANSCRIPT_SHARE = 0.5
"""Share of the context window the transcript of a flush or summary request may use."""
TOOL_RESULT_CHARS = 600
"""A tool result is cut to this many characters in a transcript."""
EXTRACT_EXCHANGES = 8
"""Exchanges a summary written without a model lists at most (the latest)."""
EXTRACT_CHARS = 120
"""An ask or an answer is cut to this many characters in such a summary."""


def needs_compaction(history_tokens: int, message_count: int, context_window: int) -> bool:
    """Whether the history is past its budget: over 50 messages or 75 % of the window."""
    return message_count > MAX_MESSAGES or history_tokens > WINDOW_RATIO * context_window


def split_index(messages: Sequence[BaseMessage], turn_start: int) -> int:
    """Return how many leading messages to summarize (0: nothing can be compacted).

    The cut falls on a user message at or before `turn_start` (the running turn is never
    summarized) and leaves at least the last four messages, so no tool call is ever
    separated from its results.
    """
    limit = min(len(messages) - KEEP_LAST, turn_start)
    cuts = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage) and 0 < i <= limit]
    return cuts[-1] if cuts else 0


def transcript(messages: Sequence[BaseMessage], max_tokens: int) -> str:
    """Render messages as a plain-text transcript, dropping the oldest lines past `max_tokens`."""
    lines: list[str] = []
    for message in messages:
        if isinstance(message, HumanMessage):
            lines.append(f"User: {message.text}")
        elif isinstance(message, AIMessage):
            if message.text:
                lines.append(f"Assistant: {message.text}")
            for call in message.tool_calls:
                args = json.dumps(call["args"], ensure_ascii=False, default=str)
                lines.append(f"Assistant called {call['name']} {args}")
        elif isinstance(message, ToolMessage):
            text = str(message.text)
            if len(text) > TOOL_RESULT_CHARS:
                text = text[:TOOL_RESULT_CHARS] + " …"
            lines.append(f"Tool result ({message.name or 'tool'}): {text}")
    kept: list[str] = []
    budget_chars = max_tokens * 4  # langchain-core's estimate: about 4 characters a token
    used = 0
    for line in reversed(lines):
        used += len(line) + 1
        if used > budget_chars:
            break
        kept.append(line)
    return "\n".join(reversed(kept))


def extract(previous: str, messages: Sequence[BaseMessage]) -> str:
    """A summary written without a model: each exchange's ask, tools and answer, cut short.

    The previous summary's exchanges come first; the latest `EXTRACT_EXCHANGES` are kept.
    Nothing is invented, and nothing is condensed either: a model too small to summarize
    (the embedded one) is better served by the asks and answers in their own words.
    """
    lines = [line for line in previous.splitlines() if line.startswith("- ")]
    if previous and not lines:  # a model wrote it (the compaction model was changed)
        lines = [f"- {_cut(previous)}"]
    ask: str | None = None
    answer = ""
    tools: list[str] = []
    for message in [*messages, HumanMessage("")]:
        if isinstance(message, HumanMessage):
            if ask is not None:
                used = f" (looked up: {', '.join(dict.fromkeys(tools))})" if tools else ""
                lines.append(f"- Asked: {_cut(ask)}{used} Answered: {_cut(answer) or '-'}")
            ask, answer, tools = str(message.text), "", []
        elif isinstance(message, AIMessage):
            tools += [call["name"] for call in message.tool_calls]
            answer = str(message.text) or answer
    listed = lines[-EXTRACT_EXCHANGES:]
    return "Earlier in this thread:\n" + "\n".join(listed) if listed else ""


def _cut(text: str) -> str:
    """`text` on one line, at most `EXTRACT_CHARS` characters."""
    line = " ".join(text.split())
    return line if len(line) <= EXTRACT_CHARS else line[: EXTRACT_CHARS - 1] + "…"


@dataclass
class FlushOutcome:
    """What the memory flush did."""

    model_calls: int = 0
    saved: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Compaction:
    """A finished compaction: what to drop, the new summary, and what the flush kept."""

    cut: int
    summary: str
    flush: FlushOutcome


async def flush_memory(
    model: BaseChatModel,
    tool: Tool,
    text: str,
    tool_ctx: ToolContext,
    key_prefix: str,
    deadline: float,
) -> FlushOutcome:
    """Give the model one chance to store durable client notes before history is dropped.

    The model sees the transcript about to be summarized and only `tool` (the memory tool);
    each call it makes runs under an idempotency key from `key_prefix` and the call id, so a
    repeated flush never stores a note twice. At most five rounds.
    """
    outcome = FlushOutcome()
    bound = model.bind_tools([tool.openai_schema()])
    conversation: list[BaseMessage] = [
        SystemMessage(prompts.flush_system()),
        HumanMessage(prompts.flush_request(text)),
    ]
    for _ in range(FLUSH_MAX_ITERATIONS):
        timeout = min(FLUSH_TIMEOUT_S, deadline - time.time())
        if timeout <= 0:
            break
        response = await asyncio.wait_for(bound.ainvoke(conversation), timeout=timeout)
        outcome.model_calls += 1
        if not isinstance(response, AIMessage) or not response.tool_calls:
            break
        conversation.append(response)
        for call in response.tool_calls:
            call_id = call["id"] or ""
            result = await _run_flush_call(
                tool, call["name"], call["args"], tool_ctx, key_prefix, call_id
            )
            if "error" in result:
                outcome.errors.append(str(result["error"]))
            elif result.get("status") == "saved":
                outcome.saved.append(result["note"])
            conversation.append(
                ToolMessage(json.dumps(result, default=str), tool_call_id=call_id, name=tool.name)
            )
    return outcome


async def _run_flush_call(
    tool: Tool, name: str, args: Any, tool_ctx: ToolContext, key_prefix: str, call_id: str
) -> dict[str, Any]:
    if name != tool.name:
        return {"error": f"only {tool.name} is available while storing memories"}
    try:
        validated = tool.validate(args)
    except ToolArgumentsError as exc:
        return {"error": f"invalid arguments for {tool.name}: {exc}"}
    ctx = replace(tool_ctx, idempotency_key=f"{key_prefix}:{call_id}")
    try:
        result = await tool.run(validated, ctx)
    except Exception as exc:
        # The flush is best effort: a note that cannot be stored must not stop compaction,
        # and the model is told, as with any failed tool call.
        logger.warning("memory flush: %s failed", tool.name, exc_info=True)
        return {"error": f"{tool.name} failed: {type(exc).__name__}: {exc}"}
    return result if isinstance(result, dict) else {"result": result}


async def summarize(model: BaseChatModel, previous: str, text: str, deadline: float) -> str:
    """Ask the model for a summary of the transcript that carries the previous summary forward."""
    timeout = min(SUMMARY_TIMEOUT_S, deadline - time.time())
    if timeout <= 0:
        raise TimeoutError("no time left in the turn to summarize the history")
    request = [
        SystemMessage(prompts.summary_system()),
        HumanMessage(prompts.summary_request(previous, text)),
    ]
    response = await asyncio.wait_for(model.ainvoke(request), timeout=timeout)
    return response.text.strip()


async def compact(
    messages: Sequence[BaseMessage],
    *,
    turn_start: int,
    previous_summary: str,
    model: BaseChatModel | None,
    memory_tool: Tool | None,
    tool_ctx: ToolContext,
    key_prefix: str,
    context_window: int,
    deadline: float,
) -> Compaction | None:
    """Flush memories (when `memory_tool` is given), then summarize the leading messages.

    With no `model` the summary is `extract`ed and nothing is flushed. Returns None when
    nothing can be compacted or the model gave an empty summary.
    """
    cut = split_index(messages, turn_start)
    if cut == 0:
        return None
    if model is None:
        logger.info("compaction: %d messages listed without a model", cut)
        return Compaction(cut, extract(previous_summary, messages[:cut]), FlushOutcome())
    text = transcript(messages[:cut], int(context_window * TRANSCRIPT_SHARE))
    flush = FlushOutcome()
    if memory_tool is not None:
        flush = await flush_memory(model, memory_tool, text, tool_ctx, key_prefix, deadline)
    summary = await summarize(model, previous_summary, text, deadline)
    if not summary:
        return None
    logger.info(
        "compaction: %d messages summarized, %d memory note(s) saved, %d flush call(s)",
        cut,
        len(flush.saved),
        flush.model_calls,
    )
    return Compaction(cut=cut, summary=summary, flush=flush)


def estimated_tokens(messages: Sequence[BaseMessage]) -> int:
    """Estimate the tokens of messages with langchain-core's approximate counter."""
    return count_tokens_approximately(messages)
