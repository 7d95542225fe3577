"""What the local model says without writing prose: set answers, questions and results.

A model this small invents when it paraphrases: tool results are laid out a record per line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from local_model.conversation import Result
from local_model.intent import HOW, SMALL_TALK_ANSWERS, TEXTS
from local_model.values import iso_day

SHOWN_LINES = 20
_ASIDE = re.compile(r"\s*\([^()]*\)")
_NOT_RUN = "Not executed:"
_ID = re.compile(r"id|\w+_id")
_FAILURE_PREFIX = re.compile(r"^error: (?:\w+ failed: (?:\w+(?:Error|Exception): )?)?")
_FIRST_SENTENCE = re.compile(r".+?(?:\.(?=\s+[A-Z])|$)", re.DOTALL)


def small_talk(kind: str, abilities: Sequence[str], manual: str = "") -> str:
    """The answer to small talk: "what can you do?" the abilities, "how does …?" a `manual`."""
    # without a manual, how the assistant works and the abilities
    general = TEXTS["small_talk"][HOW]["general"] if kind == HOW and not manual else ""
    answer = general or SMALL_TALK_ANSWERS.get(kind, SMALL_TALK_ANSWERS["acknowledgement"])
    return answer.format(abilities="\n".join(f"- {a}" for a in abilities), manual=manual)


def which_of(options: Sequence[str]) -> str:
    """The question "Which do you want me to do: A, or B?"; of one, "Do you want me to A?"."""
    said = [_lowered(_ASIDE.sub("", option).strip().rstrip(".")) for option in options]
    if len(said) == 1:
        return f"Do you want me to {said[0]}?"
    return f"Which do you want me to do: {', or '.join(said)}?"


def ask_for(arguments: Sequence[str], tool: dict[str, Any] | None) -> str:
    """The question for arguments the message does not give, with the records each may be.

    An argument that lists its records as `examples` names them ("the client (Acme or Globex)").
    """
    props = ((tool or {}).get("function", {}).get("parameters") or {}).get("properties") or {}
    options = [[str(e) for e in props.get(a, {}).get("examples") or []] for a in arguments]
    named = zip(arguments, options, strict=True)
    words = [a.replace("_", " ") + f" ({_listed(o, 'or')})" * bool(o) for a, o in named]
    purpose = _lowered(_ASIDE.sub("", summary(tool) if tool else "").strip().rstrip("."))
    return f"{f'To {purpose}, ' if purpose else ''}I need the {_listed(words)}: which do you mean?"


def _listed(words: Sequence[str], last: str = "and") -> str:
    return f" {last} ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def summary(tool: dict[str, Any]) -> str:
    """What a tool does, in a line: its description's first line."""
    first = str(tool["function"].get("description") or "").strip().split("\n", 1)[0]
    return first or str(tool["function"]["name"]).replace("_", " ")


def shown(result: Result, shows: Mapping[str, Any], changed: bool = False) -> str:
    """A tool result as the person reads it; `changed`: what a change "did", not "found".

    A failure says why, in the tool's first sentence. A tool that `shows` what a person reads
    (`read(result)`: a lead and rows) gets its lead line ("2 tasks") and those fields, a record
    a line; any other, every field but ids and empty ones. Dates also read as words.
    """
    if result.failed:
        text = _said(result.data()) or result.content.strip()
        reason_text = _FAILURE_PREFIX.sub("", text.removeprefix(_NOT_RUN).strip())
        reason = next(iter(_FIRST_SENTENCE.findall(reason_text)), "").strip()
        if text.startswith(_NOT_RUN):
            verb, _, thing = result.name.partition("_")
            return f"I did not {verb} the {thing.replace('_', ' ') or 'change'}: {reason}"
        return f"{result.name} did not go through: {reason}"
    data, header = result.data(), f"Here is what {result.name} {'did' if changed else 'found'}"
    declared = None if result.leaves_choice else shows.get(result.name)
    if declared and (read := declared.read(data)):
        rows = [("- " * (len(read.rows) > 1)) + _one_line(row) for row in read.rows[:SHOWN_LINES]]
        return "\n".join([_field(read.lead or header) + (":" if rows else "."), *rows])
    if result.leaves_choice:
        return "\n".join([*_choice(data)[: SHOWN_LINES + 1], "Which one do you mean?"])
    lines = _record_lines(data) if isinstance(data, dict) else result.content.splitlines()
    return "\n".join([f"{header}:", *lines[:SHOWN_LINES]])


def _choice(data: dict[str, Any]) -> list[str]:
    """A lead line saying what matched more than once, and each candidate by its name."""
    what, query = data.get("field") or "record", data.get("query")
    lead = f"More than one {what} matches" + (f' "{_field(query)}":' if query else ":")
    found = [r for v in data.values() if isinstance(v, list) for r in v if isinstance(r, dict)]
    named = [
        [("", r["name"]), *(f for f in _plain(r) if f[0] != "name")] for r in found if "name" in r
    ]
    return [lead, *(f"- {_one_line(fields)}" for fields in named)]


def _said(data: Any) -> str:
    """A failure written as JSON in its own words: its first `error` or `summary`, at any depth."""
    if not isinstance(data, dict):
        return ""
    said = [v for k, v in data.items() if k in ("error", "summary") and isinstance(v, str)]
    return next(iter(said), "") or next(filter(None, map(_said, data.values())), "")


def _record_lines(data: dict[str, Any]) -> list[str]:
    lines = []
    for key, value in _plain(data):
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            lines += [f"{key}:", *(f"- {_one_line(_plain(item))}" for item in value)]
        else:
            said = _one_line(_plain(value)) if isinstance(value, dict) else _field(value)
            lines.append(f"{key}: {said}")
    return lines


def _one_line(fields: Sequence[tuple[str, Any]]) -> str:
    said = [f"{label}: {_field(value)}" if label else _field(value) for label, value in fields]
    title = said.pop(0) if fields and not fields[0][0] else ""
    return " — ".join(filter(None, [title, ", ".join(said)]))


def _plain(record: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (k, v) for k, v in record.items() if v not in (None, "", [], {}) and not _ID.fullmatch(k)
    ]


def _scalar(value: Any) -> str:
    """A value as a person reads it: a whole amount without its ".0", a record its plain values."""
    if isinstance(value, dict):
        return " ".join(_scalar(v) for _, v in _plain(value) if not isinstance(v, dict | list))
    if isinstance(value, list):  # names, ids or codes: a list said as one, "none" when empty
        return "; ".join(map(_scalar, value)) or "none"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _field(value: Any) -> str:
    """A field as shown: a date also in words ("2026-12-05 (Saturday, December 5)")."""
    return " ".join(map(_with_day, _scalar(value).split(" ")))


def _with_day(word: str) -> str:
    day = iso_day(core := word.strip(".,;:()[]\"'"))
    return word.replace(core, f"{core} ({day:%A}, {day:%B} {day.day})") if day else word


def _lowered(text: str) -> str:
    """A sentence's first letter lowered, unless the word is a name ("Look up" → "look up")."""
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first[1:].islower() or len(first) == 1 else text
