"""The calendar pack's tools and source: holiday names and date phrases, against the run's date."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from typing import Any

from pydantic import BaseModel, Field

from core.state import Source
from tools.calendar.date_hints import parse_date_hint
from tools.calendar.day_words import NUMBER_WORDS
from tools.calendar.holiday_lookup import (
    DEFAULT_CALENDARS,
    FIXED,
    SUNDOWN_CALENDARS,
    find_holiday,
    is_estimated,
    observed_day,
    occurrence,
)
from tools.calendar.stated import stated_stays
from tools.calendar.stays import Stay
from tools.calendar.time_phrases import time_phrases
from tools.declaration import GatherContext, Shows, ToolContext, declare

_HOLIDAY_STAY = re.compile(
    r"^(?:(?P<nights>\d+|[a-z]+) nights? )?(?:on|over|during|for|at|in|around|of)?\s*(?P<name>.+)$",
    re.IGNORECASE,
)


def read_stay(hint: str, today: date, check_in: date | None = None) -> Stay:
    """A date phrase as a stay; a holiday's name is its days.

    "one night in Hanukkah" is its first night.

    Raises:
        ValueError: Neither a date phrase nor a holiday's name.
    """
    try:
        return parse_date_hint(hint, today, check_in)
    except ValueError as unread:
        found = _HOLIDAY_STAY.match(hint.strip())
        if found is None:
            raise
        try:
            holiday = find_holiday(found["name"], (*DEFAULT_CALENDARS, FIXED), today.year)
        except ValueError:
            raise unread from None
        start, end = occurrence(holiday, None, today)
        count = found["nights"] or ""
        nights = int(count) if count.isdigit() else NUMBER_WORDS.get(count.casefold())
        leave = start + timedelta(days=nights) if nights else end + timedelta(days=1)
        stays = f"{(leave - start).days} night{'s' * ((leave - start).days != 1)}"
        return Stay(start, leave, f"{holiday.name}: check in {start:%A} {start}, {stays}")


def _with_year(name: str, year: int | None) -> tuple[str, int | None]:
    """A year written into the name ("Thanksgiving 2026", "Passover in 2027") is the year asked for.

    It leaves the name even when the year is also given, or the name would not be found.
    """
    found = re.fullmatch(r"(.+?)\s+(?:(?:in|of)\s+)?((?:19|20|21)\d\d)", name.strip(), re.I)
    if found is None:
        return name, year
    return found.group(1), year or int(found.group(2))


class ResolveHolidayArgs(BaseModel):
    """Arguments of `resolve_holiday`."""

    holiday_name: str = Field(min_length=1, description="e.g. 'Hanukkah', 'Thanksgiving'")
    year: int | None = Field(
        default=None, ge=1950, le=2100, description="omit for the next occurrence"
    )
    country: str | None = Field(
        default=None,
        min_length=2,
        max_length=3,
        description="ISO country code whose calendar to use, e.g. 'US', 'IL', 'GB'",
    )


class ResolveDateHintArgs(BaseModel):
    """Arguments of `resolve_date_hint`."""

    hint: str = Field(min_length=1, description="e.g. 'next weekend', 'January 17-19'")
    check_in: date | None = Field(
        default=None,
        description="YYYY-MM-DD: the first night, when the hint says only how many nights",
    )


@declare(
    pack="calendar",
    kind="read_only",
    asks=(
        "when is Diwali this year?",
        "what date is Easter in 2027?",
        "dates of Yom Kippur",
        "when does Lunar New Year fall?",
        "one night during Hanukkah",
        "is Labor Day on a Monday",
        "how long is Sukkot",
        "Thanksgiving next year is on which date?",
        "the date of Presidents' Day",
    ),
    shows=Shows(
        fields=("holiday", "start", "end", "days", "note", "observed", "estimated"),
        lead={"": "When {holiday} is"},
    ),
)
async def resolve_holiday(args: ResolveHolidayArgs, ctx: ToolContext) -> dict[str, Any]:
    """Find the dates of a named holiday: its whole span when it lasts several days.

    Without `year`, returns the next occurrence that has not fully ended as of today (an
    ongoing holiday counts). Names are matched case-insensitively and tolerate common
    spellings ("Chanukah", "xmas", "thanksgiving"). Without `country`, the US, Israeli
    (Jewish holidays), British and Indian calendars are searched, in that order.

    Returns:
        {"holiday", "start", "end" (inclusive, YYYY-MM-DD), "days", "source_calendar"},
        plus "note" when the dates need a caveat (e.g. Jewish holidays begin at sundown the
        evening before), "observed" when a weekend holiday is observed on another day, and
        "estimated": true when the calendar only estimates the date (lunar holidays).

    Examples:
        {"holiday_name": "Hanukkah"}, {"holiday_name": "Thanksgiving", "year": 2026},
        {"holiday_name": "Independence Day", "country": "IL"}, {"holiday_name": "Easter"}.
    """
    name, year = _with_year(args.holiday_name, args.year)
    sources = (args.country.upper(),) if args.country else DEFAULT_CALENDARS
    holiday = find_holiday(name, (*sources, FIXED), year or ctx.today.year)
    start, end = occurrence(holiday, year, ctx.today)
    result: dict[str, Any] = {
        "holiday": holiday.name,
        "start": start.isoformat(),
        "end": end.isoformat(),
        "days": (end - start).days + 1,
        "source_calendar": holiday.source,
    }
    notes = []
    observed = observed_day(holiday, start, end)
    if holiday.source in SUNDOWN_CALENDARS:
        notes.append(f"{holiday.name} begins at sundown the evening before the first day")
    elif observed:
        result["observed"] = observed.isoformat()
        notes.append(f"{holiday.name} falls on a weekend; it is observed on {observed}")
    if is_estimated(holiday, start):
        result["estimated"] = True
        notes.append("the date is an estimate: it depends on the lunar calendar")
    if notes:
        result["note"] = "; ".join(notes)
    return result


@declare(
    pack="calendar",
    kind="read_only",
    provides=["date_reader"],
    finds=time_phrases,
    asks=(
        "what date is next Thursday?",
        "when is the day after tomorrow?",
        "which dates is the weekend after next",
        "dates for this Friday to Sunday",
        "what's the date in two weeks",
        "give me the dates of next week",
    ),
    shows=Shows(
        fields=("hint", "check_in", "check_out", "nights", "description"),
        lead={"": "The dates"},
    ),
)
async def resolve_date_hint(args: ResolveDateHintArgs, ctx: ToolContext) -> dict[str, Any]:
    """Turn a date phrase into a hotel-style stay relative to today.

    `check_out` is exclusive: the morning you leave. A single day is one night. "this
    weekend" is Friday to Sunday (from today when it is already Saturday or Sunday);
    "next weekend" is the Friday to Sunday of next calendar week (weeks start Monday);
    "next week" is Monday to the following Monday; "friday" is the next Friday on or after
    today and "next friday" the Friday of next calendar week. Dates without a year mean the
    next such date on or after today. "January 17-19" checks in on the 17th and out on the
    19th. A phrase naming no single day ("next month", "3 weeks") or a past one is refused.
    A stay's length alone ("for 3 nights": the stay asked about before, longer or shorter)
    counts from `check_in`, which no other phrase reads; without it, it is refused.

    Returns:
        {"hint", "check_in", "check_out" (YYYY-MM-DD), "nights", "description"}.

    Examples:
        "tonight", "tomorrow", "the day after tomorrow", "this weekend", "next weekend",
        "next week", "in 3 days", "in a fortnight", "a week from today", "friday",
        "next friday", "2 nights from friday", "Dec 24 for 3 nights", "12/24",
        {"hint": "for 3 nights", "check_in": "2026-12-18"},
        "January 17-19", "17-19 January", "Jan 30 to Feb 2", "2025-01-17 to 2025-01-19".
    """
    return read_stay(args.hint, ctx.today, args.check_in).fields(args.hint)


TOOLS = [resolve_holiday, resolve_date_hint]


async def dates_said(message: str, ctx: GatherContext) -> list[Source]:
    """The dates a message writes out ("Dec 4-6"), read as stays (a first night alone, open).

    No model need call the date reader for them, and every model sees them.
    """
    return [
        {
            "type": "dates",
            "label": "dates in the message",
            "reference": stated.said,
            "excerpt": json.dumps(stated.fields()),
        }
        for stated in stated_stays(message, ctx.today)
    ]
