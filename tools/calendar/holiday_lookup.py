"""Holiday lookup over the `holidays` package's calendars: names matched, spans found.

The calendar pack's `resolve_holiday` tool is built on this; nothing here reads the clock.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

import holidays

# Searched in order when no country is given: earlier calendars win shared names, so
# "Independence Day" is the US one unless the caller asks for country "IL".
DEFAULT_CALENDARS = ("US", "IL", "GB", "IN")
# Hebrew-calendar holidays start the evening before the civil date the package lists.
SUNDOWN_CALENDARS = frozenset({"IL"})
FIXED = "fixed-date"
# Observances some calendars do not list at all (the US one does, others mostly do not).
FIXED_DATE_OBSERVANCES = {"Halloween": (10, 31), "Valentine's Day": (2, 14)}
# Spellings people use that neither exact nor fuzzy matching would reach.
ALIASES = {
    "chanukah": "hanukkah",
    "chanukkah": "hanukkah",
    "channukah": "hanukkah",
    "xmas": "christmas day",
    "christmas": "christmas day",
    "passover": "pesach",
    "easter": "easter sunday",
    "new year": "new years day",
    "fourth of july": "independence day",
    "4th of july": "independence day",
    "july 4th": "independence day",
    "mlk day": "martin luther king jr day",
    "presidents day": "washingtons birthday",
    "juneteenth": "juneteenth national independence day",
    "sukkos": "sukkot",
    "shavuos": "shavuot",
    "st patricks day": "saint patricks day",
    "deepavali": "diwali",
}
# Below this similarity a misspelling is reported with suggestions instead of guessed.
SPELLING_CUTOFF = 0.8


@dataclass(frozen=True)
class Holiday:
    """A holiday as one calendar spells it."""

    name: str
    source: str


def find_holiday(holiday_name: str, sources: tuple[str, ...], year: int) -> Holiday:
    """Match a name against each calendar in turn: exactly, by alias, then by spelling."""
    key = _normalize(holiday_name)
    bare = key.removesuffix(" day")  # "xmas day" is an alias too, not a misspelled "May Day"
    candidates = (key, ALIASES.get(key, key), ALIASES.get(bare, key), f"{key} day")
    for source in sources:
        names = _names(source, year)
        for candidate in candidates:
            if candidate in names:
                return Holiday(names[candidate], source)
    # Reversed so that on a shared spelling the earlier calendar's entry is kept.
    known = {
        key: Holiday(name, source)
        for source in reversed(sources)
        for key, name in _names(source, year).items()
    }
    close = difflib.get_close_matches(key, known, n=5, cutoff=0.5)
    if close and difflib.SequenceMatcher(None, key, close[0]).ratio() >= SPELLING_CUTOFF:
        return known[close[0]]
    suggestions = list(dict.fromkeys(known[name].name for name in close)) or [
        "Hanukkah",
        "Christmas Day",
        "Thanksgiving Day",
    ]
    raise ValueError(
        f"unknown holiday '{holiday_name}' in calendars {', '.join(sources)}; "
        f"did you mean one of: {', '.join(suggestions)}?"
    )


def _normalize(name: str) -> str:
    """Fold case, apostrophes, punctuation and a leading "the" ("the 4th of July").

    "New Year's Day" equals "new years day".
    """
    text = re.sub(r"['’.]", "", name.lower())
    return re.sub(r"^the ", "", " ".join(re.sub(r"[^a-z0-9]+", " ", text).split()))


@cache
def _names(source: str, year: int) -> dict[str, str]:
    """Map each normalized holiday name in a calendar around `year` to its spelling."""
    if source == FIXED:
        return {_normalize(name): name for name in FIXED_DATE_OBSERVANCES}
    names: dict[str, str] = {}
    for around in (year - 1, year, year + 1):
        calendar = _calendar(source, around)
        for day in calendar:
            for name in _entries(calendar, day):
                names.setdefault(_normalize(name), name)
                # "Simchat Torah / Shemini Atzeret" answers to either half.
                for part in name.split(" / "):
                    names.setdefault(_normalize(part), name)
    return names


@cache
def _calendar(country: str, year: int) -> holidays.HolidayBase:
    """Load one country's holidays for a year, every category (religious, unofficial...)."""
    try:
        categories = holidays.country_holidays(country).supported_categories
    except NotImplementedError as exc:
        raise ValueError(f"no holiday calendar for country code '{country}'") from exc
    return holidays.country_holidays(country, years=year, categories=categories)


def occurrence(holiday: Holiday, year: int | None, today: date) -> tuple[date, date]:
    """Pick the span starting in `year`, or else the first one not over by `today`.

    Neighbouring years are loaded too, since a span such as Hanukkah can cross New Year.
    """
    if year is not None:
        spans = _spans(holiday, range(year - 1, year + 2))
        chosen = next((span for span in spans if span[0].year == year), None)
        missing = f"{holiday.name} does not start in {year} in the {holiday.source} calendar"
    else:
        spans = _spans(holiday, range(today.year - 1, today.year + 3))
        chosen = next((span for span in spans if span[1] >= today), None)
        missing = f"no upcoming {holiday.name} in the {holiday.source} calendar"
    if chosen is None:
        raise ValueError(missing)
    return chosen


def _spans(holiday: Holiday, years: range) -> list[tuple[date, date]]:
    """Group the holiday's days into runs of consecutive dates, first to last."""
    spans: list[tuple[date, date]] = []
    for day in sorted(set(_days(holiday, years))):
        if spans and day - spans[-1][1] == timedelta(days=1):
            spans[-1] = (spans[-1][0], day)
        else:
            spans.append((day, day))
    return spans


def _days(holiday: Holiday, years: range) -> list[date]:
    """List every day that belongs to the holiday in the given years."""
    if holiday.source == FIXED:
        month, day = FIXED_DATE_OBSERVANCES[holiday.name]
        return [date(year, month, day) for year in years]
    days = []
    for year in years:
        calendar = _calendar(holiday.source, year)
        days += [
            day
            for day in calendar
            if any(_belongs(entry, holiday.name) for entry in _entries(calendar, day))
        ]
    return days


def _entries(calendar: holidays.HolidayBase, day: date) -> list[str]:
    """Return the holidays a calendar lists on a day, observed-on-another-day ones aside.

    The "(estimated)" mark some calendars put on lunar dates varies by year, so it is
    dropped to keep each holiday under one name.
    """
    return [
        name.removesuffix(" (estimated)")
        for name in calendar.get_list(day)
        if "(observed" not in name
    ]


def _belongs(entry: str, name: str) -> bool:
    """Whether a calendar entry is a day of the named holiday.

    Multi-day festivals list their middle and closing days under derived names
    ("Pesach holiday", "Seventh day of Pesach"), which belong to the same span.
    """
    return entry in (name, f"{name} holiday") or entry.endswith(f" of {name}")


def is_estimated(holiday: Holiday, start: date) -> bool:
    """Whether the calendar marks this occurrence's date as an estimate."""
    if holiday.source == FIXED:
        return False
    listed = _calendar(holiday.source, start.year).get_list(start)
    return f"{holiday.name} (estimated)" in listed


def observed_day(holiday: Holiday, start: date, end: date) -> date | None:
    """Return the day a weekend holiday is observed on instead, if its calendar says so."""
    if holiday.source == FIXED:
        return None
    observed_name = f"{holiday.name} (observed)"
    for offset in range((end - start).days + 7):
        day = start - timedelta(days=3) + timedelta(days=offset)
        if observed_name in _calendar(holiday.source, day.year).get_list(day):
            return day
    return None
