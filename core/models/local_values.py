"""What a message offers a tool call to copy: its word spans, names and dates."""

from __future__ import annotations

import re
from datetime import date

from core.db.search import STOPWORDS
from core.models.local_prompt import today_line

MAX_SPAN_WORDS = 8
MAX_SPAN_SOURCE_WORDS = 60
"""Spans are taken from the message's first words only: the grammar grows with their square."""
MAX_VALUE_CHARS = 300
EDGE = " \t\n\"'`.,;:!?()[]{}<>"

ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DAY_MONTH = re.compile(
    rf"\b(?:{_MONTH}\s+(\d{{1,2}})|(\d{{1,2}})\s+{_MONTH})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b",
    re.IGNORECASE,
)
_RANGE_END = re.compile(r"\s*(?:-|–|to|until|through)\s*(\d{1,2})\b", re.IGNORECASE)
"""The end of a range written after a day: "January 17-19", "Dec 4 to 6"."""
_FUNCTION_WORDS = STOPWORDS | frozenset(
    {"that", "these", "those", "its", "them", "they", "so", "then", "there", "here"}
)
"""Words that name nothing alone: the workspace search's stopwords and a few more."""
_COUNTS = ("one", "two", "three", "four", "five", "six", "seven")
_NIGHTS = re.compile(rf"\b(\d{{1,2}}|{'|'.join(_COUNTS)})\s+nights?\b", re.IGNORECASE)


def dates_in(text: str, today: date | None) -> list[str]:
    """The ISO dates `text` holds: written as such, then named ("December 18")."""
    return ISO_DATE.findall(text) + _named_dates(text, today)


def without_dates(text: str) -> str:
    """`text` with its dates cut out, so their day numbers are not read as counts."""
    text = ISO_DATE.sub(" ", text)
    kept, at = [], 0
    for match in _DAY_MONTH.finditer(text):
        end = _RANGE_END.match(text, match.end())
        kept.append(text[at : match.start()])
        at = end.end() if end is not None else match.end()
    return " ".join([*kept, text[at:]])


def today_of(system: str) -> date | None:
    """The run's date, from the system prompt's "Today is ... YYYY-MM-DD" sentence."""
    found = ISO_DATE.search(today_line(system))
    return date.fromisoformat(found.group(0)) if found else None


def _named_dates(text: str, today: date | None) -> list[str]:
    """ISO dates for "December 18" / "18 Dec 2027" / "January 17-19" in `text`.

    Without a year, the next such day; a range's end is in the same month.

    The grammar can only take a date the turn holds, and a person writes month names.
    """
    found = []
    for match in _DAY_MONTH.finditer(text):
        month_name, day, day_first, month_after, year = match.groups()
        month = _MONTHS.index((month_name or month_after).casefold()[:3]) + 1
        try:
            if year:
                when = date(int(year), month, int(day or day_first))
            elif today is not None:
                when = date(today.year, month, int(day or day_first))
                if when < today:
                    when = when.replace(year=today.year + 1)
            else:
                continue
            found.append(when.isoformat())
            end = _RANGE_END.match(text, match.end())
            if end is not None:
                found.append(when.replace(day=int(end.group(1))).isoformat())
        except ValueError:
            continue  # "February 30"
    return found


def is_length(text: str) -> bool:
    """Whether `text` is a stay's length alone ("2 nights"): how long, but not when."""
    return _NIGHTS.fullmatch(text.strip(EDGE)) is not None


def nights_in(text: str) -> int | None:
    """The number of nights a message asks for ("one night", "3 nights"), or None."""
    found = _NIGHTS.search(text)
    if found is None:
        return None
    count = found.group(1).casefold()
    return int(count) if count.isdigit() else _COUNTS.index(count) + 1


def name_like(span: str, message: str) -> bool:
    """A span starting with a capitalized word that does not open the message, or a number.

    Optional arguments narrow a lookup to a client, a brand, a person, a place: the message
    names those with proper nouns, while its other words fill them with noise.
    """
    first = span.split()[0]
    opens = message.lstrip(EDGE).startswith(first)
    return any(c.isdigit() for c in first) or (first[:1].isupper() and not opens)


def spans_of(text: str) -> list[str]:
    """Word n-grams of `text` (edge punctuation stripped), longest first, and `text` itself.

    An n-gram of function words alone ("that", "to the") names nothing an argument could
    take: "remember that Thorinox prefers email" had filled the note with "that".
    """
    words = text.split()[:MAX_SPAN_SOURCE_WORDS]
    spans = [text.strip(EDGE)[:MAX_VALUE_CHARS]] if len(text) <= MAX_VALUE_CHARS else []
    for size in range(min(MAX_SPAN_WORDS, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            span = " ".join(words[start : start + size]).strip(EDGE)
            if span and not all(w.strip(EDGE).casefold() in _FUNCTION_WORDS for w in span.split()):
                spans.append(span)
    return spans
