"""Whether a message says when in words ("next weekend", "tomorrow", "Friday", "12/24").

These are the phrases no date written out stands for: a date-hint reading turns them into
dates. The graph offers that reading for a follow-up that changes only when; the local
model does not fill a date argument from an earlier exchange when the message says its own.
"""

from __future__ import annotations

import re

FOLLOW_UP_WORDS = 4
"""At most this many words make a follow-up ("the Distex one", "what about next weekend?")."""
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_TIME = re.compile(
    rf"\b(?:today|tonight|tomorrow|weekend|fortnight|(?:this|next) week|{'|'.join(_WEEKDAYS)}"
    r"|in \d+ (?:days?|weeks?)|\d{1,2}/\d{1,2})\b",
    re.IGNORECASE,
)


_HOLIDAY = re.compile(
    r"\b(?:(?:christmas|new year'?s?)(?: eve| day)?|xmas|hanukk?ah|chanukk?ah|thanksgiving"
    r"|easter(?: sunday| monday)?|good friday"
    r"|passover|pesach|halloween|valentine'?s|diwali|rosh hashanah|yom kippur|sukkot|purim"
    r"|independence day|memorial day|labou?r day|juneteenth|boxing day|mlk day"
    r"|presidents'? day)\b",
    re.IGNORECASE,
)
"""Holidays people ask about by name; a holiday lookup, not a date-hint reading, dates them."""


def says_when(text: str) -> bool:
    """Whether `text` says when in words: a time a date hint reads, or a holiday's name.

    "any rooms over Thanksgiving?" asks about Thanksgiving's dates, whatever dates the
    previous exchange held.
    """
    return names_a_time(text) or _HOLIDAY.search(text) is not None


def holidays_in(text: str) -> list[str]:
    """The holiday names `text` says, as written ("New Year's Eve")."""
    return [found.group(0) for found in _HOLIDAY.finditer(text)]


def without_holidays(text: str) -> str:
    """`text` with its holiday names cut out: "New" of "New Year's Eve" names no one."""
    return _HOLIDAY.sub(" ", text)


def names_a_time(text: str) -> bool:
    """Whether `text` says when in words only a date-hint reading turns into dates.

    "Do we have a room free next weekend?" after an exchange about a task due December 4
    is about next weekend, not December 4.
    """
    return _TIME.search(text) is not None


def few_words(message: str) -> bool:
    """Whether `message` is short enough to be a follow-up (`FOLLOW_UP_WORDS`)."""
    return len(message.split()) <= FOLLOW_UP_WORDS


def changes_only_when(message: str) -> bool:
    """A follow-up of a few words that says a time ("and tomorrow?", "what about friday?").

    It asks what the previous exchange asked, for another time.
    """
    return few_words(message) and names_a_time(message)
