"""What a person reads in a tool's result, as the tool declares it: a lead line and fields.

A model that writes no prose (the embedded one) lays a result out from this declaration
instead of every key it holds; a hosted model reads the raw result and is unaffected.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Row = tuple[tuple[str, Any], ...]
"""One record's declared fields that hold a value, as (label, value); the first label is ""."""


@dataclass(frozen=True)
class Reading:
    """A result as declared: its lead line ("2 tasks", "Created the task") and a row per record."""

    lead: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Shows:
    """The fields of a tool's record(s) that answer the ask, and what its lead line says.

    A field is a path into one record (`due_date`, `client.name`; a list on the way gives
    each item's value: `team.name`). Its last key may join keys with "+": the first one's
    value with the others' beside it (`team.name+role` reads "Jo Kim (account manager)").
    It is labelled with its last key, or with the list's key when it passes one (`team`);
    the first field is the record's title, unlabelled.
    No fields: the whole result is what a person reads (a tool that reloads one).
    """

    fields: tuple[str, ...]
    records: str = ""
    """The path to the record or list of records (`tasks`); "" for the result itself."""
    noun: str = ""
    """One record of a list ("task"): the lead line counts them ("2 tasks", "No tasks")."""
    nouns: str = ""
    """The plural, when it is not `noun` + "s" ("brands missing a mapping")."""
    lead: Mapping[str, str] = field(default_factory=dict, compare=False)
    """The lead line by the result's `status` ("" for any), filled from the result's fields:
    {"created": "Created the task"}, {"": "from {check_in} to {check_out}"}, {client[name]}."""

    def read(self, result: Any) -> Reading | None:
        """`result` as declared; None when it does not hold the records or says nothing."""
        found = at(result, self.records) if self.records else result
        records = found if isinstance(found, list) else [found]
        top = result if isinstance(result, dict) else {}
        if top.get("status") == "not_found":
            return unmatched(top, self.noun)
        if found is None or not all(isinstance(record, dict) for record in records):
            return None
        try:
            said = self.lead.get(str(top.get("status")), self.lead.get("", "")).format_map(top)
        except (KeyError, IndexError, TypeError, ValueError):  # a template naming what it lacks
            said = ""
        if isinstance(found, list) and self.noun:
            plural = self.nouns or f"{self.noun}s"
            count = f"{len(found)} {self.noun if len(found) == 1 else plural}"
            said = " ".join(filter(None, [count if found else f"No {plural}", said]))
        rows = tuple(row for record in records if (row := self._row(record)))
        return Reading(lead=said, rows=rows) if said or rows else None

    def _row(self, record: dict[str, Any]) -> Row:
        row = []
        for number, path in enumerate(self.fields):
            value = at(record, path)
            if value not in (None, "", [], {}):
                keys = path.split(".")
                label = keys[0] if isinstance(record.get(keys[0]), list) else keys[-1]
                row.append(("" if number == 0 else label.replace("_", " "), value))
        return tuple(row)


def unmatched(result: Mapping[str, Any], noun: str) -> Reading:
    """A name that matched no record: what was looked for, and the names near it or there are.

    {"status": "not_found", "field": "client", "query": "Acme", "suggestions": ["Acme Co"]}
    reads 'No client matches "Acme". Did you mean' and a line per suggestion.
    """
    what, query = result.get("field") or noun or "record", result.get("query")
    lead = f"No {what} matches" + (f' "{query}"' if query else "")
    near, known = result.get("suggestions") or [], result.get("known") or []
    names = [n for n in (near or known) if isinstance(n, str)]
    said = ". Did you mean" if near else f". The {what}s there are"
    return Reading(lead=lead + (said if names else ""), rows=tuple((("", n),) for n in names))


def at(value: Any, path: str) -> Any:
    """The value at a dotted `path`; a list on the way gives each of its records' values."""
    for key in path.split("."):
        if isinstance(value, list):
            value = [_value(item, key) for item in value if isinstance(item, dict)]
        elif isinstance(value, dict):
            value = _value(value, key)
        else:
            return None
    return value


def _value(record: dict[str, Any], key: str) -> Any:
    """`record`'s value at `key`; at "a+b", a's with b's beside it ("Jo Kim (designer)")."""
    first, *others = key.split("+")
    beside = [str(v).replace("_", " ") for k in others if (v := record.get(k)) not in (None, "")]
    value = record.get(first)
    return f"{value} ({', '.join(beside)})" if beside and value is not None else value
