"""Writing one tool call under a grammar of the values the turn offers.

A call the message did not really give becomes a question instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from langchain_core.utils.json_schema import dereference_refs

from local_model.conversation import Times, Turn, iso_day, says
from local_model.decide import Hints
from local_model.fitting import labels
from local_model.grammar import call_grammar, read_call, tool_call
from local_model.intent import TEXTS
from local_model.replies import ask_for, summary
from local_model.spans import BACK, EDGE, FUNCTION_WORDS, JOINING_WORDS, bare
from local_model.values import COUNTS, date_arguments, fill, hollow

ARGS_MAX_TOKENS = 160
Complete = Callable[[str, Any, int], str]
"""Runs the model on a prompt under a grammar, up to a number of tokens."""


def write_call(
    tool: dict[str, Any], turn: Turn, hints: Hints, complete: Complete
) -> tuple[dict[str, Any] | None, str]:
    """The call of `tool` for `turn`, or None and the question to ask instead.

    A name given to a change (`hints.changing`) must be written as one ("for 2 adults": no guest).
    """
    function, mentions, about = tool["function"], hints.mentions, summary(tool)
    name, parameters = str(function["name"]), dict(function.get("parameters") or {})
    offered = fill(parameters, turn, mentions, name)
    if offered.missing:
        return None, ask_for(offered.missing, tool)
    if not offered.choices:
        return tool_call(name, {}), ""
    grammar = call_grammar(name, parameters, offered.choices, offered.said)
    call = read_call(complete(_prompt(function, about, turn), grammar, ARGS_MAX_TOKENS), name)
    if call is None:
        return None, "I couldn't work out the details of that. Could you say it another way?"
    required = set(dereference_refs(parameters).get("required") or [])
    records = {n for names in mentions.values() for n in names}
    # a value this tool's call before gave stays, as a record named does ("make it due … instead")
    drafted = [c.args for c in (turn.before.calls if turn.before else ()) if c.name == name]
    records |= {str(v) for args in drafted for v in args.values()}
    written = as_span(call["args"], parameters)
    said = turn.said(name)  # a value said after its argument's name is kept ("space Distex")
    kept = {k for k, v in written.items() if labels(k, v, said)}
    args = _once(written, required, set(mentions), records, kept)
    texts = [a for a in required if a not in mentions and isinstance(args.get(a), str)]
    args |= {a: tidied(args[a], a, args, turn.times) for a in texts}
    others = {a: [str(v) for k, v in args.items() if k != a and isinstance(v, str)] for a in texts}
    unsaid = [a for a in texts if a in offered.choices and hollow(args[a], name, others[a])]
    props = dereference_refs(parameters).get("properties") or {}
    named = [a for a in texts if "name" in str(props[a].get("description") or "").casefold()]
    unsaid += [a for a in named if name in hints.changing and not _a_name(args[a], said, records)]
    unsaid += [a for a in texts if _the_request(args[a], name, said, name in hints.changing)]
    if unsaid:
        return None, ask_for(list(dict.fromkeys(unsaid)), tool)
    # a name written in lower case is capitalized ("dana levi")
    args |= {a: args[a].title() for a in named if not _capitalized(args[a], said)}
    return {**call, "args": args}, ""


def _a_name(value: str, said: str, records: set[str]) -> bool:
    """Whether `said` writes `value` as a name: a record, capitalized, or two words of its own.

    The last only where the message capitalizes nothing, and none of its words is a function
    word, a count or a word of a record's name ("king suite", "two people").
    """
    if value in records or not says(said, value) or _capitalized(value, said):
        return True  # one the message does not say is a record the conversation gave
    words, lower = {bare(w) for w in value.split()}, not any(c.isupper() for c in said)
    taken = {bare(w) for r in records for w in r.split()} | FUNCTION_WORDS | {*COUNTS}
    return lower and len(words) > 1 and not words & taken


def _capitalized(value: str, said: str) -> bool:
    """Whether `said` writes `value` with a capital letter."""
    return any(c.isupper() for a, b in says(said, value) for c in said[a:b])


def _the_request(value: str, tool: str, said: str, changes: bool) -> bool:
    """Whether `value` is the request's head ("add a task") or a change's one verb ("put ...")."""
    head = said.strip(EDGE).casefold().startswith(value.casefold())
    words, named = {bare(w) for w in value.split()} - FUNCTION_WORDS, set(tool.split("_"))
    verb = changes and " " not in value.strip() and " " in said.strip(EDGE)
    return head and (verb or (bool(words & named) and len(words - named) <= 1))


def as_span(args: dict[str, Any], parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Two date arguments written the same day become that day's one night."""
    first, *rest = date_arguments(parameters) or [""]
    day = iso_day(str(args.get(first)))
    same = rest and day and args.get(first) == args.get(rest[0])
    return {**args, rest[0]: (day + timedelta(days=1)).isoformat()} if same and day else args


def tidied(value: str, arg: str, args: dict[str, Any], times: Times) -> str:
    """A text less another value at its end ("… for Acme", "… and ask Jo"); a phrase capitalized."""
    for other in (str(v) for k, v in args.items() if k != arg and isinstance(v, str) and v):
        ends = [start for start, end in says(value, other) if end == len(value)]
        words = value[: ends[-1]].split() if ends else []  # "… and assign | Omar": from "and"
        cut = [i for i, w in enumerate(words) if bare(w) in JOINING_WORDS][-1:]
        value = " ".join(words[: cut[0]]) if cut and 0 < cut[0] >= len(words) - 2 else value
    words = value.split()  # "… photos and assign it": what to do with the thing is not it
    if len(words) > 3 and bare(words[-1]) in BACK and bare(words[-3]) in JOINING_WORDS:
        value = " ".join(words[:-3])
    if " " not in value or list(times(value)) == [(0, len(value))]:
        return value
    return value[:1].upper() + value[1:]


def _once(
    args: dict[str, Any], required: set[str], records: set[str], named: set[str], kept: set[str]
) -> dict[str, Any]:
    """A phrase said once fills one argument; of two alike, a required or a record's stays.

    An argument said right after its name stays too (`kept`: "space Distex"), and a record the
    message names stays inside a longer text ("redo the Thorinox Peelers bullets").
    """
    words = {k: {bare(w) for w in v.split()} for k, v in args.items() if isinstance(v, str)}
    order = sorted(words, key=lambda k: (k not in required, k not in records))
    inside = {
        k for k, w in words.items() if args[k] not in named and any(w < o for o in words.values())
    }
    inside |= {k for i, k in enumerate(order) if any(words[k] == words[j] for j in order[:i])}
    return {k: v for k, v in args.items() if k in required | kept or k not in inside}


def _prompt(function: dict[str, Any], purpose: str, turn: Turn) -> str:
    """The tool's manual, the message and this turn's results, after the worked example."""
    schema = dereference_refs(dict(function.get("parameters") or {}))
    required = set(schema.get("required") or [])
    lines = [f"Tool: {function['name']}: {purpose}", "Arguments:"]
    for arg, prop in (schema.get("properties") or {}).items():
        about = str(prop.get("description") or "") if isinstance(prop, dict) else ""
        lines.append(f"- {arg}{'' if arg in required else ' (optional)'}{about and f': {about}'}")
    lines.append(f"Message: {turn.said(str(function['name']))}")
    return OPENING + "\n".join(lines) + "<|im_end|>\n<|im_start|>assistant\n"


_ROLES = {"system": "rule", "user": "example", "assistant": "example_call"}
OPENING = "".join(f"<|im_start|>{r}\n{TEXTS['call'][k]}<|im_end|>\n" for r, k in _ROLES.items())
OPENING += "<|im_start|>user\n"
"""How every call's prompt begins: the rule and the worked example, then the tool's turn."""
