"""Where a message says a time: the phrases the date reader reads, found without a model.

`resolve_date_hint` declares this as what it `finds`. A model with no grammar of its own (the
embedded one) learns from it which words of a message are a time to read, not text: the
"next Friday" in "add a task to call Distex next Friday" is the due date, not the title.
"""

from __future__ import annotations

import calendar
import re
from datetime import date
from functools import cache

import holidays

from tools.calendar.day_words import NUMBER_WORDS, SHORT_WEEKDAYS, WEEKDAYS
from tools.calendar.holiday_lookup import ALIASES, DEFAULT_CALENDARS, FIXED_DATE_OBSERVANCES

RELATIVE = ("today", "tonight", "tomorrow", "yesterday", "weekend", "week", "fortnight", "month")
_TWO_AHEAD = ("the day after tomorrow", "day after tomorrow")  # one time, not "tomorrow" in it
_AMOUNT = rf"(?:\d+|{'|'.join(NUMBER_WORDS)})\s+"
_COUNT = rf"(?:{_AMOUNT}|an?\s+)(?:day|week|fortnight|month)s?"
_OFFSET = (
    rf"in\s+{_COUNT}|{_COUNT}\s+(?:(?:(?:out|ahead|away)\s+)?from\s+(?:today|now|tomorrow)"
    rf"|later|ago|out(?!\s+of\b)|ahead|away)"
)
"""A time some days, weeks or months from now ("in two weeks", "3 days from today", "a week out";
not "three days out of stock")."""
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_NUMERIC = r"\d{1,4}/\d{1,2}(?:/\d{1,4})?|\d{4}-\d{2}-\d{2}"
_RANGE = r"\s*(?:-|–|to|until|till|through|thru)\s*"
_MONTHS = (*calendar.month_name, *calendar.month_abbr)
_AMBIGUOUS = frozenset({n.casefold() for n in _MONTHS if n} | {"mon", "wed", "sat", "sun"})
"""Month names and the short names that are words of their own elsewhere ("may", "sat")."""
_WEEKDAY = "|".join(sorted((*WEEKDAYS, *SHORT_WEEKDAYS), key=len, reverse=True))
_WEEK = r"(?:this|next)\s+week"
_WEEKDAYS = (
    rf"(?:(?:(?:this|next)\s+)?week(?:'s)?:?\s+)?(?:{_WEEKDAY})\.?{_RANGE}(?:{_WEEKDAY})\b\.?"
    rf"(?:,?\s+(?:of\s+)?{_WEEK}\b)?"
)
"""A range of weekdays, written out or short ("wed through fri", "tues-thurs"): a time, whatever
its words alone could be; with its week, one time ("wed through fri next week")."""
_REFERS_BACK = re.compile(r"\bthat\s+$", re.IGNORECASE)
_ARRIVES = re.compile(
    r"\b(?:arriv(?:e|es|ing|al)|check(?:s|ing)?[ -]?in|in\s+on)(?:\s+on)?\s+$", re.IGNORECASE
)
_LEAVES = re.compile(
    r",?\s+(?:and\s+)?(?:leav(?:e|es|ing)|depart(?:s|ing)?|check(?:s|ing)?[ -]?out|out)"
    r"(?:\s+on)?\s+",
    re.IGNORECASE,
)
"""Said before a day and between it and a later one, the two are a stay's first night and its
departure ("arriving Friday, leaving Sunday"): one time, from the arrival's word."""
_LENGTH = re.compile(rf"\b(?:for\s+)?{_AMOUNT}nights?\b", re.IGNORECASE)
"""A stay's length ("for three nights"): a time of its own where no start said holds it."""


def time_phrases(text: str, today: date) -> list[tuple[int, int]]:
    """Where `text` says a time: the (start, end) of each such word or phrase.

    A calendar name that is also a common word ("may", "march", "sat") counts only written
    as a name, capitalized or beside a number. A time after "that" refers back ("that weekend")
    unless it says which anew ("that next Friday") or gives a day's number ("make that the
    14th"). Holidays are those of `today`'s year and the next, in the calendars
    `resolve_holiday` searches, and the other names it resolves ("Presidents Day", "xmas"). A
    stay's length said alone ("make it three nights") or apart from a day written out ("Dec 10,
    3 nights") is a time too: it counts from a first night.
    """
    spans = []
    for found in _pattern(today.year).finditer(text):
        word = found.group(0)
        common = word.casefold() in _AMBIGUOUS and not word[:1].isupper()
        # before a day's number "that" is a pronoun, not "that Friday": "make that the 14th"
        anew = found["which"] or any(c.isdigit() for c in word)
        back = _REFERS_BACK.search(text[: found.start()]) and not anew
        if not (common or back):
            spans.append(found.span())
    spans = _stays(text, spans)
    # "Dec 10, 3 nights": a length apart from a day written out is a time too; a relative
    # time ("for 2 nights next weekend") is read by its own rules, the length left aside
    written = all(any(c.isdigit() for c in text[a:b]) for a, b in spans)
    lengths = [f.span() for f in _LENGTH.finditer(text) if written]
    return sorted(
        [*spans, *(f for f in lengths if not any(a < f[1] and f[0] < b for a, b in spans))]
    )


def _stays(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` with each arrival day and the departure day said after it as one (`_LEAVES`)."""
    joined: list[tuple[int, int]] = []
    for start, end in spans:
        arrives = _ARRIVES.search(text[: joined[-1][0]]) if joined else None
        if arrives and _LEAVES.fullmatch(text[joined[-1][1] : start]):
            joined[-1] = (arrives.start(), end)
        else:
            joined.append((start, end))
    return joined


@cache
def _pattern(year: int) -> re.Pattern[str]:
    months = [n.casefold() for n in (*calendar.month_name, *calendar.month_abbr) if n]
    names = {*months, *WEEKDAYS, *SHORT_WEEKDAYS, *RELATIVE, *_TWO_AHEAD}
    for country in DEFAULT_CALENDARS:
        categories = holidays.country_holidays(country).supported_categories
        found = holidays.country_holidays(country, years=(year, year + 1), categories=categories)
        names |= {_holiday(name) for value in found.values() for name in value.split("; ")}
    names |= {_holiday(name) for name in (*ALIASES, *FIXED_DATE_OBSERVANCES)}  # as it resolves
    words = "|".join(sorted((re.escape(n) for n in names if n), key=len, reverse=True))
    # A name with the days and year written beside it: "10 December", "Dec 20-22, 2026".
    named = (
        rf"(?P<which>(?:this|next|coming|last)\s+)*(?:(?:the\s+)?{_DAY}\s+(?:of\s+)?)?(?:{_WEEKDAYS}|{words})(?:'s)?(?:\s+(?:day|eve|after\s+next))?"
        rf"(?:\s+{_DAY})?(?:{_RANGE}(?:the\s+)?{_DAY})?(?:,?\s+\d{{4}})?"
    )
    ordinal = r"(?:the\s+)?\d{1,2}(?:st|nd|rd|th)"  # "the 19th through the 21st of December"
    ordinals = rf"{ordinal}(?:{_RANGE}(?:the\s+)?{_DAY})?(?:\s+of\s+(?:{'|'.join(months)}))?"
    # A stay's length is read with its start: "two nights from May 8", "May 8 for 3 nights".
    stay = rf"(?:{_AMOUNT}nights?\s+(?:from|starting(?:\s+on)?|beginning)\s+)?"
    when = rf"{stay}(?:{_OFFSET}|{named}|{ordinals}|{_NUMERIC})(?:\s+for\s+{_AMOUNT}nights?)?"
    return re.compile(rf"\b{when}\b", re.IGNORECASE)


def _holiday(name: str) -> str:
    """A holiday's name as people say it: "Christmas Day (observed)" → "christmas"."""
    name = re.sub(r"\s*\(.*?\)|\b(?:day|eve|sunday|monday)$|'s\b", " ", name.casefold())
    return " ".join(name.split())
