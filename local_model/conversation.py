"""What the local model reads of a conversation: this exchange, and the one before it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from local_model.spans import BACK, EDGE, FUNCTION_WORDS, GOES_ON, bare, unpossessive

Plain = str | int | float
Mentions = Mapping[str, Sequence[str]]  # the workspace records a message names, by kind
ASKED = "local_asked"  # the `response_metadata` key of the tools a question asked about


@dataclass(frozen=True)
class Result:
    """One tool result."""

    name: str
    content: str
    failed: bool  # the call did not go through: refused, rejected, invalid or failed

    def data(self) -> Any:
        """The result parsed as JSON, or None when it is not JSON."""
        with suppress(ValueError):
            return json.loads(self.content)
        return None

    @property
    def leaves_choice(self) -> bool:
        """Whether the result leaves a choice among candidates to the person."""
        return isinstance(data := self.data(), dict) and data.get("status") == "ambiguous"


@dataclass(frozen=True)
class Call:
    """One tool call and its arguments."""

    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Exchange:
    """A person's message and what the tools did for it."""

    ask: str
    calls: tuple[Call, ...]
    results: tuple[Result, ...]
    asked: tuple[str, ...] = ()  # tools a question of this model's asked about (`ASKED`)

    def values(self, picked_by: str | None = None, about: bool = True) -> dict[str, list[Plain]]:
        """Plain values by name: the arguments of calls that went through, then result fields.

        An argument its result answers by the same name is left out ("tomorrow" with a check-in:
        the stay read holds). Every field, or the records `picked_by` picks and (`about`) `_about`.
        """
        found: dict[str, list[Plain]] = {}
        failed = {r.name for r in self.results if r.failed}
        results = [r for r in self.results if picked_by is None and isinstance(r.data(), dict)]
        answered = {(r.name, k) for r in results for k in r.data()}  # every field is collected
        for call in (c for c in self.calls if c.name not in failed):
            for key, value in call.args.items():
                if (call.name, key) not in answered:  # what the tool found holds instead
                    _add(found, key, value)
        for result in (r for r in self.results if not r.failed):
            data = result.data()
            picks = [_about(data) if about else {}, *_picked(data, picked_by or "")]
            _collect(data if picked_by is None else picks, found)
        return found


Times = Callable[[str], Sequence[tuple[int, int]]]
"""Where a text says a time, (start, end) of each phrase: the app's `Hints.times`."""


def no_times(text: str) -> Sequence[tuple[int, int]]:
    """The reading without a date reader: no text says a time."""
    return ()


@dataclass(frozen=True)
class Turn:
    """The current exchange (its results arrive while it runs) and the one before."""

    now: Exchange
    before: Exchange | None
    stated: tuple[Mapping[str, str], ...] = ()  # the app's `Hints.stated`
    times: Times = no_times

    @property
    def ask(self) -> str:
        """The person's latest message."""
        return self.now.ask

    def said(self, tool: str) -> str:
        """The message, after the ask before it when this model then asked about `tool`."""
        before = self.before  # "book Noor a King Suite" / "which dates?" / "Dec 15-17"
        if before is None or tool not in before.asked or tool in {c.name for c in before.calls}:
            return self.ask
        return f"{before.ask}\n{self.ask}"

    @property
    def says_when(self) -> bool:
        """Whether the message says a time of its own ("next Friday", "Dec 4")."""
        return bool(self.times(self.ask))

    def went_on(self, reader: str) -> bool:
        """Whether this turn's `reader` counted from a date the calls before gave ("2 nights")."""
        before = self.before.calls if self.before else ()
        given = {(k, v) for c in before for k, v in c.args.items()}
        calls = [c for c in self.now.calls if c.name == reader][-1:]
        read = [r.data() for r in self.now.results if r.name == reader][-1:]
        return any(
            isinstance(data, dict) and data.get(k) == v and (k, v) in given
            for c, data in zip(calls, read, strict=False)
            for k, v in c.args.items()
            if iso_day(str(v))
        )


def iso_day(text: str) -> date | None:
    """The day `text` is, when it is one written as YYYY-MM-DD."""
    with suppress(ValueError):
        return day if (day := date.fromisoformat(text)).isoformat() == text else None
    return None


def read_turn(messages: Sequence[BaseMessage]) -> Turn:
    """The current exchange and the one before (read with its own before when it asked again)."""
    asks = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)][-3:] or [-1]
    spans = zip(asks, [*asks[1:], len(messages)], strict=True)
    found = [_exchange(messages[a].text if a >= 0 else "", messages[a + 1 : e]) for a, e in spans]
    earlier, before = [None, None, *found[:-1]][-2:]
    # one that asked again of what the one before found ("what would it cost?", "and the night
    # after?") stands with it
    said = before.ask if before else ""
    again = GOES_ON.match(said) or BACK.intersection(map(bare, said.split()))
    if earlier and before and again:
        same = before.calls and {c.name for c in before.calls} <= {c.name for c in earlier.calls}
        before = replace(before, ask=f"{earlier.ask}\n{before.ask}") if same else before
    return Turn(found[-1], before)


def _exchange(ask: str, messages: Sequence[BaseMessage]) -> Exchange:
    names: dict[str, str] = {}
    calls, results, asked = [], [], []
    for message in messages:
        if isinstance(message, AIMessage):
            asked += list(message.response_metadata.get(ASKED) or [])
            for call in message.tool_calls:
                names[str(call.get("id"))] = call["name"]
                calls.append(Call(call["name"], dict(call.get("args") or {})))
        elif isinstance(message, ToolMessage):
            name = message.name or names.get(message.tool_call_id, "tool")
            # a change proposed and moved on from was never decided: it holds, a question open
            aside = message.additional_kwargs.get("outcome") == "not_confirmed"
            results.append(Result(name, str(message.text), message.status == "error" and not aside))
            # "the Acme one" answers a choice left, and "the King Suite then" a change set aside
            asked += [name] if results[-1].leaves_choice or aside else []
    return Exchange(ask, tuple(calls), tuple(results), tuple(asked))


def says(text: str, value: str) -> list[tuple[int, int]]:
    """Where `text` says `value` as words of its own ("amazon_us" as "amazon us", plurals too)."""
    words, text = value.replace("_", " "), text.replace("_", " ")
    found = re.finditer(rf"\b{re.escape(words)}s?\b", text, re.IGNORECASE) if words else ()
    return [match.span() for match in found]


def names(text: str, record: str) -> list[tuple[int, int]]:
    """Where `text` names `record`: not as the first word of a name of its own ("Thorinox Pans")."""
    after = [(a, b, text[b:]) for a, b in says(text, record)]  # and what follows it
    return [(a, b) for a, b, r in after if not (r[:1].isspace() and r.lstrip()[:1].isupper())]


def _picked(node: Any, text: str) -> list[Any]:
    """The records in `node` that `text` picks out of their list by a word only it holds."""
    if isinstance(node, dict):
        return [r for value in node.values() for r in _picked(value, text)]
    if not isinstance(node, list):
        return []
    records = [r for r in node if isinstance(r, dict)]
    said = {unpossessive(w.strip(EDGE)) for w in text.split()}  # "amazon_us" whole, and its parts
    words = {p.casefold() for w in said for p in (w, *w.split("_"))} - FUNCTION_WORDS - {""}
    values = [[v.casefold() for v in r.values() if isinstance(v, str)] for r in records]
    held = [{w for v in vs for w in (v, *v.replace("_", " ").split())} for vs in values]
    only = [own - set().union(*(o for o in held if o is not own)) for own in held]
    named = [r for r, own in zip(records, only, strict=True) if words & own]
    return named if len(named) == 1 else [r for item in node for r in _picked(item, text)]


def _about(data: Any) -> dict[str, Any]:
    """The records a result is about: each record at its top, by its name."""
    top = data.items() if isinstance(data, dict) else ()
    return {k: v["name"] for k, v in top if isinstance(v, dict) and isinstance(v.get("name"), str)}


def _collect(node: Any, found: dict[str, list[Plain]]) -> None:
    if not isinstance(node, dict | list):
        return
    for key, value in node.items() if isinstance(node, dict) else enumerate(node):
        if isinstance(key, str):  # a nested record stands for its name ("client": {"name": …})
            _add(found, key, value.get("name") if isinstance(value, dict) else value)
        _collect(value, found)


def _add(found: dict[str, list[Plain]], key: str, value: Any) -> None:
    if isinstance(value, str | int | float) and not isinstance(value, bool) and value != "":
        found[key] = list(dict.fromkeys([*found.get(key, []), value]))  # each once, in order
