"""A written call's arguments, corrected as the person meant them.

The 135M model copies values well but places them badly: a name into every argument that
takes one, one date into both ends of a stay, a title ending in the client's name. Each
correction here undoes one such habit, measured on the reference asks.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from core.models.local_args import Pools, date_arguments
from core.models.local_values import is_length, nights_in, spans_of
from core.time_phrases import names_a_time


def corrected(
    args: dict[str, Any], tool: dict[str, Any], values: Pools, ask: str
) -> dict[str, Any]:
    """Apply every correction to the arguments the model wrote for `tool`."""
    args = distinct_dates(without_repeats(args, tool), tool, values)
    return titled(stay_length(with_start(args, ask), tool, nights_in(ask)))


def without_repeats(args: dict[str, Any], tool: dict[str, Any]) -> dict[str, Any]:
    """Drop optional string arguments whose value is part of another argument's value.

    The model, once it has copied a name, tends to copy it (or a piece of it) again into
    every optional argument that takes one ("brand": "Thorinox" next to "client":
    "Thorinox", "client": "Press" next to "brand": "Garlic Press").
    """
    required = set((tool["function"].get("parameters") or {}).get("required") or [])
    claimed: list[str] = []
    kept = {}
    # Required arguments claim their values first, then optional ones in the order given.
    for name in sorted(args, key=lambda n: n not in required):
        value = args[name]
        text = value.casefold() if isinstance(value, str) else None
        if text is not None and name not in required and any(text in c for c in claimed):
            continue
        if text is not None:
            claimed.append(text)
        kept[name] = value
    return {name: kept[name] for name in args if name in kept}


def distinct_dates(args: dict[str, Any], tool: dict[str, Any], values: Pools) -> dict[str, Any]:
    """Give a call's date arguments the turn's dates in order when the model repeated one.

    "from December 18 to December 20" came back as check_in and check_out both 2026-12-20:
    the model copies one date twice far more often than it swaps two. When the call's date
    arguments hold a value twice and the turn (else the exchange before) has a date for
    each, they take those dates in the order given (the order its arguments are declared in).
    With one date for a required start and end, the stay is that day's one night.
    """
    dates = values.dates or values.earlier_dates
    date_args = [name for name in date_arguments(tool) if name in args]
    taken = [args[name] for name in date_args]
    if len(date_args) < 2 or len(set(taken)) == len(taken):
        return args
    if len(dates) >= len(date_args):
        return {**args, **dict(zip(date_args, dates, strict=False))}
    required = date_arguments(tool, required_only=True)
    if len(dates) == 1 and len(date_args) == 2 and date_args == required:
        # One day for a required start and end ("any rooms then?" after Christmas Day):
        # a single day is one night, ending the next morning.
        start, end = date_args
        try:
            after = date.fromisoformat(dates[0]) + timedelta(days=1)
        except ValueError:
            return args
        return {**args, start: dates[0], end: after.isoformat()}
    return args


def with_start(args: dict[str, Any], ask: str) -> dict[str, Any]:
    """Give a value that is a stay's length alone the time the message starts it at.

    From "is there a room free on Friday for 2 nights?" the model copied "2 nights" as the
    date phrase: how long, but not when. The shortest span of the message holding it and
    a time ("Friday for 2 nights") says both.
    """
    fixed = {}
    for name, value in args.items():
        if isinstance(value, str) and is_length(value):
            whole = [s for s in spans_of(ask) if value in s and names_a_time(s)]
            value = min(whole, key=len, default=value)
        fixed[name] = value
    return fixed


def titled(args: dict[str, Any]) -> dict[str, Any]:
    """A title as a person writes it: capitalized, without naming another argument's value.

    Copied from "create a task to refresh the images for Thorinox", the title comes back as
    "refresh the images for Thorinox" next to "client": "Thorinox".
    """
    title = args.get("title")
    if not isinstance(title, str):
        return args
    others = [v for k, v in args.items() if k != "title" and isinstance(v, str) and v]
    for other in others:
        for joint in (" for ", " of ", " at "):
            if title.casefold().endswith(f"{joint}{other}".casefold()):
                title = title[: -len(joint + other)]
    if title[:1].islower():
        title = title[:1].upper() + title[1:]
    return {**args, "title": title}


def stay_length(args: dict[str, Any], tool: dict[str, Any], nights: int | None) -> dict[str, Any]:
    """End a stay the number of nights the message gives after it starts.

    "one night in Hanukkah" fills check_in and check_out from the holiday's first and last
    days; the person asked for the first night only.
    """
    date_args = [name for name in date_arguments(tool) if isinstance(args.get(name), str)]
    if nights is None or len(date_args) != 2:
        return args
    first, last = date_args
    try:
        start = date.fromisoformat(args[first])
    except ValueError:
        return args
    return {**args, last: (start + timedelta(days=nights)).isoformat()}
