"""Turn natural-language date phrases ("next weekend", "January 17-19") into hotel-style stays.

Weekends, weeks, weekday names, "N nights" and ranges follow this project's rules; a single
day ("Dec 24", "12/24", "the day after tomorrow", "in a fortnight") is read by `dateparser`.
Everything is relative to the run's date, passed in as `today`; nothing here reads the clock.
"""

from __future__ import annotations

import calendar
import re
from contextlib import suppress
from datetime import date, datetime, time, timedelta
from typing import Any

from dateparser.date import DateDataParser

from tools.calendar.day_words import NUMBER_WORDS, WEEKDAYS, week_said_first, weekdays_written_out
from tools.calendar.stays import Stay, describe, nights

FRIDAY, SATURDAY, SUNDAY = 4, 5, 6

_MONTH_NAMES = {n.lower() for n in (*calendar.month_name, *calendar.month_abbr) if n} | {"sept"}
# Longest names first so "sept" is not read as "sep" followed by a stray "t".
_MONTH = "|".join(sorted(_MONTH_NAMES, key=len, reverse=True))
NUMBER = r"\d+|" + "|".join(NUMBER_WORDS)
_MONTH_DAY = re.compile(rf"({_MONTH})\.? (\d{{1,2}})(?: (\d{{4}}))?")
DAY_MONTH = re.compile(rf"(\d{{1,2}}) (?:of )?({_MONTH})\.?(?: (\d{{4}}))?")
_BARE_DAY = re.compile(r"(\d{1,2})(?: (\d{4}))?")
# The shapes of a calendar date: when dateparser rejects one, the date does not exist.
DATE_SHAPED = re.compile(
    rf"\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?"
    rf"|{_MONTH_DAY.pattern}|{DAY_MONTH.pattern}"
)
RANGE_SEPARATOR = re.compile(r"\s*(?:-|–|—|\bto\b|\bthrough\b|\bthru\b|\buntil\b|\btill\b)\s*")
_NIGHTS_FROM = re.compile(rf"({NUMBER}) nights? (?:from|starting|starting on|beginning) (.+)")
_FOR_NIGHTS = re.compile(rf"(.+) for ({NUMBER}) nights?")
# A stay's length alone ("for three nights"): read from a first night given apart.
_LENGTH = re.compile(rf"(?:for )?(?:{NUMBER}) nights?")
# "ten days out", "3 weeks ahead": read as "in ten days", which dateparser reads.
_AHEAD = re.compile(
    rf"\b((?:{NUMBER}) (?:day|week|fortnight|month)s?) (?:out(?! of\b)|ahead|away)(?: from now)?\b"
)
# How long, not when: dateparser would read "3 weeks" as "in 3 weeks".
_ARRIVAL_AND_DEPARTURE = re.compile(
    r"^(?:arriv\w*|check\w* ?-?in|in on)(?: on)? (.+?) (?:and )?"
    r"(?:leav\w*|depart\w*|check\w* ?-?out|out)(?: on)? (.+)$"
)
_DURATION = re.compile(rf"(?:{NUMBER}) (?:day|week|month|year)s?")
_WEEKDAY = re.compile(
    rf"(?:(this|next|coming|this coming) )?({'|'.join(WEEKDAYS)})(?:'s)?(?: night)?"
)

UNPARSEABLE = (
    "could not understand the date hint '{hint}': "
    "try e.g. 'next weekend', 'January 17-19' or 2025-01-17"
)


def parse_date_hint(hint: str, today: date, check_in: date | None = None) -> Stay:
    """Resolve a date phrase into a stay relative to `today`.

    A phrase that says only how many nights ("for 3 nights") counts them from `check_in`, and
    is refused without one.

    Rules for the relative phrases (weeks start on Monday):
      * "this weekend": Friday check-in, Sunday check-out; on a Saturday or Sunday, the
        current weekend from today (Sunday gives one night, checking out Monday).
      * "next weekend": the Friday–Sunday of next calendar week, i.e. "this weekend" plus
        seven days (Monday 2025-01-06 gives 2025-01-17 to 2025-01-19).
      * "this week": today to Sunday, checking out the Monday after (on a Sunday, one night).
      * "next week": Monday of next calendar week, seven nights; "the week after next" and
        "the weekend after next" are a week later than "next week" and "next weekend".
      * "friday" / "this friday" / "the coming friday" / "friday's": the next Friday on or
        after today; "next friday": the Friday of next calendar week.
      * Dates without a year: the next such date on or after today; a day of the month
        said alone ("the 19th to the 21st"), the next such day.
      * Other phrases of one day ("in 3 days", "the day after tomorrow", "in a fortnight"):
        as dateparser reads them from today; slashed dates are month first (US).

    Args:
        hint: The phrase, e.g. "next weekend", "Jan 17 to Jan 19", "2 nights from friday".
        today: The run's date.
        check_in: The first night a phrase of a length alone counts from.

    Returns:
        The stay the phrase describes.

    Raises:
        ValueError: The phrase is not understood, names an impossible date, or ends before
            it starts.
    """
    text = normalize(hint)
    if _LENGTH.fullmatch(text):
        if check_in is None:
            raise ValueError(
                f"the date hint '{hint}' says how many nights but not from when: "
                "give the first night too, e.g. '2 nights from friday'"
            )
        text = f"{check_in.isoformat()} for {text.removeprefix('for ')}"
    stay = _relative_stay(text, today) or _stay_with_nights(text, hint, today)
    stay = stay or _range_stay(text, hint, today) or _single_night(text, hint, today)
    if stay is None:
        raise ValueError(UNPARSEABLE.format(hint=hint))
    return stay


def normalize(hint: str) -> str:
    """Lower-case and drop the filler that does not change the meaning ("the", "17th", ",").

    Two-digit years become this century's ("12/24/25" is 2025, never 2125), a weekday written
    short is written out ("tues-thurs"), a weekday range's week is said first ("next wed-fri"),
    "from today" reads as "from now", which dateparser counts forward from, and "ten days out"
    (or ahead, or away) as "in ten days".
    """
    text = hint.lower().replace(",", " ")
    text = re.sub(r"\b(\d{1,2})(?:st|nd|rd|th)\b", r"\1", text)
    text = re.sub(r"\b(\d{1,2}/\d{1,2}/)(\d{2})\b", r"\g<1>20\2", text)
    text = re.sub(r"\bthe\b", " ", text)
    text = weekdays_written_out(text)
    text = re.sub(r"\bfrom today\b", "from now", text)
    text = re.sub(_AHEAD, r"in \1", text)  # "ten days out", "3 weeks ahead": "in ten days"
    text = re.sub(r"^\s*(?:from|on|starting)\s+", "", text)
    text = re.sub(_ARRIVAL_AND_DEPARTURE, r"\1 to \2", text.strip())  # "arriving fri leaving sun"
    return week_said_first(" ".join(text.split()))


def _relative_stay(text: str, today: date) -> Stay | None:
    """Resolve this project's fixed phrases: weekends, this week and next week."""
    this_friday = today + timedelta(days=(FRIDAY - today.weekday()) % 7)
    if today.weekday() in (SATURDAY, SUNDAY):
        this_friday = today - timedelta(days=today.weekday() - FRIDAY)
    if text in ("this weekend", "weekend", "this coming weekend"):
        check_in = max(this_friday, today)
        sunday = this_friday + timedelta(days=2)
        # On a Sunday the weekend's only remaining night is Sunday itself.
        check_out = sunday if check_in < sunday else sunday + timedelta(days=1)
        return Stay(check_in, check_out, describe("this weekend", check_in, check_out))
    later = {"next weekend": (7, "of next calendar week"), "weekend after next": (14, "after it")}
    if text in later:
        days, which = later[text]
        return nights(this_friday + timedelta(days=days), 2, f"{text} (Friday to Sunday {which})")
    if text in ("this week", "rest of this week", "rest of week"):
        next_monday = today + timedelta(days=7 - today.weekday())
        return Stay(today, next_monday, describe("this week (to Sunday)", today, next_monday))
    if text in ("next week", "week after next"):
        monday = today + timedelta(days=7 - today.weekday() + 7 * (text != "next week"))
        return nights(monday, 7, f"{text} (Monday to Monday)")
    return None


def _stay_with_nights(text: str, hint: str, today: date) -> Stay | None:
    """Resolve "N nights from <day>" and "<day> for N nights"."""
    match = _NIGHTS_FROM.fullmatch(text)
    if match:
        count, start = count_of(match[1]), match[2]
    else:
        match = _FOR_NIGHTS.fullmatch(text)
        if not match:
            return None
        start, count = match[1], count_of(match[2])
    check_in = _parse_day(start, hint, today, today)
    if check_in is None:
        return None
    if count < 1:
        raise ValueError(f"the date hint '{hint}' asks for {count} nights; a stay needs one")
    return nights(check_in, count, text)


def _range_stay(text: str, hint: str, today: date) -> Stay | None:
    """Resolve "<day> to <day>" ranges, letting either side borrow the other's month.

    Every separator is tried because ISO dates contain dashes themselves.
    """
    for separator in RANGE_SEPARATOR.finditer(text):
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
        return Stay(check_in, check_out, describe(text, check_in, check_out))
    return None


def _share_month(left: str, right: str) -> tuple[str, str]:
    """Complete "January 17-19" and "17-19 January" so both ends name the month."""
    month_day, bare_day = _MONTH_DAY.fullmatch(left), _BARE_DAY.fullmatch(right)
    if month_day and bare_day:
        # "January 17-19 2025": the trailing year belongs to both ends.
        year = f" {bare_day[2] or month_day[3]}" if bare_day[2] or month_day[3] else ""
        return f"{month_day[1]} {month_day[2]}{year}", f"{month_day[1]} {bare_day[1]}{year}"
    day_month, bare_day = DAY_MONTH.fullmatch(right), _BARE_DAY.fullmatch(left)
    if day_month and bare_day and not bare_day[2]:
        year = f" {day_month[3]}" if day_month[3] else ""
        return f"{bare_day[1]} {day_month[2]}{year}", right
    return left, right


def _single_night(text: str, hint: str, today: date) -> Stay | None:
    """Resolve a single day ("friday", "Dec 24", "12/24") into a one-night stay."""
    check_in = _parse_day(text, hint, today, today)
    return None if check_in is None else nights(check_in, 1, text)


def _parse_day(text: str, hint: str, today: date, on_or_after: date) -> date | None:
    """Read one day; year-less dates and bare weekdays fall on or after `on_or_after`.

    Phrases counted from a day ("tomorrow", "in 3 days") count from `today`, and may not
    reach back before it ("yesterday", "3 days ago").
    """
    weekday = _WEEKDAY.fullmatch(text)
    if weekday:
        target = WEEKDAYS.index(weekday[2])
        if weekday[1] == "next":
            next_monday = today + timedelta(days=7 - today.weekday())
            return next_monday + timedelta(days=target)
        return on_or_after + timedelta(days=(target - on_or_after.weekday()) % 7)
    ordinal = _BARE_DAY.fullmatch(text)
    if ordinal and not ordinal[2] and re.search(rf"\b0?{ordinal[1]}(?:st|nd|rd|th)\b", hint):
        return _next_day_of_month(int(ordinal[1]), on_or_after)
    midnight = datetime.combine(today, time.min)
    counted = None if _DURATION.fullmatch(text) else _dateparser(text, "relative-time", midnight)
    if counted is not None and counted < midnight:
        raise ValueError(f"the date hint '{hint}' is in the past ({counted:%Y-%m-%d})")
    if counted is not None:
        return counted.date()
    # Just before `on_or_after`, so that a year-less date on that very day stays there
    # (dateparser moves a date equal to its base to the next year).
    base = datetime.combine(on_or_after, time.min) - timedelta(microseconds=1)
    named = _dateparser(text, "absolute-time", base)
    if named is None and DATE_SHAPED.fullmatch(text):
        raise ValueError(f"the date hint '{hint}' names a date that does not exist ({text})")
    return None if named is None else named.date()


def _next_day_of_month(day: int, on_or_after: date) -> date | None:
    """The first date on or after `on_or_after` that is the `day`th of its month."""
    for later in range(13):  # a 31st may be a month away, never a year
        year, month = divmod(on_or_after.month - 1 + later, 12)
        with suppress(ValueError):
            if (found := date(on_or_after.year + year, month + 1, day)) >= on_or_after:
                return found
    return None


def _dateparser(text: str, parser: str, base: datetime) -> datetime | None:
    """Read one day with dateparser, offline and deterministic: English, from a fixed base.

    A phrase that names a month or a year ("next month") is not a day, so it is not read.
    """
    absolute = parser == "absolute-time"
    settings: dict[str, Any] = {
        "RELATIVE_BASE": base,
        "PREFER_DATES_FROM": "future",
        "PARSERS": [parser],
        "DATE_ORDER": "MDY",
        # An absolute date names its day and month; "Dec" alone or "the 15th" is too vague.
        "REQUIRE_PARTS": ["day", "month"] if absolute else [],
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    data = DateDataParser(languages=["en"], settings=settings).get_date_data(text)
    return data.date_obj if data.period in ("day", "week") else None


def count_of(word: str) -> int:
    """Read a count written as digits or a small English word."""
    return int(word) if word.isdigit() else NUMBER_WORDS[word]
