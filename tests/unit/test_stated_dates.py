"""The dates a message writes out, read as stays: ranges, arrivals with departures, open starts."""

from __future__ import annotations

from datetime import date

import pytest

from tools.calendar.stated import stated_stays

MONDAY = date(2025, 1, 6)


@pytest.mark.parametrize(
    ("message", "said", "check_in", "check_out"),
    [
        ("Check availability for January 17-19", "january 17-19", "2025-01-17", "2025-01-19"),
        ("any Queens free Jan 30 to Feb 2?", "jan 30 to feb 2", "2025-01-30", "2025-02-02"),
        ("rooms for the 19th through the 21st of December?", None, "2025-12-19", "2025-12-21"),
        ("a King Suite between March 3 and March 5", None, "2025-03-03", "2025-03-05"),
        ("between the 4th and 6th of December", None, "2025-12-04", "2025-12-06"),
        (
            "is a room free on Dec 24 for 3 nights?",
            "dec 24 for 3 nights",
            "2025-12-24",
            "2025-12-27",
        ),
        ("book 2 nights from February 10, 2025 for Ada", None, "2025-02-10", "2025-02-12"),
        (
            "rooms from 2025-01-17 to 2025-01-19",
            "2025-01-17 to 2025-01-19",
            "2025-01-17",
            "2025-01-19",
        ),
        ("is the Double Queen free on 12/31?", "12/31", "2025-12-31", "2026-01-01"),
    ],
)
def test_a_message_s_written_out_dates_are_read_as_one_stay(
    message: str, said: str | None, check_in: str, check_out: str
) -> None:
    [stated] = stated_stays(message, MONDAY)
    stay = stated.stay

    assert not stated.open and (said is None or stated.said == said)
    assert (stay.check_in.isoformat(), stay.check_out.isoformat()) == (check_in, check_out)


@pytest.mark.parametrize(
    "message",
    [
        "any rooms next weekend?",  # relative: the date reader's rules, seen by the model
        "when is Hanukkah this year?",
        "which tasks are due before Christmas?",
        "show me the 3 open tasks for Distex",
        "is there a room on February 30?",  # no such day: the reader says so
        "what's the Q1 PPC budget review about?",
    ],
)
def test_a_message_that_writes_out_no_date_states_none(message: str) -> None:
    assert stated_stays(message, MONDAY) == []


def test_each_date_range_a_message_writes_out_is_a_stay_of_its_own() -> None:
    found = stated_stays("Dec 4-6 and Dec 11-13, or March 3 or March 6", MONDAY)

    assert [s.stay.check_in.isoformat() for s in found] == [
        "2025-12-04",
        "2025-12-11",
        "2025-03-03",
        "2025-03-06",
    ]


@pytest.mark.parametrize(
    "message",
    [
        "check in on March 3, check out on March 6",
        "arriving march 3 and leaving march 6 — a Queen?",
        "book a queen for Lena Park, in Mar 3 out Mar 6",
        "Mar 3, departing on Mar 6",
    ],
)
def test_a_day_said_as_the_departure_ends_the_stay_said_before_it(message: str) -> None:
    [stated] = stated_stays(message, MONDAY)

    assert (stated.stay.check_in, stated.stay.check_out) == (date(2025, 3, 3), date(2025, 3, 6))
    assert stated.fields()["check_out"] == "2025-03-06"


@pytest.mark.parametrize(
    "message",
    ["book the king suite from december 10 for Priya", "a Queen starting on Dec 10, 2 guests"],
)
def test_a_first_night_said_with_no_end_leaves_the_check_out_unsaid(message: str) -> None:
    [stated] = stated_stays(message, MONDAY)

    assert stated.open and stated.fields()["check_in"] == "2025-12-10"
    assert "check_out" not in stated.fields()


@pytest.mark.parametrize(
    "message",
    [
        "from December 10, three nights",
        "a Queen Dec 10, 3 nights, for Ines Moreau",
        "3 nights dec 10 in the King Suite",
        "Dec 10 (3 nights) for two guests",
        "Dec 10 - 3 nights",  # not December 10 to the 3rd
        "a 3-night stay from Dec 10",
    ],
)
def test_a_day_with_a_length_said_apart_is_a_stay_that_long(message: str) -> None:
    [stated] = stated_stays(message, MONDAY)

    assert not stated.open
    assert (stated.stay.check_in, stated.stay.check_out) == (date(2025, 12, 10), date(2025, 12, 13))


def test_a_day_that_names_its_week_or_weekend_is_left_to_the_date_reader() -> None:
    assert stated_stays("any rooms the weekend of December 12?", MONDAY) == []
    assert stated_stays("the week of Jan 4", MONDAY) == []
