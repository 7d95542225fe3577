"""Turn natural-language date phrases ("next weekend", "January 17-19") into hotel-style stays.

Everything is relative to the run's date, passed in as `today`; nothing here reads the clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
FRIDAY, SATURDAY, SUNDAY = 4, 5, 6

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}

_COUNTS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
NUMBER_WORDS = {"a": 1, "an": 1} | {word: n for n, word in enumerate(_COUNTS, start=1)}

# Longest names first so "sept" is not read as "sep" followed by a stray "t".
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_NUMBER = r"\d+|" + "|".join(NUMBER_WORDS)
_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_SLASHED = re.compile(r"(\d{1,2})/(\d{1,2})(?:/(\d{2}|\d{4}))?")
_MONTH_DAY = re.compile(rf"({_MONTH})\.? (\d{{1,2}})(?: (\d{{4}}))?")
_DAY_MONTH = re.compile(rf"(\d{{1,2}}) (?:of )?({_MONTH})\.?(?: (\d{{4}}))?")
_BARE_DAY = re.compile(r"(\d{1,2})(?: (\d{4}))?")
_RANGE_SEPARATOR = re.compile(r"\s*(?:-|–|—|\bto\b|\bthrough\b|\bthru\b|\buntil\b|\btill\b)\s*")
_IN_DAYS = re.compile(rf"in ({_NUMBER}) (day|week)s?")
_NIGHTS_FROM = re.compile(rf"({_NUMBER}) nights? (?:from|starting|starting on|beginning) (.+)")
_FOR_NIGHTS = re.compile(rf"(.+) for ({_NUMBER}) nights?")
_WEEKDAY = re.compile(rf"(?:(this|next) )?({'|'.join(WEEKDAYS)})(?: night)?")

UNPARSEABLE = (
    "could not understand the date hint '{hint}': "
    "try e.g. 'next weekend', 'January 17-19' or 2025-01-17"
)


@dataclass(frozen=True)
class Stay:
    """A hotel-style stay: `check_out` is exclusive (the morning you leave)."""

    check_in: date
    check_out: date
    description: str

    @property
    def nights(self) -> int:
        """Number of nights between check-in and check-out."""
        return (self.check_out - self.check_in).days


@dataclass(frozen=True)
class _MonthDay:
    """An explicit calendar date whose year may be left for the reader to infer."""

    month: int
    day: int
    year: int | None


def parse_date_hint(hint: str, today: date) -> Stay:
    """Resolve a date phrase into a stay relative to `today`.

    Rules for the relative phrases (weeks start on Monday):
      * "this weekend": Friday check-in, Sunday check-out; on a Saturday or Sunday, the
        current weekend from today (Sunday gives one night, checking out Monday).
      * "next weekend": the Friday–Sunday of next calendar week, i.e. "this weekend" plus
        seven days (Monday 2025-01-06 gives 2025-01-17 to 2025-01-19).
      * "next week": Monday of next calendar week, seven nights.
      * "friday" / "this friday": the next Friday on or after today; "next friday": the
        Friday of next calendar week.
      * Dates without a year: the next such date on or after today.

    Args:
        hint: The phrase, e.g. "next weekend", "Jan 17 to Jan 19", "2 nights from friday".
        today: The run's date.

    Returns:
        The stay the phrase describes.

    Raises:
        ValueError: The phrase is not understood, names an impossible date, or ends before
            it starts.
    """
    text = _normalize(hint)
    stay = _relative_stay(text, today) or _stay_with_nights(text, hint, today)
    stay = stay or _range_stay(text, hint, today) or _single_night(text, hint, today)
    if stay is None:
        raise ValueError(UNPARSEABLE.format(hint=hint))
    return stay


def _normalize(hint: str) -> str:
    """Lower-case and drop the filler that does not change the meaning ("the", "17th", ",")."""
    text = hint.lower().replace(",", " ")
    text = re.sub(r"\b(\d{1,2})(?:st|nd|rd|th)\b", r"\1", text)
    text = re.sub(r"\bthe\b", " ", text)
    text = re.sub(r"^\s*(?:from|on|starting)\s+", "", text)
    return " ".join(text.split())


def _relative_stay(text: str, today: date) -> Stay | None:
    """Resolve the fixed phrases: today, tomorrow, weekends, next week, "in N days"."""
    this_friday = today + timedelta(days=(FRIDAY - today.weekday()) % 7)
    if today.weekday() in (SATURDAY, SUNDAY):
        this_friday = today - timedelta(days=today.weekday() - FRIDAY)
    next_monday = today + timedelta(days=7 - today.weekday())
    if text in ("today", "tonight"):
        return _nights(today, 1, "tonight")
    if text in ("tomorrow", "tomorrow night"):
        return _nights(today + timedelta(days=1), 1, "tomorrow night")
    if text in ("this weekend", "weekend", "this coming weekend"):
        check_in = max(this_friday, today)
        sunday = this_friday + timedelta(days=2)
        # On a Sunday the weekend's only remaining night is Sunday itself.
        check_out = sunday if check_in < sunday else sunday + timedelta(days=1)
        return Stay(check_in, check_out, _describe("this weekend", check_in, check_out))
    if text == "next weekend":
        check_in = this_friday + timedelta(days=7)
        return _nights(check_in, 2, "next weekend (Friday to Sunday of next calendar week)")
    if text == "next week":
        return _nights(next_monday, 7, "next week (Monday to Monday)")
    match = _IN_DAYS.fullmatch(text)
    if match:
        days = _number(match[1]) * (7 if match[2] == "week" else 1)
        return _nights(today + timedelta(days=days), 1, text)
    return None


def _stay_with_nights(text: str, hint: str, today: date) -> Stay | None:
    """Resolve "N nights from <day>" and "<day> for N nights"."""
    match = _NIGHTS_FROM.fullmatch(text)
    if match:
        count, start = _number(match[1]), match[2]
    else:
        match = _FOR_NIGHTS.fullmatch(text)
        if not match:
            return None
        start, count = match[1], _number(match[2])
    check_in = _parse_day(start, hint, today, today)
    if check_in is None:
        return None
    if count < 1:
        raise ValueError(f"the date hint '{hint}' asks for {count} nights; a stay needs one")
    return _nights(check_in, count, text)


def _range_stay(text: str, hint: str, today: date) -> Stay | None:
    """Resolve "<day> to <day>" ranges, letting either side borrow the other's month.

    Every separator is tried because ISO dates contain dashes themselves.
    """
    for separator in _RANGE_SEPARATOR.finditer(text):
        left, right = text[: separator.start()], text[separator.end() :]
        if not left or not right:
            continue
        left, right = _share_month(left, right)
        check_in = _parse_day(left, hint, today, today)
        if check_in is None:
            continue
        check_out = _parse_day(right, hint, today, check_in + timedelta(days=1))
        if check_out is None:
            continue
        if check_out <= check_in:
            raise ValueError(f"the date hint '{hint}' ends on or before the day it starts")
        return Stay(check_in, check_out, _describe(text, check_in, check_out))
    return None


def _share_month(left: str, right: str) -> tuple[str, str]:
    """Complete "January 17-19" and "17-19 January" so both ends name the month."""
    month_day, bare_day = _MONTH_DAY.fullmatch(left), _BARE_DAY.fullmatch(right)
    if month_day and bare_day:
        # "January 17-19 2025": the trailing year belongs to both ends.
        year = f" {bare_day[2] or month_day[3]}" if bare_day[2] or month_day[3] else ""
        return f"{month_day[1]} {month_day[2]}{year}", f"{month_day[1]} {bare_day[1]}{year}"
    day_month, bare_day = _DAY_MONTH.fullmatch(right), _BARE_DAY.fullmatch(left)
    if day_month and bare_day and not bare_day[2]:
        year = f" {day_month[3]}" if day_month[3] else ""
        return f"{bare_day[1]} {day_month[2]}{year}", right
    return left, right


def _single_night(text: str, hint: str, today: date) -> Stay | None:
    """Resolve a single day ("friday", "Dec 24", "12/24") into a one-night stay."""
    check_in = _parse_day(text, hint, today, today)
    return None if check_in is None else _nights(check_in, 1, text)


def _parse_day(text: str, hint: str, today: date, on_or_after: date) -> date | None:
    """Read one day; year-less dates and bare weekdays fall on or after `on_or_after`."""
    if text in ("today", "tonight"):
        return today
    if text in ("tomorrow", "tomorrow night"):
        return today + timedelta(days=1)
    weekday = _WEEKDAY.fullmatch(text)
    if weekday:
        target = WEEKDAYS.index(weekday[2])
        if weekday[1] == "next":
            next_monday = today + timedelta(days=7 - today.weekday())
            return next_monday + timedelta(days=target)
        return on_or_after + timedelta(days=(target - on_or_after.weekday()) % 7)
    explicit = _explicit_date(text)
    return None if explicit is None else _resolve(explicit, hint, on_or_after)


def _explicit_date(text: str) -> _MonthDay | None:
    """Match ISO, US-style "12/24[/2025]", "Dec 24 [2025]" or "24 Dec [2025]"."""
    if match := _ISO.fullmatch(text):
        return _MonthDay(int(match[2]), int(match[3]), int(match[1]))
    if match := _SLASHED.fullmatch(text):
        return _MonthDay(int(match[1]), int(match[2]), _year(match[3]))
    if match := _MONTH_DAY.fullmatch(text):
        return _MonthDay(MONTHS[match[1]], int(match[2]), _year(match[3]))
    if match := _DAY_MONTH.fullmatch(text):
        return _MonthDay(MONTHS[match[2]], int(match[1]), _year(match[3]))
    return None


def _year(digits: str | None) -> int | None:
    """Read an optional year, taking two digits ("12/24/25") as this century."""
    if not digits:
        return None
    return int(digits) + (2000 if len(digits) == 2 else 0)


def _resolve(when: _MonthDay, hint: str, on_or_after: date) -> date:
    """Pin a date to its year, the next valid one on or after `on_or_after` when unstated.

    Scanning eight years lets a year-less February 29 reach the next leap year.
    """
    years = [when.year] if when.year else range(on_or_after.year, on_or_after.year + 9)
    for year in years:
        try:
            candidate = date(year, when.month, when.day)
        except ValueError:
            continue
        if when.year or candidate >= on_or_after:
            return candidate
    raise ValueError(
        f"the date hint '{hint}' names a date that does not exist "
        f"(month {when.month}, day {when.day})"
    )


def _number(word: str) -> int:
    """Read a count written as digits or a small English word."""
    return int(word) if word.isdigit() else NUMBER_WORDS[word]


def _nights(check_in: date, count: int, label: str) -> Stay:
    """Build a stay of `count` nights starting on `check_in`."""
    check_out = check_in + timedelta(days=count)
    return Stay(check_in, check_out, _describe(label, check_in, check_out))


def _describe(label: str, check_in: date, check_out: date) -> str:
    """Say what the stay is in one line, weekdays included so the model can sanity-check."""
    nights = (check_out - check_in).days
    return (
        f"{label}: check in {check_in:%A} {check_in.isoformat()}, "
        f"check out {check_out:%A} {check_out.isoformat()} "
        f"({nights} night{'s' if nights != 1 else ''})"
    )
