"""The calendar pack: holiday lookup and date-hint parsing, relative to the run's date."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from tools.calendar.dates import TOOLS, resolve_date_hint, resolve_holiday
from tools.declaration import Tool, ToolArgumentsError, ToolContext


def context(today: date) -> ToolContext:
    return ToolContext(
        today=today, timezone="UTC", user_id="u", user_role="member", run_id="r", thread_id="t"
    )


async def call(tool: Tool, args: dict[str, Any], today: date) -> Any:
    return await tool.run(tool.validate(args), context(today))


NOV_22_2026 = date(2026, 11, 22)
MONDAY = date(2025, 1, 6)


# --- declarations -------------------------------------------------------------------------


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_tools_are_read_only_calendar_tools_for_every_role(tool: Tool) -> None:
    assert tool.kind == "read_only"
    assert tool.read_only
    assert tool.pack == "calendar"
    assert {"viewer", "member", "admin"} <= tool.roles
    assert tool.description.strip()


def test_tools_export_both_tools() -> None:
    assert [tool.name for tool in TOOLS] == ["resolve_holiday", "resolve_date_hint"]


@pytest.mark.parametrize(
    ("tool", "field"), [(resolve_holiday, "holiday_name"), (resolve_date_hint, "hint")]
)
def test_validate_names_the_missing_field(tool: Tool, field: str) -> None:
    with pytest.raises(ToolArgumentsError, match=field):
        tool.validate({})


# --- resolve_holiday ----------------------------------------------------------------------


async def test_hanukkah_2026_is_its_whole_eight_day_span() -> None:
    result = await call(resolve_holiday, {"holiday_name": "Hanukkah"}, NOV_22_2026)

    assert result == {
        "holiday": "Hanukkah",
        "start": "2026-12-05",
        "end": "2026-12-12",
        "days": 8,
        "source_calendar": "IL",
        "note": "Hanukkah begins at sundown the evening before the first day",
    }


async def test_ongoing_hanukkah_is_still_the_next_occurrence() -> None:
    result = await call(resolve_holiday, {"holiday_name": "Hanukkah"}, date(2026, 12, 12))

    assert (result["start"], result["end"]) == ("2026-12-05", "2026-12-12")


async def test_hanukkah_after_it_ended_is_next_years() -> None:
    result = await call(resolve_holiday, {"holiday_name": "Hanukkah"}, date(2026, 12, 20))

    assert (result["start"], result["end"], result["days"]) == ("2027-12-25", "2028-01-01", 8)


@pytest.mark.parametrize(
    ("name", "holiday", "start"),
    [
        ("Presidents' Day 2027", "Washington's Birthday", "2027-02-15"),
        ("Passover in 2027", "Pesach", "2027-04-22"),
    ],
)
async def test_a_year_in_the_name_is_read_when_the_year_is_given_too(
    name: str, holiday: str, start: str
) -> None:
    result = await call(resolve_holiday, {"holiday_name": name, "year": 2027}, NOV_22_2026)

    assert (result["holiday"], result["start"]) == (holiday, start)


async def test_explicit_year_keeps_a_span_that_crosses_new_year() -> None:
    result = await call(resolve_holiday, {"holiday_name": "Hanukkah", "year": 2024}, NOV_22_2026)

    assert (result["start"], result["end"], result["days"]) == ("2024-12-26", "2025-01-02", 8)


@pytest.mark.parametrize("spelling", ["Chanukah", "hanukah", "HANUKKAH", "chanukkah"])
async def test_hanukkah_spelling_variants(spelling: str) -> None:
    result = await call(resolve_holiday, {"holiday_name": spelling}, NOV_22_2026)

    assert result["holiday"] == "Hanukkah"
    assert result["start"] == "2026-12-05"


@pytest.mark.parametrize(
    "spelling", ["Christmas", "xmas", "christmas day", "Christmas Day", "Xmas Day"]
)
async def test_christmas(spelling: str) -> None:
    result = await call(resolve_holiday, {"holiday_name": spelling}, NOV_22_2026)

    assert result["holiday"] == "Christmas Day"
    assert (result["start"], result["end"], result["days"]) == ("2026-12-25", "2026-12-25", 1)
    assert result["source_calendar"] == "US"
    assert "note" not in result


async def test_an_alias_with_day_after_it_is_no_misspelling_of_another_day() -> None:
    result = await call(resolve_holiday, {"holiday_name": "xmas day"}, NOV_22_2026)

    assert result["holiday"] == "Christmas Day"  # not May Day, the closest spelling
    may_day = await call(resolve_holiday, {"holiday_name": "may day", "year": 2027}, NOV_22_2026)
    assert may_day["holiday"] == "May Day"


@pytest.mark.parametrize("spelling", ["Thanksgiving", "thanksgiving day", "Thanksgivng"])
async def test_thanksgiving_is_the_us_one(spelling: str) -> None:
    result = await call(resolve_holiday, {"holiday_name": spelling}, NOV_22_2026)

    assert result["holiday"] == "Thanksgiving Day"
    assert result["start"] == "2026-11-26"
    assert result["source_calendar"] == "US"


async def test_weekend_holiday_says_when_it_is_observed() -> None:
    result = await call(
        resolve_holiday, {"holiday_name": "Independence Day", "year": 2027}, NOV_22_2026
    )

    assert result["start"] == "2027-07-04"
    assert result["observed"] == "2027-07-05"
    assert "observed on 2027-07-05" in result["note"]


async def test_country_picks_the_calendar() -> None:
    result = await call(
        resolve_holiday,
        {"holiday_name": "Independence Day", "year": 2026, "country": "il"},
        NOV_22_2026,
    )

    assert result["source_calendar"] == "IL"
    assert result["start"] == "2026-04-22"


async def test_passover_spans_the_festival_week() -> None:
    result = await call(resolve_holiday, {"holiday_name": "Passover", "year": 2026}, NOV_22_2026)

    assert (result["holiday"], result["start"], result["end"]) == (
        "Pesach",
        "2026-04-02",
        "2026-04-08",
    )


@pytest.mark.parametrize(
    ("name", "start"),
    [
        ("New Year's Day", "2027-01-01"),
        ("Easter", "2027-03-28"),
        ("Rosh Hashanah", "2027-10-02"),
        ("Yom Kippur", "2027-10-11"),
        ("Labor Day", "2027-09-06"),
        ("Memorial Day", "2027-05-31"),
        ("Halloween", "2027-10-31"),
        # A leading "the" is not part of the name.
        ("the 4th of July", "2027-07-04"),
        ("The Fourth of July", "2027-07-04"),
    ],
)
async def test_other_holidays_resolve_to_their_next_occurrence(name: str, start: str) -> None:
    result = await call(resolve_holiday, {"holiday_name": name}, NOV_22_2026)

    assert result["start"] == start


async def test_fixed_date_observance_outside_any_calendar() -> None:
    result = await call(
        resolve_holiday, {"holiday_name": "Valentine's Day", "country": "GB"}, NOV_22_2026
    )

    assert result == {
        "holiday": "Valentine's Day",
        "start": "2027-02-14",
        "end": "2027-02-14",
        "days": 1,
        "source_calendar": "fixed-date",
    }


async def test_unknown_holiday_suggests_close_names() -> None:
    with pytest.raises(ValueError, match=r"unknown holiday 'Hanukkah Festival'.*Hanukkah"):
        await call(resolve_holiday, {"holiday_name": "Hanukkah Festival"}, NOV_22_2026)


async def test_unknown_country_is_an_error() -> None:
    with pytest.raises(ValueError, match="country code 'XX'"):
        await call(resolve_holiday, {"holiday_name": "Christmas", "country": "XX"}, NOV_22_2026)


# --- resolve_date_hint --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hint", "today", "check_in", "check_out"),
    [
        ("today", MONDAY, "2025-01-06", "2025-01-07"),
        ("tonight", MONDAY, "2025-01-06", "2025-01-07"),
        ("tomorrow", MONDAY, "2025-01-07", "2025-01-08"),
        ("this weekend", MONDAY, "2025-01-10", "2025-01-12"),
        ("this weekend", date(2025, 1, 11), "2025-01-11", "2025-01-12"),
        ("this weekend", date(2025, 1, 12), "2025-01-12", "2025-01-13"),
        ("next weekend", MONDAY, "2025-01-17", "2025-01-19"),
        ("Next Weekend", date(2025, 1, 10), "2025-01-17", "2025-01-19"),
        ("next weekend", date(2025, 1, 11), "2025-01-17", "2025-01-19"),
        ("next week", MONDAY, "2025-01-13", "2025-01-20"),
        ("next week", date(2025, 1, 12), "2025-01-13", "2025-01-20"),
        ("in 3 days", MONDAY, "2025-01-09", "2025-01-10"),
        ("in two weeks", MONDAY, "2025-01-20", "2025-01-21"),
        ("2 nights from friday", MONDAY, "2025-01-10", "2025-01-12"),
        ("3 nights from 2025-03-01", MONDAY, "2025-03-01", "2025-03-04"),
        ("Dec 24 for 3 nights", MONDAY, "2025-12-24", "2025-12-27"),
        ("friday", MONDAY, "2025-01-10", "2025-01-11"),
        ("this friday", MONDAY, "2025-01-10", "2025-01-11"),
        ("next friday", MONDAY, "2025-01-17", "2025-01-18"),
        ("friday", date(2025, 1, 10), "2025-01-10", "2025-01-11"),
        ("friday to sunday", MONDAY, "2025-01-10", "2025-01-12"),
        ("January 17-19", MONDAY, "2025-01-17", "2025-01-19"),
        ("Jan 17 to Jan 19", MONDAY, "2025-01-17", "2025-01-19"),
        ("17-19 January", MONDAY, "2025-01-17", "2025-01-19"),
        ("January 17th - 19th, 2026", MONDAY, "2026-01-17", "2026-01-19"),
        ("2025-01-17 to 2025-01-19", MONDAY, "2025-01-17", "2025-01-19"),
        ("Dec 30 to Jan 2", MONDAY, "2025-12-30", "2026-01-02"),
        ("12/24", MONDAY, "2025-12-24", "2025-12-25"),
        ("Dec 24", MONDAY, "2025-12-24", "2025-12-25"),
        ("the 24th of December", MONDAY, "2025-12-24", "2025-12-25"),
        ("2025-01-17", MONDAY, "2025-01-17", "2025-01-18"),
    ],
)
async def test_date_hints(hint: str, today: date, check_in: str, check_out: str) -> None:
    result = await call(resolve_date_hint, {"hint": hint}, today)

    assert result["hint"] == hint
    assert (result["check_in"], result["check_out"]) == (check_in, check_out)
    nights = (date.fromisoformat(check_out) - date.fromisoformat(check_in)).days
    assert result["nights"] == nights
    assert check_in in result["description"]


async def test_month_range_without_year_rolls_to_next_year() -> None:
    result = await call(resolve_date_hint, {"hint": "January 17-19"}, NOV_22_2026)

    assert result == {
        "hint": "January 17-19",
        "check_in": "2027-01-17",
        "check_out": "2027-01-19",
        "nights": 2,
        "description": result["description"],
    }
    assert "2 nights" in result["description"]


@pytest.mark.parametrize("hint", ["Feb 30", "2025-02-30", "13/45", "Feb 30 to Mar 2"])
async def test_invalid_date_is_an_error(hint: str) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        await call(resolve_date_hint, {"hint": hint}, MONDAY)


async def test_a_stays_length_alone_counts_from_the_check_in_given_apart() -> None:
    given = {"hint": "for three nights", "check_in": "2025-01-10"}
    result = await call(resolve_date_hint, given, MONDAY)
    assert (result["check_in"], result["check_out"], result["nights"]) == (
        "2025-01-10",
        "2025-01-13",
        3,
    )
    # The check-in counts only for a length alone: a phrase that says its day keeps it.
    friday = await call(resolve_date_hint, {"hint": "friday", "check_in": "2025-01-20"}, MONDAY)
    assert friday["check_in"] == "2025-01-10"
    with pytest.raises(ValueError, match="says how many nights but not from when"):
        await call(resolve_date_hint, {"hint": "2 nights"}, MONDAY)


async def test_range_ending_before_it_starts_is_an_error() -> None:
    with pytest.raises(ValueError, match="ends on or before"):
        await call(resolve_date_hint, {"hint": "2025-01-19 to 2025-01-17"}, MONDAY)


@pytest.mark.parametrize("hint", ["whenever suits", "soonish", "next fortnight-ish"])
async def test_unparseable_hint_is_an_error(hint: str) -> None:
    expected = f"could not understand the date hint '{hint}': try e.g. 'next weekend'"
    with pytest.raises(ValueError, match=expected):
        await call(resolve_date_hint, {"hint": hint}, MONDAY)


async def test_estimated_lunar_dates_say_so() -> None:
    from tools.calendar.dates import resolve_holiday as tool

    ctx = ToolContext(
        today=date(2027, 1, 1),
        timezone="UTC",
        user_id="u",
        user_role="member",
        run_id="r",
        thread_id="t",
    )
    result = await tool.run(tool.validate({"holiday_name": "Eid al-Fitr", "country": "IN"}), ctx)
    assert result["start"] == "2027-03-10"
    assert result["estimated"] is True
    assert "estimate" in result["note"]
    hanukkah = await tool.run(tool.validate({"holiday_name": "Hanukkah"}), ctx)
    assert "estimated" not in hanukkah
