"""Stage two of a local-model answer: the prompts for a tool's arguments and for a reply.

Both are short on purpose: the 135M model copies a name or a date from a prompt of a few
lines, and loses it in the graph's full system prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import date
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
from core.models.local_turn import ToolResult, Turn

HISTORY_MESSAGES = 2
"""Plain messages before the ask shown with a reply (the last exchange, for follow-ups)."""
GROUNDING_VALUES = 3
"""A reply must name half the values a result added, but never more than this many."""
GROUNDING_LEAVES = 12
"""At most this many lines of a tool result are shown when the reply is replaced."""
NESTED_ITEMS = 4
"""Items of a list inside a record shown on the record's line."""
_ARGS_RULE = (
    "Write the call for the person's message: copy names, dates and numbers from it; "
    "leave out optional arguments it does not give."
)
_ARGS_EXAMPLE = (
    {
        "role": "user",
        "content": "Tool: add_todo: Add a to-do to a team's list.\nArguments:\n"
        "- team: team name, e.g. Sales\n- title: the work to do, e.g. Call the printer\n"
        "- owner (optional): who does it\n"
        "Message: add a to-do for Sales to book the venue for the spring party",
    },
    {
        "role": "assistant",
        "content": '{"tool": "add_todo", "args": {"team": "Sales", '
        '"title": "book the venue for the spring party"}}',
    },
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
_REPLY_EXAMPLES = (
    {"role": "user", "content": "thanks a lot!"},
    {"role": "assistant", "content": "You're welcome! Anything else I can look up?"},
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "Hi! What can I look up for you?"},
    {"role": "user", "content": "ok, bye"},
    {"role": "assistant", "content": "Bye! Ask me any time."},
)
"""Exchanges shown before the conversation when no tool answered: without them the model
echoes "thanks!" back, and says "I'm sorry for your loss" to "bye!"."""
_RESULTS_RULE = "Answer the question from the tool results, in one or two sentences."
_BREVITY = "Keep your answers short."
_WORD = re.compile(r"\w+")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_ECHO = re.compile(
    r"\btool results?\b|^here is what \w+ (?:found|did)|\b\w+ (?:found|did):\s*$",
    re.IGNORECASE | re.MULTILINE,
)
"""A result's rendering copied, from the prompt or an earlier answer ("… list_tasks found:"
ending a line), or talked about ("The tool result is resolved to: ..."): the model's values
in it are not safe."""
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*•]|\d+[.)])(?:[ \t]+\d+[.)])?[ \t]+(.+?)[ \t]*$", re.M)
"""A line of a list ("- 1. Distex", "2) Thorinox", "• Queen"): its text."""
_FIGURE = re.compile(r"\d{4}-\d{2}-\d{2}|\d+\.\d+|\d{3,}")
"""A date, or an amount with decimals or three or more digits."""
UNLOOKED = (
    "I haven't looked that up, so I can't answer it yet. Could you say what you'd like me to check?"
)
"""Said in place of a reply that dresses up as a lookup nothing in this turn made."""
WELCOME = "You're welcome! Anything else I can look up?"
"""Said to thanks in place of a reply that copied an earlier answer's lookup."""
GREETING = "Hi! What can I look up for you?"
"""Said in place of a reply that thanks or consoles a greeting ("hi" → "You're welcome!")."""
WELL = "I'm doing well, thanks! What can I look up for you?"
"""Said to "how are you?": the model tells of a day it did not have ("Just checking in to
your email.")."""
OFFER = "I look things up and get work done with my tools: ask me about something specific."
"""Said in place of such a reply to a question ("What can you do?" → "I'm sorry for your
loss.")."""
_ABILITIES_ASK = re.compile(
    r"^\W*(?:help|what (?:else )?(?:can|could) (?:you do|i ask(?: you)?(?: for)?)"
    r"|how (?:can|could) you help(?: me)?|what do you do|what are you (?:able to do|for))\W*$",
    re.IGNORECASE,
)
"""A message that asks only what the assistant can do ("what can you do?", "help")."""
_HOW_ARE_YOU = re.compile(
    r"^\W*(?:(?:hi|hello|hey)\W+)?(?:how are you(?: doing)?(?: today)?|how'?s it going)\W*$",
    re.IGNORECASE,
)
_WELCOME = re.compile(r"\byou'?re welcome\b", re.IGNORECASE)
_CONDOLENCE = re.compile(r"\bsorry for (?:your|the) loss\b", re.IGNORECASE)
_GREETS = re.compile(
    r"^\W*(?:hi|hello|hey|heya|howdy|yo|good (?:morning|afternoon|evening|day))\b", re.IGNORECASE
)
_THANKS = re.compile(r"\b(?:thanks|thank you|thx|ty|cheers|much appreciated)\b", re.IGNORECASE)
_LOSS = re.compile(r"\b(?:loss|lost|died|passed away|funeral)\b", re.IGNORECASE)
_NOT_RUN = "Not executed:"
"""How a call the person rejected, or never approved, is reported to the model."""
_FIRST_SENTENCE = re.compile(r".+?(?:\.(?=\s+[A-Z])|$)", re.DOTALL)
_FAILURE_PREFIX = re.compile(r"^error: \w+ failed: (?:\w+(?:Error|Exception): )?")


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
    first paragraph, today's date and the context entries, and shows `_REPLY_EXAMPLES`.
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
        body = [*_REPLY_EXAMPLES, *body]
    return chatml([{"role": "system", "content": system}, *body])


def asking_for(dates: Sequence[str]) -> str:
    """The question a reply asks when the message names no date a tool needs.

    `("check_in", "check_out")` → "Which dates do you mean? I need the check in and check
    out dates."
    """
    words = [name.replace("_", " ").removesuffix(" date") for name in dates]
    listed = " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)
    plural = "s" if len(words) > 1 else ""
    return f"Which date{plural} do you mean? I need the {listed} date{plural}."


def _news(value: str, question: str) -> bool:
    """Whether a result value tells something the question did not."""
    asked = question.casefold()
    if any(c.isdigit() for c in value):
        return value.casefold() not in asked
    return not set(_WORD.findall(asked)) & set(_WORD.findall(value.casefold()))


def grounded(
    reply: str, turn: Turn, prompt: str, changing: frozenset[str] = frozenset()
) -> tuple[str, bool]:
    """Keep a reply that uses the latest tool result; otherwise show that result instead.

    The 135M model ignores a result about a third of the time and then invents dates and
    names, so a reply that mentions too few of the result's values is replaced by them; so
    is one that copies the prompt's rendering of the result, or holds a date or an amount
    no message or result holds.
    Only values the result added count: one with a digit that the question does not hold
    whole (a date, an amount), or one sharing no word with the question (repeating
    "Christmas Day" to "When is Christmas?" adds nothing).

    With no result this turn, "how are you?" gets `WELL` whatever the reply. A reply that
    copies an earlier answer's rendering ("Here is what get_availability found: ...") or
    holds a date or an amount `prompt` (what the model read) does not, reads as a lookup
    that was never made: `UNLOOKED` is said instead, or to thanks or a greeting the stock
    answer (`WELCOME`, `GREETING`); so is a stock phrase the message gives no cause for
    (`_misplaced`), or `OFFER` to a question. Otherwise its first line is kept.

    `changing`: the offered tools that change data (a shown result of one is a change made).

    Returns:
        The reply to send, and whether it is the model's own text.
    """
    if not turn.results:
        if _HOW_ARE_YOU.match(turn.ask.strip()):
            return WELL, False
        # Past its first line ("You're welcome!") the model rambles on.
        first = reply.split("\n", 1)[0].strip()
        if _ECHO.search(reply) or _invented(reply, prompt):
            return _stock_reply(turn.ask) or UNLOOKED, False
        if _misplaced(first, turn.ask):
            return _stock_reply(turn.ask) or OFFER, False
        return first, True
    latest = turn.results[-1]
    if latest.failed:
        # Asked to explain a refusal or an error, this model invents; the tool's own
        # words say what did not happen and why.
        return shown(latest), False
    if latest.data() is None:
        return reply, True
    data = latest.data()
    # A result's status ("found") is the tool's bookkeeping, not a fact a reply tells.
    status = data.get("status") if isinstance(data, dict) else None
    shown_values = [v if isinstance(v, str) else json.dumps(v) for v in latest.leaves()]
    values = list(
        dict.fromkeys(v for v in shown_values if len(v) >= 3 and v != status and _news(v, turn.ask))
    )
    said = reply.casefold()
    sources = " ".join([turn.ask, *(r.content for r in turn.results)])
    # One named value can be a fluke ("the task Garlic Press ... there are no tasks"):
    # half of what the result added, up to three values, must be in the reply.
    needed = min(GROUNDING_VALUES, (len(values) + 1) // 2)
    if (
        reply
        and sum(value.casefold() in said for value in values) >= needed
        and not _ECHO.search(reply)
        and not _invented(reply, sources)
        and not _unfounded_items(reply, sources)
    ):
        return reply, True
    return shown(latest, changed=latest.name in changing), False


def asks_abilities(ask: str) -> bool:
    """Whether the message asks only what the assistant can do."""
    return _ABILITIES_ASK.match(ask.strip()) is not None


def abilities_reply(abilities: Sequence[str]) -> str:
    """The answer to "what can you do?": what the asker may ask for, a line each."""
    listed = "\n".join(f"- {ability}" for ability in abilities)
    return f"Here is what I can do for you, one ask at a time:\n{listed}"


def _stock_reply(ask: str) -> str | None:
    """The stock answer to thanks or a greeting; None for any other message."""
    if _THANKS.search(ask):
        return WELCOME
    return GREETING if _GREETS.search(ask) else None


def _misplaced(reply: str, ask: str) -> bool:
    """Whether the reply is a stock phrase the message gives no cause for.

    Thanks for a greeting or a question, condolences for a loss nobody mentioned.
    """
    thanked = _WELCOME.search(reply) is not None and ("?" in ask or _GREETS.search(ask) is not None)
    consoled = _CONDOLENCE.search(reply) is not None and _LOSS.search(ask) is None
    return thanked or consoled


def _unfounded_items(reply: str, sources: str) -> list[str]:
    """The items of a list in `reply` that `sources` (the message, the results) do not hold.

    Listing a result's candidates, the model adds a name from earlier in the thread ("1.
    Omar Haddad, 2. Distex, 3. Thorinox" for the owners of a brand, Omar being a task's
    assignee). Items that are `key: value` lines, a copied rendering, are left to the other
    checks.
    """
    held = sources.casefold()
    items = (found.group(1) for found in _LIST_ITEM.finditer(reply))
    return [item for item in items if ":" not in item and item.casefold() not in held]


def _invented(reply: str, sources: str) -> list[str]:
    """Dates and amounts in `reply` that `sources` (the message, the results) do not hold.

    Copying a result, the model changes some of its values ("due_date: 2026-12-31" for
    2026-12-04) while keeping enough others to pass for grounded.
    """
    known = set(_FIGURE.findall(sources))
    return [figure for figure in _FIGURE.findall(reply) if figure not in known]


def shown(result: ToolResult, *, changed: bool = False) -> str:
    """A tool result as the person reads it in place of the model's reply.

    A call that did not go through says why, in the tool's first sentence. A result's
    fields are one line each, a list of records one line per record; dates also read as
    words ("2026-12-05 (Saturday, December 5)"); several candidates end with a question.
    `changed`: the tool changes data, and this is the change it made (what it "did", not
    what it "found").
    """
    if result.failed:
        text = result.content.strip()
        # "error: get_x failed: ValueError: why" → "why"
        reason_text = _FAILURE_PREFIX.sub("", text.removeprefix(_NOT_RUN).strip())
        first = _FIRST_SENTENCE.match(reason_text)
        reason = first.group(0).strip() if first else reason_text
        if text.startswith(_NOT_RUN):
            verb, _, thing = result.name.partition("_")
            return f"I did not {verb} the {thing.replace('_', ' ') or 'change'}: {reason}"
        return f"{result.name} did not go through: {reason}"
    data = result.data()
    lines = (
        _record_lines(data)
        if isinstance(data, dict)
        else result_text(result.content).strip().splitlines()
    )
    done = "did" if changed else "found"
    text = f"Here is what {result.name} {done}:\n" + "\n".join(lines[:GROUNDING_LEAVES])
    if isinstance(data, dict) and data.get("status") == "ambiguous":
        text += "\nWhich one do you mean?"
    return text


def _record_lines(data: dict[str, Any]) -> list[str]:
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            lines.append(f"{key}:")
            lines += [f"- {_one_line(item)}" for item in value]
        elif isinstance(value, dict):
            lines.append(f"{key}: {_one_line(value)}")
        elif value is not None and not _is_id(key):
            lines.append(f"{key}: {_field(value)}")
    return lines


def _one_line(record: dict[str, Any]) -> str:
    shown = []
    for key, value in record.items():
        if value is None or _is_id(key) or isinstance(value, dict):
            continue
        if isinstance(value, list):
            items = [_item_text(item) for item in value[:NESTED_ITEMS]]
            more = ", …" if len(value) > NESTED_ITEMS else ""
            shown.append(f"{key}: " + "; ".join(items) + more)
        else:
            shown.append(f"{key}: {_field(value)}")
    return ", ".join(shown)


def _item_text(item: Any) -> str:
    if isinstance(item, dict):
        return " ".join(_scalar(v) for v in item.values() if not isinstance(v, dict | list))
    return _scalar(item)


def _is_id(key: str) -> bool:
    return key == "id" or key.endswith("_id")


def _scalar(value: Any) -> str:
    """A value as a person reads it: a whole amount without its ".0" (149, not 149.0)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _field(value: Any) -> str:
    """A record's field as shown: a date also in words."""
    return _ISO_DATE.sub(_date_words, _scalar(value))


def _date_words(match: re.Match[str]) -> str:
    try:
        day = date.fromisoformat(match.group(0))
    except ValueError:
        return match.group(0)
    return f"{match.group(0)} ({day:%A}, {day:%B} {day.day})"
