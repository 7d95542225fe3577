"""The words the calendar pack reads days and counts by: weekdays, and counts as words.

The date reader and the time-phrase finder share them: weekdays written out or short, and
small counts written as words ("two nights"); a range of weekdays said with its week.
"""

from __future__ import annotations

import re

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
SHORT_WEEKDAYS = {d[:3]: d for d in WEEKDAYS} | {"tues": "tuesday", "weds": "wednesday"}
SHORT_WEEKDAYS |= {"thur": "thursday", "thurs": "thursday"}
"""A weekday written short ("wed", "tues", "thurs"), and the day it names."""
_SHORT_WEEKDAY = re.compile(rf"\b({'|'.join(SHORT_WEEKDAYS)})\b\.?")
_DAY = "|".join(WEEKDAYS)
_WEEK_OF_DAYS = re.compile(
    rf"\b(?:(?P<before>this|next) week(?:'s)?:? )?"
    rf"(?P<days>(?:{_DAY}) ?(?:-|–|to|through|thru|until|till) ?(?:{_DAY}))\b"
    rf"(?: (?:of )?(?P<after>this|next) week\b)?"
)

_COUNTS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
NUMBER_WORDS = {"a": 1, "an": 1} | {word: n for n, word in enumerate(_COUNTS, start=1)}


def weekdays_written_out(text: str) -> str:
    """`text` (lower case) with each weekday written short written out ("wed" → "wednesday")."""
    return _SHORT_WEEKDAY.sub(lambda short: SHORT_WEEKDAYS[short[1]], text)


def week_said_first(text: str) -> str:
    """`text` (weekdays written out) with a weekday range's week said first, as read.

    "wednesday to friday next week" → "next wednesday to friday"; "this week" is dropped: the
    range alone is its days on or after today.
    """

    def first(found: re.Match[str]) -> str:
        week = "next " if "next" in (found["before"], found["after"]) else ""
        return f"{week}{found['days']}"

    return _WEEK_OF_DAYS.sub(first, text)
