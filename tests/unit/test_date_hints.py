"""Date phrases read by dateparser under this project's rules, relative to the run's date."""

from __future__ import annotations

from datetime import date

import pytest

from tools.calendar.date_hints import parse_date_hint

MONDAY = date(2025, 1, 6)


@pytest.mark.parametrize(
    ("hint", "check_in", "nights"),
    [
        ("the day after tomorrow", "2025-01-08", 1),
        ("in a fortnight", "2025-01-20", 1),
        ("2 weeks from now", "2025-01-20", 1),
        ("ten days from now", "2025-01-16", 1),
        ("a week from today", "2025-01-13", 1),
        ("three days from today", "2025-01-09", 1),
        # "out", "ahead" and "away" count from now too.
        ("ten days out", "2025-01-16", 1),
        ("3 days ahead from today", "2025-01-09", 1),
        ("two weeks away", "2025-01-20", 1),
        ("tomorrow at 3pm", "2025-01-07", 1),
        ("3 nights from the day after tomorrow", "2025-01-08", 3),
        ("tomorrow until the day after tomorrow", "2025-01-07", 1),
        ("Tuesday, March 3rd", "2025-03-03", 1),
        ("2026/01/17", "2026-01-17", 1),
        ("24.12.2025", "2025-12-24", 1),
        ("12/24/25", "2025-12-24", 1),
        ("Dec 30 to Jan 8", "2025-12-30", 9),
        ("Feb 29", "2028-02-29", 1),
        # This project's rules: "after next" is a week later than "next".
        ("next weekend", "2025-01-17", 2),
        ("the weekend after next", "2025-01-24", 2),
        ("next week", "2025-01-13", 7),
        ("the week after next", "2025-01-20", 7),
        # A weekday said as "the coming …" or with a possessive is its next such day.
        ("the coming Thursday", "2025-01-09", 1),
        ("this coming Monday", "2025-01-06", 1),
        ("Saturday's", "2025-01-11", 1),
        # A weekday written short reads as written out, alone or in a range.
        ("wed through fri", "2025-01-08", 2),
        ("tues-thurs", "2025-01-07", 2),
        ("this Weds to Fri.", "2025-01-08", 2),
        ("thurs", "2025-01-09", 1),
        ("next tue", "2025-01-14", 1),
        # A range of weekdays with its week: the days of that week.
        ("wed through fri next week", "2025-01-15", 2),
        ("next week's tues-thurs", "2025-01-14", 2),
        ("Wednesday to Friday of this week", "2025-01-08", 2),
    ],
)
def test_phrases_read_from_the_run_date(hint: str, check_in: str, nights: int) -> None:
    stay = parse_date_hint(hint, MONDAY)

    assert (stay.check_in.isoformat(), stay.nights) == (check_in, nights)


def test_a_date_without_a_year_on_the_run_date_is_that_day() -> None:
    assert parse_date_hint("Jan 6", MONDAY).check_in == MONDAY
    assert parse_date_hint("Jan 5", MONDAY).check_in == date(2026, 1, 5)


@pytest.mark.parametrize(
    ("hint", "check_in", "check_out"),
    [
        ("the 9th", "2025-01-09", "2025-01-10"),  # later this month
        ("the 6th", "2025-01-06", "2025-01-07"),  # today
        ("the 2nd to the 4th", "2025-02-02", "2025-02-04"),  # passed this month: next month's
        ("from the 30th to the 2nd", "2025-01-30", "2025-02-02"),  # the end after the start
        ("the 30th for 2 nights", "2025-01-30", "2025-02-01"),
    ],
)
def test_a_day_of_the_month_said_alone_is_the_next_such_day(
    hint: str, check_in: str, check_out: str
) -> None:
    stay = parse_date_hint(hint, MONDAY)

    assert (stay.check_in.isoformat(), stay.check_out.isoformat()) == (check_in, check_out)


def test_a_day_of_the_month_skips_months_too_short_for_it() -> None:
    assert parse_date_hint("the 30th", date(2025, 2, 3)).check_in == date(2025, 3, 30)
    assert parse_date_hint("the 31st", date(2025, 4, 2)).check_in == date(2025, 5, 31)
    with pytest.raises(ValueError, match="could not understand"):
        parse_date_hint("the 32nd", MONDAY)
    with pytest.raises(ValueError, match="could not understand"):
        parse_date_hint("9", MONDAY)  # a number alone is no day


@pytest.mark.parametrize("hint", ["yesterday", "3 days ago", "last week"])
def test_a_phrase_counted_back_into_the_past_is_an_error(hint: str) -> None:
    with pytest.raises(ValueError, match=f"the date hint '{hint}' is in the past"):
        parse_date_hint(hint, MONDAY)


@pytest.mark.parametrize(
    ("today", "check_out", "nights"),
    [
        (MONDAY, date(2025, 1, 13), 7),
        (date(2025, 1, 10), date(2025, 1, 13), 3),
        (date(2025, 1, 12), date(2025, 1, 13), 1),
    ],
)
def test_this_week_is_from_today_to_sunday(today: date, check_out: date, nights: int) -> None:
    for hint in ("this week", "the rest of this week"):
        stay = parse_date_hint(hint, today)
        assert (stay.check_in, stay.check_out, stay.nights) == (today, check_out, nights)


@pytest.mark.parametrize(
    # A month, a year or a bare duration names no day, though dateparser would pick one.
    "hint",
    ["next month", "a month from now", "next year", "3 weeks", "2 days", "Dec"],
)
def test_a_phrase_that_names_no_day_is_not_understood(hint: str) -> None:
    with pytest.raises(ValueError, match=f"could not understand the date hint '{hint}'"):
        parse_date_hint(hint, MONDAY)
