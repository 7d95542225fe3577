"""The calendar pack: resolve holiday names and date phrases against the run's date."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from tools.date_hints import parse_date_hint
from tools.declaration import ToolContext, declare
from tools.holiday_lookup import (
    DEFAULT_CALENDARS,
    FIXED,
    SUNDOWN_CALENDARS,
    find_holiday,
    is_estimated,
    observed_day,
    occurrence,
)


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


@declare(
    pack="calendar",
    kind="read_only",
    asks=(
        "When is Hanukkah this year?",
        "what date is Thanksgiving",
        "when does Easter fall in 2027",
        "holiday dates for Diwali",
        "one night during Hanukkah",
        "dates of Christmas, Passover, Easter, Halloween, New Year's Eve or Yom Kippur",
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
    sources = (args.country.upper(),) if args.country else DEFAULT_CALENDARS
    year = args.year or ctx.today.year
    holiday = find_holiday(args.holiday_name, (*sources, FIXED), year)
    start, end = occurrence(holiday, args.year, ctx.today)
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
    asks=(
        "what dates are next weekend",
        "Do we have a room free next weekend?",
        "which dates is the weekend after next",
        "what day is next Friday",
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

    Returns:
        {"hint", "check_in", "check_out" (YYYY-MM-DD), "nights", "description"}.

    Examples:
        "tonight", "tomorrow", "the day after tomorrow", "this weekend", "next weekend",
        "next week", "in 3 days", "in a fortnight", "a week from today", "friday",
        "next friday", "2 nights from friday", "Dec 24 for 3 nights", "12/24",
        "January 17-19", "17-19 January", "Jan 30 to Feb 2", "2025-01-17 to 2025-01-19".
    """
    stay = parse_date_hint(args.hint, ctx.today)
    return {
        "hint": args.hint,
        "check_in": stay.check_in.isoformat(),
        "check_out": stay.check_out.isoformat(),
        "nights": stay.nights,
        "description": stay.description,
    }


TOOLS = [resolve_holiday, resolve_date_hint]
