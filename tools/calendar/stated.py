"""The dates a message writes out ("January 17-19", "in Dec 8, out Dec 11"), read as stays.

Every model sees them (`dates_said`), so none need call the date reader for them. A day said
as the arrival and another as the departure are one stay; a first night said with no end
("from December 10") is stated without a check-out: how long is for the model to ask.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from tools.calendar.date_hints import (
    DATE_SHAPED,
    DAY_MONTH,
    NUMBER,
    RANGE_SEPARATOR,
    count_of,
    normalize,
    parse_date_hint,
)
from tools.calendar.stays import Stay, describe, nights

# A date written out, alone or as a range. A day in "the week(end) of December 12" is not the
# stay, so it is left to the date reader.
_END = rf"(?:(?:{DATE_SHAPED.pattern})|\d{{1,2}}\b(?![ -]nights?\b))"  # not "Dec 10 - 3 nights"
_STATED = re.compile(
    rf"\b(?<!week of )(?<!weekend of )(?:(?:{NUMBER}) nights? (?:from|starting|beginning) )?"
    rf"(?:(?:\d{{1,2}}{RANGE_SEPARATOR.pattern}|between \d{{1,2}} and )(?:{DAY_MONTH.pattern})"
    rf"|between (?:{DATE_SHAPED.pattern}) and {_END}"
    rf"|(?:{DATE_SHAPED.pattern})(?:(?:{RANGE_SEPARATOR.pattern}){_END})?)"
    rf"(?: for (?:{NUMBER}) nights?)?"
)
_ARRIVES = re.compile(
    r"\b(?:from|starting|beginning|arriv(?:e|es|ing|al)|check(?:ing)?[ -]?in)(?: on)? $"
)
"""Said just before a day, it is the first night ("from", "arriving", "checking in on")."""
_LEAVES = re.compile(
    r"\b(?:check(?:ing)?[ -]?out|leav(?:e|es|ing)|depart(?:s|ing|ure)?|out|until|till)(?: on)? $"
)
"""Said just before a later day, it is the departure ("leaving", "check out on", "out")."""
_LENGTH = re.compile(rf"\b({NUMBER})[ -]nights?\b")


@dataclass(frozen=True)
class StatedStay:
    """A stay the message writes out, and the words that say it."""

    said: str
    stay: Stay
    open: bool = False
    """Only its first night is said ("from December 10"): the check-out is not known."""

    def fields(self) -> dict[str, Any]:
        """The stay as the date reader returns it; an open one without a check-out."""
        if not self.open:
            return self.stay.fields(self.said)
        start = self.stay.check_in
        return {
            "hint": self.said,
            "check_in": start.isoformat(),
            "description": f"{self.said}: check in {start:%A} {start}; the check-out is not said",
        }


def stated_stays(text: str, today: date) -> list[StatedStay]:
    """The dates `text` writes out ("January 17-19", "Dec 4 to 6", "2027-01-17"), as stays.

    Phrases relative to today ("next weekend") and holidays are left to the calendar's tools;
    a date that cannot be read here (or is past) is left out, for them to explain.
    """
    said = normalize(text)
    found: list[tuple[int, int, StatedStay]] = []
    for match in _STATED.finditer(said):
        phrase = match[0].removeprefix("between ").replace(" and ", " to ")
        try:
            stay = parse_date_hint(phrase, today)
        except ValueError:
            continue
        stated = StatedStay(match[0], stay)
        if _single(stated) and _ARRIVES.search(said[: match.start()]):
            stated = StatedStay(match[0], stay, open=True)
        found.append((match.start(), match.end(), stated))
    return _joined(found, said)


def _joined(found: list[tuple[int, int, StatedStay]], said: str) -> list[StatedStay]:
    """Each day said as a departure ends the single day said before it: one stay of both.

    A day said alone, or a first night left open, is as many nights as the message says apart
    ("Dec 10, 3 nights", "a 3-night stay from Dec 10"); a length said beside it is read with it.
    """
    stays: list[StatedStay] = []
    for number, (start, _, stated) in enumerate(found):
        before = stays[-1] if stays else None
        leaves = _LEAVES.search(said[found[number - 1][1] if number else 0 : start])
        if before and leaves and _single(before) and _single(stated):
            first, last = before.stay.check_in, stated.stay.check_in
            if last > first:
                phrase = f"{before.said} to {stated.said}"
                stays[-1] = StatedStay(phrase, Stay(first, last, describe(phrase, first, last)))
                continue
        stays.append(stated)
    length = _LENGTH.search(said)
    if length and len(stays) == 1 and (stays[0].open or _single(stays[0])):
        count = count_of(length[1])
        phrase = f"{stays[0].said} for {count} night{'s' * (count != 1)}"
        return [StatedStay(phrase, nights(stays[0].stay.check_in, count, phrase))]
    return [StatedStay(s.said, s.stay) if s.open and length else s for s in stays]


def _single(stated: StatedStay) -> bool:
    """A day said alone: one night, not a range nor a count of nights."""
    phrase = stated.said
    return stated.stay.nights == 1 and not RANGE_SEPARATOR.search(phrase) and "night" not in phrase
