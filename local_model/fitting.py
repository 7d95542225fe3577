"""Whether a value fits its argument: its schema, its range, the name said before it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from local_model.conversation import Plain, says


@dataclass(frozen=True)
class Fill:
    """What each argument of one call may take."""

    choices: dict[str, list[Plain]] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)  # required, but nothing in the turn gives
    said: list[str] = field(default_factory=list)  # optional, and the message gives a value


def labelled(result: Fill, said: str, required: set[str], records: Sequence[str]) -> Fill:
    """A text said after an argument's name is that argument's alone ("on the list Bins In").

    One that two may take is theirs the message names before it ("list of Acme to Bins In"). A
    record named so ("space Distex") leaves it nothing else; a word of a text claimed so is no
    other's ("Lighting" of "list Amazon US - Lighting") unless said alone; records keep a kind.
    """
    tied = [(c, a) for a, cs in result.choices.items() for c in cs if labels(a, c, said)]
    loose = [(c, a) for a, cs in result.choices.items() for c in cs if a not in dict(tied).values()]
    many = {c: said.rpartition(str(c))[0] for c, _ in loose if [d for d, _ in loose].count(c) > 1}
    named = [(c, a) for c, a in loose if c not in records]  # a record stays its own kind's
    tied += [(c, a) for c, a in named if says(many.get(c, ""), a.split("_")[-1])]  # name, then it
    owners = {c: {a for d, a in tied if d == c} for c, _ in tied}  # a value: who claims it
    every = {c for cs in result.choices.values() for c in cs if len(says(said, str(c))) == 1}
    inside = {c: args for v, args in owners.items() for c in every if c != v and str(c) in str(v)}
    for arg, choices in list(result.choices.items()):
        claimed = [c for c in choices if arg in owners.get(c, ())]
        free = [c for c in choices if c in records or arg in owners.get(c, inside.get(c, {arg}))]
        if kept := claimed or free:
            result.choices[arg] = kept
            claims = any(arg in args for args in owners.values())
            if claims and arg not in {*required, *result.said}:
                result.said.append(arg)
        else:
            del result.choices[arg]
            result.missing.extend([arg] if arg in required else [])
            result.said[:] = [a for a in result.said if a != arg]
    return result


def labels(arg: str, value: Plain, said: str) -> bool:
    """Whether `said` gives `value` right after `arg`'s last word ("list X", "list to X")."""
    return any(says(said, f"{arg.split('_')[-1]} {to}{value}") for to in ("", "to "))


def fits(value: Plain, options: list[dict[str, Any]]) -> bool:
    """Whether a value is valid under one of the alternatives: its type, range, length, pattern."""
    return any(Draft202012Validator(a).is_valid(value) for a in options)
