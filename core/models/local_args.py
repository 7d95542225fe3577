"""The grammar of one tool call whose values are copied from the conversation.

Left to fill a string freely the 135M model invents ("truc_truc_truc", a year from its
training data) far more often than it copies. So each value must be something the turn
said: a string is a span of the person's message or a value of a tool result, a number or
a date one they contain, an optional enum value one the message names. An optional argument
nothing in the turn can fill is left out, so the tool's default applies.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from core.models.local_grammar import answer_schema, inline_refs, safe_args_schema
from core.models.local_prompt import context_lines
from core.models.local_turn import Turn, is_plain
from core.models.local_values import (
    ISO_DATE,
    MAX_VALUE_CHARS,
    dates_in,
    name_like,
    spans_of,
    today_of,
    without_dates,
)
from core.time_phrases import holidays_in, names_a_time, says_when, without_holidays

_NUMBER_TEXT = re.compile(r"(?<![\w.-])-?\d+(?:\.\d+)?(?![\w-])")
ENTITY_KINDS = ("client", "brand")
"""Arguments that name a workspace record gather finds in a message (its context block's
`[workspace client]` and `[workspace brand]` entries)."""
_ENTITY = re.compile(r"^- \[workspace (\w+)\] (.+?)(?: \([^()]*\))?: ")
_ASKED = {
    "client": re.compile(r"\b(?:which|what|whose)\s+client\b|\bwho\s+owns\b", re.IGNORECASE),
    "brand": re.compile(r"\b(?:which|what|whose)\s+brand\b", re.IGNORECASE),
}


@dataclass(frozen=True)
class Pools:
    """The values a call may copy."""

    spans: tuple[str, ...]
    names: tuple[str, ...]
    """Spans outside the message's dates that read as names (a capitalized word not opening
    the message, a number) and tool result values: what an optional string may take."""
    numbers: tuple[str, ...]
    dates: tuple[str, ...]
    text: str
    """Everything the values come from, casefolded (for matching enum values)."""
    entities: dict[str, tuple[str, ...]]
    """The clients and brands the message mentions, by kind (see `ENTITY_KINDS`)."""
    earlier: dict[str, tuple[str | int | float, ...]]
    """The previous exchange's values by argument or field name (`Turn.earlier`)."""
    asked: frozenset[str] = frozenset()
    """The kinds of `ENTITY_KINDS` the message asks for ("which client owns ...?")."""
    said_numbers: tuple[str, ...] = ()
    """The numbers the message itself holds (`numbers` adds the tool results')."""
    own_time: bool = False
    """The message says when in words no date here is ("next weekend", "over Thanksgiving"):
    the previous exchange's dates are not the ones it means."""
    holidays: tuple[str, ...] = ()
    """The holiday names the message says: what an argument taking a holiday name takes."""
    fields: dict[str, tuple[str | int | float, ...]] = field(default_factory=dict)
    """This turn's result values by field name (`result_fields`): an argument of that name
    takes one of them."""

    @cached_property
    def earlier_dates(self) -> tuple[str, ...]:
        """Every date the previous exchange held, whatever its name, unless `own_time`.

        After "When is Hanukkah?", "any rooms then?" checks the holiday's dates.
        """
        if self.own_time:
            return ()
        found = (v for kept in self.earlier.values() for v in kept)
        return _unique(v for v in found if isinstance(v, str) and ISO_DATE.fullmatch(v))

    def carried_dates(self, name: str, *, required: bool = True) -> tuple[str, ...]:
        """The dates the previous exchange offers date argument `name`.

        That argument's own; else, for a required one, any date the exchange held. None
        when the message says its own time (`own_time`). An optional date is a filter the
        person asks for ("due before"): a date of another kind (a room's nightly rate) must
        not narrow it.
        """
        own = () if self.own_time else self.earlier.get(name, ())
        dated = tuple(v for v in own if isinstance(v, str))
        return dated or (self.earlier_dates if required else ())

    def carried_texts(self, name: str) -> tuple[str, ...]:
        """The strings argument `name` had in the previous exchange.

        Times are left out when the message says its own: "this weekend" does not answer
        "any rooms tomorrow?".
        """
        earlier = (v for v in self.earlier.get(name, ()) if isinstance(v, str))
        return tuple(v for v in earlier if not (self.own_time and names_a_time(v)))


def pools(turn: Turn) -> Pools:
    """Collect the copyable values of `turn`: its message and this turn's tool results."""
    leaves = [leaf for result in turn.results for leaf in result.leaves()]
    strings = [leaf for leaf in leaves if isinstance(leaf, str)]
    results = [s[:MAX_VALUE_CHARS] for s in strings if s.strip()]
    spans = spans_of(turn.ask)
    today = today_of(turn.system)
    # Dates read as names too: "tasks due before December 10" had the assignee "December
    # 10", then "December". Names are the message's spans outside its dates, and a time in
    # words ("Friday") is none.
    names = [
        span
        for span in spans_of(without_holidays(without_dates(turn.ask)))
        if span in turn.ask and name_like(span, turn.ask) and not names_a_time(span)
    ]
    said = _NUMBER_TEXT.findall(without_dates(turn.ask))
    numbers = said + [json.dumps(leaf) for leaf in leaves if isinstance(leaf, int | float)]
    dates = dates_in(turn.ask, today)
    dates += [s for s in strings if ISO_DATE.fullmatch(s)]
    text = " ".join([turn.ask, *strings]).casefold()
    entities: dict[str, list[str]] = {kind: [] for kind in ENTITY_KINDS}
    for line in context_lines(turn.system):
        found = _ENTITY.match(line)
        if found is not None and found.group(1) in entities:
            entities[found.group(1)].append(found.group(2))
    return Pools(
        _unique(spans + results),
        _unique(names + results),
        _unique(numbers),
        _unique(dates),
        text,
        {kind: _unique(found) for kind, found in entities.items()},
        turn.earlier,
        frozenset(kind for kind, pattern in _ASKED.items() if pattern.search(turn.ask)),
        own_time=not dates and says_when(turn.ask),
        said_numbers=_unique(said),
        holidays=_unique(holidays_in(turn.ask)),
        fields=result_fields(turn),
    )


def result_fields(turn: Turn) -> dict[str, tuple[str | int | float, ...]]:
    """This turn's plain result values by field name.

    A top-level field's value, else the values the results' listed records hold under that
    name (each room's `room_type`). `get_availability`'s "check_in" is the date a booking
    after it starts: a value found under the argument's own name is the one the results
    mean for it.
    """
    top = {key: (value,) for key, value in turn.plain_values().items()}
    listed: dict[str, list[str | int | float]] = {}
    for result in turn.results:
        data = result.data()
        lists = [v for v in data.values() if isinstance(v, list)] if isinstance(data, dict) else []
        for record in (item for items in lists for item in items if isinstance(item, dict)):
            for key, value in record.items():
                if is_plain(value):
                    listed.setdefault(str(key), []).append(value)
    return {**{key: _unique_values(found) for key, found in listed.items()}, **top}


def unfillable(tool: dict[str, Any], values: Pools) -> list[str]:
    """The tool's required date arguments that nothing in the turn, or the one before, fills.

    Left to write a date the message does not hold, the model makes one up (1234-06-07);
    a tool that needs one cannot be called until the person gives it.
    """
    return [
        name
        for name in date_arguments(tool, required_only=True)
        if not values.dates and not values.carried_dates(name)
    ]


def date_arguments(tool: dict[str, Any], *, required_only: bool = False) -> list[str]:
    """The names of the tool's date arguments (`format: date`), or of its required ones."""
    schema = inline_refs(tool["function"].get("parameters") or {})
    properties = schema.get("properties") or {}
    names = (schema.get("required") or []) if required_only else list(properties)
    return [name for name in names if _is_date(_alternatives(properties.get(name)))]


def call_grammar(tool: dict[str, Any], values: Pools) -> Any:
    """Return the grammar of `{"tool": <name>, "args": {...}}` with values from `values`.

    The tool's schema is compiled once per set of fillable arguments (cached); each
    property to copy holds a marker there, replaced by a rule listing this turn's values.
    """
    from llama_cpp.llama_grammar import LlamaGrammar

    fn = tool["function"]
    # The grammar's schema drops descriptions; whether an argument takes a holiday is read first.
    properties = (inline_refs(fn.get("parameters") or {}).get("properties")) or {}
    holiday_names = frozenset(name for name, prop in properties.items() if _takes_a_holiday(prop))
    copier = _Copier(values, holiday_names)
    schema = copier.schema(safe_args_schema(fn.get("parameters") or {}))
    gbnf = _compiled(json.dumps({"name": fn["name"], "parameters": schema}))
    for marker, texts in copier.markers.items():
        rule = marker.strip("@")
        gbnf = gbnf.replace(_literal(json.dumps(marker)), rule)
        gbnf += f"\n{rule} ::= {' | '.join(_literal(text) for text in texts)}"
    return LlamaGrammar.from_string(gbnf, verbose=False)


def _alternatives(prop: Any) -> list[dict[str, Any]]:
    """The non-null schemas a property may take (its `anyOf`, or itself)."""
    if not isinstance(prop, dict):
        return []
    return [a for a in prop.get("anyOf", [prop]) if isinstance(a, dict) and a.get("type") != "null"]


def _takes_a_holiday(prop: dict[str, Any]) -> bool:
    """Whether a property names a holiday: its description's examples are holidays."""
    return bool(holidays_in(str(prop.get("description", ""))))


def _in_range(number: float, alternatives: list[dict[str, Any]]) -> bool:
    """Whether `number` meets an alternative's bounds (a count of 18 guests does not)."""
    return any(
        number >= a.get("minimum", -math.inf)
        and number <= a.get("maximum", math.inf)
        and number > a.get("exclusiveMinimum", -math.inf)
        and number < a.get("exclusiveMaximum", math.inf)
        for a in alternatives
    )


def _is_date(alternatives: list[dict[str, Any]]) -> bool:
    return any(a.get("format") == "date" for a in alternatives)


class _Copier:
    """Rewrites an argument schema so that each value is one the turn holds."""

    def __init__(self, values: Pools, holiday_names: frozenset[str] = frozenset()) -> None:
        self._values = values
        self._holiday_names = holiday_names
        """The properties that take a holiday's name (`_takes_a_holiday`)."""
        self.markers: dict[str, tuple[str, ...]] = {}
        """Each marker (a one-value enum in the schema) and the JSON texts it stands for."""

    def schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """`schema` with copyable properties marked and unfillable optional ones dropped."""
        required = set(schema.get("required") or [])
        properties = {}
        for name, prop in (schema.get("properties") or {}).items():
            copied = self._property(name, prop, name in required)
            if copied is not None:
                properties[name] = copied
        kept = [name for name in required if name in properties]
        return {**schema, "properties": properties, "required": kept}

    def _property(self, name: str, prop: dict[str, Any], required: bool) -> dict[str, Any] | None:
        """The copy-constrained schema of one property; None to leave it out."""
        values = self._values
        earlier = values.earlier.get(name, ())
        alternatives = _alternatives(prop)
        kinds = {str(a.get("type")) for a in alternatives}
        enum = [v for a in alternatives for v in a.get("enum", [])]
        if enum:
            named = [v for v in enum if _mentioned(v, values.text)]
            return {"enum": named} if named else (prop if required else None)
        literals: tuple[str, ...] = ()
        if kinds == {"string"}:
            holidays = list(values.holidays) if name in self._holiday_names else []
            texts = holidays or self._texts(name, alternatives, required)
            if texts is None:
                return None
            literals = tuple(json.dumps(t, ensure_ascii=False) for t in texts)
        elif kinds and kinds <= {"integer", "number"}:
            before = [json.dumps(v) for v in earlier if isinstance(v, int | float)]
            # An optional number is a choice the person makes ("for 3 guests"): a result's
            # count of something else ("nights": 1) does not make it.
            given = values.numbers if required else values.said_numbers
            numbers = _unique([*given, *before])
            found = [json.dumps(v) for v in values.fields.get(name, ()) if not isinstance(v, str)]
            if found:
                # The results' value under this name, or one the message says (the lookup
                # may have used its default).
                numbers = _unique([*found, *values.said_numbers])
            literals = tuple(
                n
                for n in numbers
                if _in_range(float(n), alternatives) and (kinds != {"integer"} or "." not in n)
            )
        # Lists, objects, flags and patterned strings are not copied; the model fills them
        # only when it must.
        if not literals:
            return prop if required else None
        marker = f"@@copied-{len(self.markers)}@@"
        self.markers[marker] = literals
        return {"enum": [marker]}

    def _texts(
        self, name: str, alternatives: list[dict[str, Any]], required: bool
    ) -> tuple[str, ...] | None:
        """The strings a string property may take; None to leave an optional one out.

        A value this turn's results hold under the property's name is the one it takes
        (`Pools.fields`), or a client or brand the message mentions. Otherwise a date is
        one the turn holds, else one the previous exchange offers (`Pools.carried_dates`);
        a client or brand is one the message mentions, else the previous exchange's unless
        the message asks which one or it had several; any other string is a span of the
        message or a result's value (the previous exchange's value of that name first,
        `Pools.carried_texts`).
        """
        values = self._values
        named = tuple(v for v in values.fields.get(name, ()) if isinstance(v, str))
        if named:
            # The results' value under this name (`get_availability`'s check_in for a
            # booking after it, one of its rooms' room_type), or a record the message names.
            return _unique([*named, *values.entities.get(name, ())])
        earlier = values.carried_texts(name)
        if _is_date(alternatives):
            return values.dates or values.carried_dates(name, required=required)
        if any("pattern" in a or "format" in a for a in alternatives):
            return ()
        if name in values.entities:
            # Carried over, it would answer "which client owns Garlic Press?" for the client
            # the last exchange was about. Several (a list of tasks names a client in each)
            # are not one the exchange was about.
            open_question = name in values.asked or len(earlier) > 1
            known = values.entities[name] or (() if open_question else earlier)
            if known or not required:
                return known or None
        low = max(int(a.get("minLength", 1)) for a in alternatives)
        high = min(int(a.get("maxLength", MAX_VALUE_CHARS)) for a in alternatives)
        pool = _unique([*earlier, *(values.spans if required else values.names)])
        return tuple(s for s in pool if low <= len(s) <= high)


@lru_cache(maxsize=256)
def _compiled(function_json: str) -> str:
    """GBNF of one call; the same tool, with the same arguments fillable, repeats."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    function = json.loads(function_json)
    schema = answer_schema([{"function": function}], reply_allowed=False)["anyOf"][0]
    return str(json_schema_to_gbnf(json.dumps(schema)))


def _mentioned(value: Any, text: str) -> bool:
    words = str(value).casefold().replace("_", " ")
    return bool(words) and re.search(rf"\b{re.escape(words)}\b", text) is not None


def _unique_values(items: Iterable[str | int | float]) -> tuple[str | int | float, ...]:
    return tuple(dict.fromkeys(items))


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for item in items if item))


def _literal(text: str) -> str:
    """A GBNF string literal matching `text` exactly."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
