"""Stage two of a local-model answer: the prompts for a tool's arguments and for a reply.

Both are short on purpose: the 135M model copies a name or a date from a prompt of a few
lines, and loses it in the graph's full system prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from core.models.local_prompt import (
    argument_lines,
    chatml,
    context_lines,
    identity,
    render_messages,
    result_text,
    summary_line,
    today_line,
)
from core.models.local_turn import Turn

HISTORY_MESSAGES = 2
"""Plain messages before the ask shown with a reply (the last exchange, for follow-ups)."""
GROUNDING_VALUES = 3
"""A reply must name half the values a result added, but never more than this many."""
GROUNDING_LEAVES = 12
"""At most this many values of a tool result are shown when the reply is replaced."""
_ARGS_RULE = (
    "Write the call for the person's message: copy names, dates and numbers from it; "
    "leave out optional arguments it does not give."
)
_ARGS_EXAMPLE = (
    {
        "role": "user",
        "content": "Tool: send_email: Send an email.\nArguments:\n- to: who gets it\n"
        "- subject: its subject\n- cc (optional): who gets a copy\n"
        "Message: email Bob Stone the minutes",
    },
    {
        "role": "assistant",
        "content": '{"tool": "send_email", "args": {"to": "Bob Stone", "subject": "minutes"}}',
    },
)
_RESULTS_RULE = "Answer the question from the tool results, in one or two sentences."
_BREVITY = "Keep your answers short."
_WORD = re.compile(r"\w+")


def args_prompt(tool: dict[str, Any], turn: Turn) -> str:
    """The prompt whose continuation is the call `{"tool": ..., "args": {...}}` of `tool`.

    One worked example (of a made-up tool) shows the format; then the tool's one-line
    manual with its arguments, the person's message and, for a chained call, the results.

    Args:
        tool: The chosen OpenAI tool dict.
        turn: The current turn (its ask, and tool results a chained call reads).
    """
    manual = [f"Tool: {tool['function']['name']}: {summary_line(tool)}", "Arguments:"]
    manual += argument_lines(tool)
    manual.append(f"Message: {turn.ask}")
    manual += [f"Tool result ({r.name}): {result_text(r.content)}" for r in turn.results]
    chat = [
        {"role": "system", "content": _ARGS_RULE},
        *_ARGS_EXAMPLE,
        {"role": "user", "content": "\n".join(manual)},
    ]
    return chatml(chat)


def reply_prompt(messages: Sequence[BaseMessage], turn: Turn) -> str:
    """The prompt whose continuation is a short plain-text reply.

    With tool results the system part only asks to answer from them: the persona, the rules
    and the context block make this model copy them instead. Without, it keeps the persona's
    first paragraph, today's date and the context entries.
    """
    earlier = [
        m
        for m in messages[: turn.start]
        if isinstance(m, HumanMessage) or (isinstance(m, AIMessage) and not m.tool_calls)
    ][-HISTORY_MESSAGES:]
    body = render_messages([*earlier, *messages[turn.start :]], json_mode=False)[1:]
    if turn.answered:
        system = f"You are a helpful assistant. {_RESULTS_RULE}"
    else:
        context = context_lines(turn.system)
        parts = [identity(turn.system), _BREVITY, today_line(turn.system)]
        if context:
            parts.append("Context:\n" + "\n".join(context))
        system = "\n".join(part for part in parts if part)
    return chatml([{"role": "system", "content": system}, *body])


def _news(value: str, question: str) -> bool:
    """Whether a result value tells something the question did not."""
    asked = question.casefold()
    if any(c.isdigit() for c in value):
        return value.casefold() not in asked
    return not set(_WORD.findall(asked)) & set(_WORD.findall(value.casefold()))


def grounded(reply: str, turn: Turn) -> tuple[str, bool]:
    """Keep a reply that uses the latest tool result; otherwise show that result instead.

    The 135M model ignores a result about a third of the time and then invents dates and
    names, so a reply that mentions too few of the result's values is replaced by them.
    Only values the result added count: one with a digit that the question does not hold
    whole (a date, an amount), or one sharing no word with the question (repeating
    "Christmas Day" to "When is Christmas?" adds nothing).

    Returns:
        The reply to send, and whether it is the model's own text.
    """
    if not turn.results:
        return reply, True
    latest = turn.results[-1]
    if latest.data() is None:
        return reply, True
    shown = [v if isinstance(v, str) else json.dumps(v) for v in latest.leaves()]
    values = list(dict.fromkeys(v for v in shown if len(v) >= 3 and _news(v, turn.ask)))
    said = reply.casefold()
    # One named value can be a fluke ("the task Garlic Press ... there are no tasks"):
    # half of what the result added, up to three values, must be in the reply.
    needed = min(GROUNDING_VALUES, (len(values) + 1) // 2)
    if reply and sum(value.casefold() in said for value in values) >= needed:
        return reply, True
    lines = result_text(latest.content).strip().splitlines()[:GROUNDING_LEAVES]
    return f"Here is what {latest.name} found:\n" + "\n".join(lines), False
