"""The words the calendar pack reads days and counts by: weekdays, and counts as words.

The date reader and the time-phrase finder share them: weekdays written out or short, and
small counts written as words ("two nights").
"""

from __future__ import annotations

import re

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
SHORT_WEEKDAYS = {d[:3]: d for d in WEEKDAYS} | {"tues": "tuesday", "weds": "wednesday"}
SHORT_WEEKDAYS |= {"thur": "thursday", "thurs": "thursday"}
"""A weekday written short ("wed", "tues", "thurs"), and the day it names."""
_SHORT_WEEKDAY = re.compile(rf"\b({'|'.join(SHORT_WEEKDAYS)})\b\.?")

_COUNTS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
NUMBER_WORDS = {"a": 1, "an": 1} | {word: n for n, word in enumerate(_COUNTS, start=1)}


def weekdays_written_out(text: str) -> str:
    """`text` (lower case) with each weekday written short written out ("wed" → "wednesday")."""
    return _SHORT_WEEKDAY.sub(lambda short: SHORT_WEEKDAYS[short[1]], text)
