"""Date phrases read by dateparser under this project's rules, relative to the run's date."""

from __future__ import annotations

from datetime import date

import pytest

from tools.date_hints import parse_date_hint

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
        ("tomorrow at 3pm", "2025-01-07", 1),
        ("3 nights from the day after tomorrow", "2025-01-08", 3),
        ("tomorrow until the day after tomorrow", "2025-01-07", 1),
        ("Tuesday, March 3rd", "2025-03-03", 1),
        ("2026/01/17", "2026-01-17", 1),
        ("24.12.2025", "2025-12-24", 1),
        ("12/24/25", "2025-12-24", 1),
        ("Dec 30 to Jan 8", "2025-12-30", 9),
        ("Feb 29", "2028-02-29", 1),
    ],
)
def test_phrases_dateparser_reads(hint: str, check_in: str, nights: int) -> None:
    stay = parse_date_hint(hint, MONDAY)

    assert (stay.check_in.isoformat(), stay.nights) == (check_in, nights)


def test_a_date_without_a_year_on_the_run_date_is_that_day() -> None:
    assert parse_date_hint("Jan 6", MONDAY).check_in == MONDAY
    assert parse_date_hint("Jan 5", MONDAY).check_in == date(2026, 1, 5)


@pytest.mark.parametrize("hint", ["yesterday", "3 days ago", "last week"])
def test_a_phrase_counted_back_into_the_past_is_an_error(hint: str) -> None:
    with pytest.raises(ValueError, match=f"the date hint '{hint}' is in the past"):
        parse_date_hint(hint, MONDAY)


@pytest.mark.parametrize(
    # A month, a year or a bare duration names no day, though dateparser would pick one.
    "hint",
    ["next month", "a month from now", "next year", "3 weeks", "2 days", "this week", "Dec"],
)
def test_a_phrase_that_names_no_day_is_not_understood(hint: str) -> None:
    with pytest.raises(ValueError, match=f"could not understand the date hint '{hint}'"):
        parse_date_hint(hint, MONDAY)
