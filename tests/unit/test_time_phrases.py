"""Where a message says a time, as the calendar pack's date reader finds it."""

from __future__ import annotations

from datetime import date

from tools.calendar.date_hints import parse_date_hint
from tools.calendar.dates import resolve_date_hint
from tools.calendar.time_phrases import time_phrases

TODAY = date(2026, 11, 24)


def said(text: str) -> list[str]:
    return [text[a:b] for a, b in time_phrases(text, TODAY)]


def says_when(text: str) -> bool:
    return bool(time_phrases(text, TODAY))


def test_times_are_found_with_their_days_and_calendar_words_only_as_names() -> None:
    assert said("book a room for Dana Levi next weekend") == ["next weekend"]
    assert said("any Queen rooms free December 10 to 12?") == ["December 10 to 12"]
    # A stay's length is read with its start, as the date reader takes it.
    assert said("the King Suite on 3 January for four nights") == ["3 January for four nights"]
    assert said("a Queen for 2 nights starting May 8?") == ["2 nights starting May 8"]
    assert said("and from the 8th to the 10th?") == ["the 8th to the 10th"]
    assert said("free on the 19th of December?") == ["the 19th of December"]
    assert said("rooms for the 19th through the 21st of Dec?") == [
        "the 19th through the 21st of Dec"
    ]
    assert said("date of new year's eve") == ["new year's eve"]
    assert says_when("one night in Hanukkah")
    # "may" and "march" are words before they are months.
    assert not says_when("what may I do") and not says_when("march on")
    assert says_when("due in March") and not says_when("Remember that Thorinox prefers email")
    assert said("the date two weeks from today?") == ["two weeks from today"]
    assert said("rooms in 3 days") == ["in 3 days"] and not says_when("stay 3 days")
    # "a" counts one, and a fortnight is a count of its own: read whole, not "fortnight".
    assert said("free in a fortnight?") == ["in a fortnight"]
    # A range of weekdays is a time in short words too; alone, only the short names that are
    # no other word are.
    assert said("any room wed through fri?") == ["wed through fri"]
    # With its week, before or after it, the range is one time.
    assert said("free wed to fri next week?") == ["wed to fri next week"]
    assert said("next week's tues-thurs ok?") == ["next week's tues-thurs"]
    assert said("mon through weds of this week") == ["mon through weds of this week"]
    assert said("free Tues-Thurs?") == ["Tues-Thurs"] and said("can we do thurs") == ["thurs"]
    assert not says_when("we sat down with them") and not says_when("the sun deck")
    assert said("an audit a week from today") == ["a week from today"]


def test_a_count_of_days_out_or_ahead_is_a_time_but_not_out_of_something() -> None:
    assert said("what date is ten days out from today?") == ["ten days out from today"]
    assert said("two weeks ahead, which day is it") == ["two weeks ahead"]
    assert not says_when("we were three days out of stock")


def test_the_day_after_tomorrow_is_one_time_not_tomorrow_in_it() -> None:
    assert said("is a King free the day after tomorrow?") == ["the day after tomorrow"]
    assert said("due day after tomorrow, for Maya") == ["day after tomorrow"]
    read = parse_date_hint(said("free the day after tomorrow?")[0], TODAY)
    assert str(read.check_in) == "2026-11-26"


def test_a_stays_length_is_a_time_unless_a_relative_time_or_its_start_holds_it() -> None:
    assert said("could we make it three nights?") == ["three nights"]
    assert said("what about for 4 nights") == ["for 4 nights"]
    assert said("Dec 4 for 3 nights") == ["Dec 4 for 3 nights"]
    assert said("any rooms for 2 nights next weekend?") == ["next weekend"]
    # Apart from a day written out, it is a time too: not a count of guests.
    assert said("a King free Dec 4, 3 nights?") == ["Dec 4", "3 nights"]
    assert not says_when("a quiet night in")


def test_a_time_after_that_refers_back_unless_it_says_which_anew() -> None:
    assert said("any rooms this weekend?") == ["this weekend"]
    assert not says_when("are there rooms that weekend?")
    assert said("check that next weekend is free") == ["next weekend"]
    # Before a day's number, "that" is a pronoun: the time is said anew.
    assert said("whoops, make that the 16th") == ["the 16th"]
    assert said("make that Dec 12") == ["Dec 12"]


def test_a_week_after_next_is_read_whole() -> None:
    assert said("are any rooms free the weekend after next?") == ["weekend after next"]
    assert said("tasks due the week after next") == ["week after next"]


def test_holidays_are_those_of_the_run_date_year_and_the_next() -> None:
    assert said("rooms over Diwali?") == ["Diwali"]
    assert said("a task due before Thanksgiving") == ["Thanksgiving"]
    # The names resolve_holiday knows besides the calendars' own ("Washington's Birthday").
    assert said("the date of Presidents Day?") == ["Presidents Day"]


def test_the_date_reader_declares_where_a_message_says_what_it_reads() -> None:
    assert resolve_date_hint.finds is time_phrases
    assert "date_reader" in resolve_date_hint.provides


def test_an_arrival_and_the_departure_after_it_are_one_stay() -> None:
    assert said("a Queen for Bo Lee, arriving Friday, leaving Sunday") == [
        "arriving Friday, leaving Sunday"
    ]
    assert said("in on the 3rd, out on the 5th please") == ["in on the 3rd, out on the 5th"]
    assert said("checking in Dec 3 and checking out Dec 6") == [
        "checking in Dec 3 and checking out Dec 6"
    ]
    # Two days that are no arrival and departure stay two times.
    assert said("call Jo on Friday and leave it until Sunday") == ["Friday", "Sunday"]
    for phrase, check_in, check_out in [
        ("arriving Friday, leaving Sunday", "2026-11-27", "2026-11-29"),
        ("in on the 3rd, out on the 5th", "2026-12-03", "2026-12-05"),
        ("checking in Dec 3 and checking out Dec 6", "2026-12-03", "2026-12-06"),
    ]:
        stay = parse_date_hint(phrase, TODAY)
        assert (stay.check_in.isoformat(), stay.check_out.isoformat()) == (check_in, check_out)
