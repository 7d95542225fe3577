"""Stage two of the local model: values copied from the turn, and replies kept to the results."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from core.models.local_answer import (
    GREETING,
    OFFER,
    UNLOOKED,
    WELCOME,
    WELL,
    abilities_reply,
    asking_for,
    asks_abilities,
    grounded,
)
from core.models.local_args import call_grammar, pools, unfillable
from core.models.local_call import distinct_dates, titled, with_start, without_repeats
from core.models.local_turn import read_turn

SYSTEM = SystemMessage(
    "You are agentloop.\n\nToday is Tuesday, 2026-11-24 (UTC). You are ...\n\n"
    "Context gathered for this message:\nUse these ...\n"
    "- [workspace client] Thorinox: client Thorinox: Kitchen tools.\n"
    "- [workspace brand] Garlic Press (Thorinox): brand Garlic Press of Thorinox, maps to x"
)
ASSIGN = {
    "function": {
        "name": "assign_person",
        "parameters": {
            "type": "object",
            "properties": {
                "client": {"type": "string"},
                "person": {"type": "string"},
                "brand": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "team": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
            "required": ["client", "person"],
        },
    }
}
BOOKING = {
    "function": {
        "name": "create_booking",
        "parameters": {
            "type": "object",
            "properties": {
                "check_in": {"type": "string", "format": "date"},
                "guests": {"type": "integer"},
                "guest_name": {"type": "string"},
            },
            "required": ["check_in", "guest_name"],
        },
    }
}
LIST_TASKS = {
    "type": "function",
    "function": {
        "name": "list_tasks",
        "parameters": {
            "type": "object",
            "properties": {
                "client": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "status": {
                    "anyOf": [{"enum": ["open", "done"], "type": "string"}, {"type": "null"}]
                },
                "due_before": {"anyOf": [{"format": "date", "type": "string"}, {"type": "null"}]},
                "limit": {"type": "integer", "minimum": 1},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
        },
    },
}


def turn_of(ask: str, *results: tuple[str, dict[str, Any]]) -> Any:
    messages: list[Any] = [SYSTEM, HumanMessage(ask)]
    for number, (name, result) in enumerate(results):
        call = {"name": name, "args": {}, "id": f"call_{number}", "type": "tool_call"}
        messages.append(AIMessage("", tool_calls=[call]))
        messages.append(ToolMessage(json.dumps(result), tool_call_id=f"call_{number}", name=name))
    return read_turn(messages)


def after_exchange(
    asked: str,
    call: dict[str, Any],
    result: dict[str, Any],
    answer: str,
    ask: str,
    system: SystemMessage = SYSTEM,
) -> Any:
    """The turn of `ask`, after `asked` was answered by one call, its result and `answer`."""
    return read_turn(
        [
            system,
            HumanMessage(asked),
            AIMessage("", tool_calls=[call]),
            ToolMessage(json.dumps(result), tool_call_id=call["id"]),
            AIMessage(answer),
            HumanMessage(ask),
        ]
    )


def test_pools_hold_spans_names_numbers_and_dates_of_the_turn() -> None:
    turn = turn_of(
        "What is open for Thorinox until December 18? Show 5",
        ("resolve_date_hint", {"check_in": "2026-12-04", "nights": 2}),
    )

    values = pools(turn)

    assert "Thorinox" in values.spans and "open for Thorinox" in values.spans
    assert "Thorinox" in values.names and "open" not in values.names
    assert "What" not in values.names  # the message's opening word is not a name
    # A date's day is no count: "December 18" gives a date, not the number 18.
    assert {"5", "2"} <= set(values.numbers) and "18" not in values.numbers
    assert values.dates == ("2026-12-18", "2026-12-04")


def test_a_number_outside_an_arguments_bounds_is_not_offered() -> None:
    pytest.importorskip("llama_cpp")
    rooms = {
        "function": {
            "name": "get_availability",
            "parameters": {
                "type": "object",
                "properties": {"guests": {"type": "integer", "minimum": 1, "maximum": 10}},
            },
        }
    }

    text = call_grammar(rooms, pools(turn_of("rooms for 2 or 12 people")))._grammar

    assert '"2"' in text and '"12"' not in text


def test_the_grammar_offers_only_what_the_turn_holds() -> None:
    pytest.importorskip("llama_cpp")
    grammar = call_grammar(LIST_TASKS, pools(turn_of("what's still open for Thorinox?")))
    text = grammar._grammar

    assert '"\\"list_tasks\\""' in text
    assert '"\\"Thorinox\\""' in text  # a name the message gives
    assert '"\\"open\\""' in text and '"\\"done\\""' not in text  # only the named status
    # Nothing fills a date, a number or a list: those optional arguments are left out.
    for absent in ("due_before", "limit", "tags"):
        assert absent not in text


def test_a_required_argument_keeps_its_schema_when_the_turn_cannot_fill_it() -> None:
    pytest.importorskip("llama_cpp")
    tool = {
        "function": {
            "name": "get_availability",
            "parameters": {
                "type": "object",
                "properties": {"check_in": {"type": "string", "format": "date"}},
                "required": ["check_in"],
            },
        }
    }

    text = call_grammar(tool, pools(turn_of("any room free?")))._grammar

    assert "check_in" in text and "copied" not in text


def test_optional_arguments_do_not_repeat_another_value() -> None:
    tool = {"function": {"name": "create_task", "parameters": {"required": ["client", "title"]}}}
    args = {
        "client": "Thorinox",
        "title": "refresh the Garlic Press images",
        "brand": "Garlic Press",
        "assignee": "Thorinox",
        "due_date": "2026-12-04",
    }

    kept = without_repeats(args, tool)

    assert kept == {
        "client": "Thorinox",
        "title": "refresh the Garlic Press images",
        "due_date": "2026-12-04",
    }


def test_a_reply_that_ignores_the_result_is_replaced_by_the_result() -> None:
    result = {"holiday": "Hanukkah", "start": "2026-12-05", "end": "2026-12-12"}
    turn = turn_of("When is Hanukkah this year?", ("resolve_holiday", result))

    kept, own = grounded("Hanukkah starts on 2026-12-05.", turn, "")
    assert (kept, own) == ("Hanukkah starts on 2026-12-05.", True)

    shown, own = grounded("Hanukkah is a festival of lights.", turn, "")
    assert not own
    assert shown.startswith("Here is what resolve_holiday found:")
    assert "start: 2026-12-05" in shown


def test_one_named_value_is_not_enough_when_the_result_added_many() -> None:
    task = {
        "title": "Refresh Garlic Press main images",
        "brand": "Garlic Press",
        "assignee": "Omar Haddad",
        "due_date": "2026-12-04",
    }
    tasks = {"count": 1, "tasks": [task]}
    turn = turn_of("what's still open for Thorinox?", ("list_tasks", tasks))

    shown, own = grounded("There are no tasks for Garlic Press.", turn, "")

    assert not own and "Refresh Garlic Press main images" in shown


def test_without_results_the_reply_is_the_models() -> None:
    assert grounded("You're welcome!", turn_of("thanks!"), "thanks!") == ("You're welcome!", True)
    prompt = "Today is Tuesday, 2026-11-24 (UTC).\nwhat's the date?"
    dated = "Today is 2026-11-24."
    assert grounded(dated, turn_of("what's the date?"), prompt) == (dated, True)
    # Seen with the local model: past the first line it wanders off.
    rambling = "You're welcome! I'm glad you enjoyed my chat.\nThank you for everything,"
    welcome = ("You're welcome! I'm glad you enjoyed my chat.", True)
    assert grounded(rambling, turn_of("thank you so much"), "") == welcome


def test_without_results_a_reply_dressed_as_a_lookup_is_replaced() -> None:
    # Seen with the local model after an availability answer: "what about tomorrow?" was
    # answered with that answer's rendering and dates that do not exist.
    prompt = "Here is what get_availability found:\ncheck_in: 2026-12-05\nwhat about tomorrow?"
    turn = turn_of("what about tomorrow?")
    echo = "Here is what get_availability found:\ncheck_in: 2026-12-05\nnights: 1"
    invented = "Yes, the Queen room is free on 2026-12-32."

    for reply in (echo, invented):
        assert grounded(reply, turn, prompt) == (UNLOOKED, False), reply
    plain = "Sure, which dates do you have in mind?"
    assert grounded(plain, turn, prompt) == (plain, True)
    # Seen with the local model: "thanks!" after a room list copied the list.
    assert grounded(echo, turn_of("thanks!"), prompt) == (WELCOME, False)
    assert grounded(invented, turn_of("hello"), prompt) == (GREETING, False)


def test_thanks_for_a_greeting_or_a_question_and_unasked_condolences_are_replaced() -> None:
    # Seen with the local model: each of these replies, to each of these messages.
    assert grounded("You're welcome! I'm glad you found me.", turn_of("hi"), "") == (
        GREETING,
        False,
    )
    consoled = "I'm sorry for your loss. I'll be happy to help you out!"
    assert grounded(consoled, turn_of("What can you do?"), "") == (OFFER, False)
    assert grounded("You're welcome! What's your task?", turn_of("what now?"), "") == (
        OFFER,
        False,
    )
    # Thanks, and what reads as thanks, are still welcomed; a loss mentioned is consoled.
    for ask, reply in (
        ("great, that's perfect", "You're welcome! Goodbye."),
        ("my dog died", "I'm sorry for your loss."),
    ):
        assert grounded(reply, turn_of(ask), "") == (reply, True)


def test_a_range_of_days_gives_both_dates() -> None:
    assert pools(turn_of("Check availability for January 17-19")).dates == (
        "2027-01-17",
        "2027-01-19",
    )
    assert pools(turn_of("a room from Dec 4 to 6?")).dates == ("2026-12-04", "2026-12-06")


def test_a_shown_result_reads_dates_as_words_and_records_one_per_line() -> None:
    candidates = [
        {"id": 4, "name": "Garlic Press", "client": "Distex", "client_id": 1, "mapped": False},
        {"id": 1, "name": "Garlic Press", "client": "Thorinox", "destination_list": None},
    ]
    brand = {"status": "ambiguous", "query": "Garlic Press", "candidates": candidates}
    turn = turn_of("Which client owns Garlic Press?", ("resolve_brand", brand))

    shown, own = grounded("It is a brand.", turn, "")

    assert not own
    assert shown.splitlines()[-3:] == [
        "- name: Garlic Press, client: Distex, mapped: false",
        "- name: Garlic Press, client: Thorinox",
        "Which one do you mean?",
    ]
    holiday = {"holiday": "Hanukkah", "start": "2026-12-05"}
    shown, _ = grounded("", turn_of("When is Hanukkah?", ("resolve_holiday", holiday)), "")
    assert "start: 2026-12-05 (Saturday, December 5)" in shown


def test_a_call_that_did_not_go_through_is_explained_in_the_tools_words() -> None:
    call = {"name": "create_task", "args": {}, "id": "call_0", "type": "tool_call"}
    rejected = ToolMessage(
        "Not executed: U0GRACE rejected this change, so it did not happen. Tell the person.",
        tool_call_id="call_0",
        name="create_task",
        status="error",
    )
    turn = read_turn([SYSTEM, HumanMessage("no"), AIMessage("", tool_calls=[call]), rejected])

    shown, own = grounded("The task has been created and removed.", turn, "")

    assert not own
    assert shown == "I did not create the task: U0GRACE rejected this change, so it did not happen."


def test_a_reply_that_copies_the_result_with_changed_values_is_replaced() -> None:
    task = {"title": "Refresh Garlic Press main images", "due_date": "2026-12-04"}
    turn = turn_of("what's still open for Thorinox?", ("list_tasks", {"tasks": [task]}))

    copied = "tool result (list_tasks):\ntitle: Refresh Garlic Press main images\ndue: 2026-12-04"
    changed = "Refresh Garlic Press main images is due 2026-12-31."
    # Seen with the local model: the result's fields retold as "the tool result".
    retold = "The tool result is resolved to:\n- title: Refresh Garlic Press main images"
    for reply in (copied, changed, retold):
        shown, own = grounded(reply, turn, "")
        assert not own and "due_date: 2026-12-04 (Friday, December 4)" in shown, reply

    kept = "Refresh Garlic Press main images is due 2026-12-04."
    assert grounded(kept, turn, "") == (kept, True)


def test_a_reply_that_copies_an_earlier_answers_rendering_is_replaced() -> None:
    candidates = [
        {"name": "Garlic Press", "client": "Distex"},
        {"name": "Garlic Press", "client": "Thorinox"},
    ]
    brand = {"status": "ambiguous", "query": "Garlic Press", "candidates": candidates}
    turn = turn_of("Which client owns the Garlic Press brand?", ("resolve_brand", brand))
    # Seen after a list_tasks answer in the same thread: its header, with mixed-up values.
    copied = (
        "The client who owns the Garlic Press brand is not known. The tool results list_tasks"
        " found:\n- 4\n    name: Garlic Press\n    client: Distex\n    client: Thorinox"
    )

    shown, own = grounded(copied, turn, "")

    assert not own
    assert shown.startswith("Here is what resolve_brand found:")
    assert shown.endswith("Which one do you mean?")
    said = "Garlic Press belongs to Distex and to Thorinox: which one do you mean?"
    assert grounded(said, turn, "") == (said, True)


ROOMS_PARAMETERS = {
    "type": "object",
    "properties": {
        "check_in": {"type": "string", "format": "date"},
        "check_out": {"type": "string", "format": "date"},
        "guests": {"type": "integer"},
    },
    "required": ["check_in", "check_out"],
}


def test_repeated_dates_take_the_turns_dates_in_order() -> None:
    rooms = {
        "type": "function",
        "function": {"name": "get_availability", "parameters": ROOMS_PARAMETERS},
    }
    values = pools(turn_of("Is a room available from December 18 to December 20?"))
    repeated = {"check_in": "2026-12-20", "check_out": "2026-12-20", "guests": 2}

    assert distinct_dates(repeated, rooms, values) == {
        "check_in": "2026-12-18",
        "check_out": "2026-12-20",
        "guests": 2,
    }
    swapped = {"check_in": "2026-12-20", "check_out": "2026-12-18"}
    assert distinct_dates(swapped, rooms, values) == swapped  # distinct: the model's own


def test_a_client_or_brand_argument_takes_only_what_the_message_mentions() -> None:
    pytest.importorskip("llama_cpp")
    values = pools(turn_of("put Omar on Thorinox for Garlic Press"))
    assert values.entities == {"client": ("Thorinox",), "brand": ("Garlic Press",)}

    text = call_grammar(ASSIGN, values)._grammar

    client_rule = next(line for line in text.splitlines() if "Thorinox" in line)
    assert "Omar" not in client_rule  # a person's name is no client
    assert "Omar" in text  # but fills the person
    plain = read_turn([SystemMessage("You are agentloop."), HumanMessage("put Omar on Distex")])
    unbranded = call_grammar(ASSIGN, pools(plain))._grammar
    assert "brand" not in unbranded  # a brand the message does not mention is left out


def test_a_follow_up_takes_the_previous_exchanges_values() -> None:
    call = {"name": "get_availability", "args": {}, "id": "c1", "type": "tool_call"}
    call["args"] = {"check_in": "2027-01-17", "guests": 2}
    result = ToolMessage(json.dumps({"rooms": [{"room_type": "Queen"}]}), tool_call_id="c1")
    turn = read_turn(
        [
            SYSTEM,
            HumanMessage("Is there a Queen free January 17 for two?"),
            AIMessage("", tool_calls=[call]),
            result,
            AIMessage("Yes."),
            HumanMessage("book it for Dana Levi"),
        ]
    )

    assert turn.earlier == {
        "check_in": ("2027-01-17",),
        "guests": (2,),
        "room_type": ("Queen",),
    }
    values = pools(turn)
    assert unfillable(BOOKING, values) == []
    pytest.importorskip("llama_cpp")
    text = call_grammar(BOOKING, values)._grammar
    assert '"\\"2027-01-17\\""' in text and "2" in text


def test_a_follow_up_takes_any_date_the_previous_exchange_held() -> None:
    call = {"name": "resolve_holiday", "args": {"holiday_name": "Hanukkah"}, "id": "c1"}
    holiday = {"holiday": "Hanukkah", "start": "2026-12-05", "end": "2026-12-12"}
    turn = after_exchange(
        "When is Hanukkah this year?", call, holiday, "From December 5 to 12.", "any rooms then?"
    )
    values = pools(turn)
    rooms = {"function": {"name": "get_availability", "parameters": ROOMS_PARAMETERS}}

    assert unfillable(rooms, values) == []
    repeated = {"check_in": "2026-12-05", "check_out": "2026-12-05"}
    assert distinct_dates(repeated, rooms, values) == {
        "check_in": "2026-12-05",
        "check_out": "2026-12-12",
    }


def test_a_one_day_answer_gives_a_one_night_stay() -> None:
    call = {"name": "resolve_holiday", "args": {"holiday_name": "Christmas"}, "id": "c1"}
    holiday = {"holiday": "Christmas Day", "start": "2026-12-25", "end": "2026-12-25"}
    turn = after_exchange(
        "when is Christmas?", call, holiday, "December 25.", "any rooms for 3 guests then?"
    )
    rooms = {"function": {"name": "get_availability", "parameters": ROOMS_PARAMETERS}}
    repeated = {"check_in": "2026-12-25", "check_out": "2026-12-25", "guests": 3}

    assert distinct_dates(repeated, rooms, pools(turn)) == {
        "check_in": "2026-12-25",
        "check_out": "2026-12-26",
        "guests": 3,
    }
    # Not for optional dates (a filter may well start and end on one day).
    optional = {"function": {"name": "x", "parameters": {**ROOMS_PARAMETERS, "required": []}}}
    same_day = {"check_in": "2026-12-25", "check_out": "2026-12-25"}
    assert distinct_dates(same_day, optional, pools(turn)) == same_day


def test_a_message_that_says_its_own_time_takes_no_earlier_date() -> None:
    call = {"name": "list_tasks", "args": {"client": "Thorinox"}, "id": "c1"}
    tasks = {"tasks": [{"title": "Refresh images", "due_date": "2026-12-04"}]}

    def after_tasks(ask: str) -> Any:
        asked = "what's still open for Thorinox?"
        return pools(after_exchange(asked, call, tasks, "Refresh images, due December 4.", ask))

    rooms = {"function": {"name": "get_availability", "parameters": ROOMS_PARAMETERS}}
    # Seen with the local model: both ends of the stay took the task's due date.
    for ask in ("Do we have a room free next weekend?", "a room for Friday?", "tonight?"):
        values = after_tasks(ask)
        assert values.own_time and values.earlier_dates == (), ask
        assert unfillable(rooms, values) == ["check_in", "check_out"], ask
        assert values.carried_dates("check_in") == (), ask
    then = after_tasks("any rooms then?")
    assert not then.own_time and unfillable(rooms, then) == []
    named = after_tasks("a room from December 18 to 20 next week?")
    assert not named.own_time and named.dates == ("2026-12-18", "2026-12-20")


def test_a_follow_up_that_says_its_own_time_drops_earlier_times_and_failed_calls() -> None:
    hint = {"type": "string"}
    reader = {
        "function": {
            "name": "resolve_date_hint",
            "parameters": {"type": "object", "properties": {"hint": hint}, "required": ["hint"]},
        }
    }
    ok = {"name": "resolve_date_hint", "args": {"hint": "this weekend"}, "id": "c1"}
    bad = {"name": "resolve_date_hint", "args": {"hint": "2 nights"}, "id": "c2"}
    stay = {"check_in": "2026-11-27", "check_out": "2026-11-29"}
    messages = [
        SYSTEM,
        HumanMessage("Do we have a room free this weekend? and for 2 nights from monday?"),
        AIMessage("", tool_calls=[ok, bad]),
        ToolMessage(json.dumps(stay), tool_call_id="c1"),
        ToolMessage("error: not understood", tool_call_id="c2", status="error"),
        AIMessage("Rooms are free."),
    ]

    tomorrow = pools(read_turn([*messages, HumanMessage("any rooms tomorrow?")]))
    again = pools(read_turn([*messages, HumanMessage("and the one after that?")]))

    assert tomorrow.carried_texts("hint") == ()
    assert again.carried_texts("hint") == ("this weekend",)  # "2 nights" failed
    pytest.importorskip("llama_cpp")
    assert "this weekend" not in call_grammar(reader, tomorrow)._grammar


def test_an_optional_date_takes_no_date_of_another_kind() -> None:
    call = {"name": "get_availability", "args": {"check_in": "2026-11-27"}, "id": "c1"}
    rates = {"rooms": [{"room_type": "Queen", "nightly_rates": {"2026-11-28": 149}}]}
    values = pools(
        after_exchange(
            "any rooms this weekend?", call, rates, "The Queen is free.", "what's due for Thorinox?"
        )
    )

    assert values.carried_dates("due_before", required=False) == ()
    assert values.carried_dates("check_in", required=False) == ("2026-11-27",)
    assert values.carried_dates("check_out") == ("2026-11-27",)  # required: any date held
    pytest.importorskip("llama_cpp")
    assert "due_before" not in call_grammar(LIST_TASKS, values)._grammar


def test_a_client_is_carried_over_unless_the_message_asks_which_client() -> None:
    call = {"name": "list_tasks", "args": {"client": "Thorinox"}, "id": "c1"}

    def after_tasks(ask: str) -> Any:
        asked, nothing = "what's still open for Thorinox?", {"count": 0, "tasks": []}
        # No context block names a client.
        plain = SystemMessage("You are agentloop.")
        return after_exchange(asked, call, nothing, "Nothing is open.", ask, plain)

    asking = pools(after_tasks("Which client owns the Garlic Press brand?"))
    following = pools(after_tasks("and who is assigned to the account?"))

    assert asking.asked == {"client"} and following.asked == frozenset()
    pytest.importorskip("llama_cpp")
    assert "Thorinox" not in call_grammar(LIST_TASKS, asking)._grammar
    assert "Thorinox" in call_grammar(LIST_TASKS, following)._grammar


def test_a_list_of_records_names_no_one_client_to_carry_over() -> None:
    call = {"name": "list_tasks", "args": {"due_before": "2026-12-10"}, "id": "c1"}
    tasks = {"tasks": [{"client": "Distex"}, {"client": "Thorinox"}, {"client": "Distex"}]}
    plain = SystemMessage("You are agentloop.")
    asked = "what tasks are due before December 10?"

    values = pools(after_exchange(asked, call, tasks, "Two.", "which tasks does Omar have?", plain))

    assert values.earlier["client"] == ("Distex", "Thorinox")
    pytest.importorskip("llama_cpp")
    grammar = call_grammar(LIST_TASKS, values)._grammar
    assert "Distex" not in grammar and "Thorinox" not in grammar


def test_a_date_in_the_message_is_no_name() -> None:
    values = pools(turn_of("what tasks are due before December 10 for Omar Haddad, Friday?"))

    assert values.dates == ("2026-12-10",)
    assert "Omar Haddad" in values.names
    assert not [name for name in values.names if "December" in name or "Friday" in name]
    assert "December 10" in values.spans  # a required string may still take it


def test_a_required_date_nothing_gives_makes_the_tool_unfillable() -> None:
    assert unfillable(BOOKING, pools(turn_of("book the queen room for Dana Levi"))) == ["check_in"]
    assert unfillable(BOOKING, pools(turn_of("book a room on December 18 for Dana"))) == []


def test_a_title_is_capitalized_and_does_not_name_another_argument() -> None:
    args = {"client": "Thorinox", "title": "refresh the Garlic Press images for Thorinox"}
    assert titled(args) == {"client": "Thorinox", "title": "Refresh the Garlic Press images"}
    assert titled({"client": "Acme"}) == {"client": "Acme"}


def test_a_status_word_does_not_ground_a_reply() -> None:
    found = {
        "status": "found",
        "brand": {"name": "Garlic Press", "marketplace": "amazon_us"},
        "destination": {"space": "Thorinox", "list": "Amazon US - Garlic Press"},
    }
    turn = turn_of("the Thorinox one", ("resolve_brand", found))

    shown, own = grounded("The brand was not found on amazon_us.", turn, "")

    assert not own and "list: Amazon US - Garlic Press" in shown


def test_function_words_alone_are_no_value_to_copy() -> None:
    spans = pools(turn_of("remember that Thorinox prefers email")).spans

    assert "that" not in spans and "remember that" in spans
    assert "that Thorinox prefers email" in spans and "Thorinox prefers email" in spans


def test_a_stays_length_copied_alone_takes_the_time_it_starts_at() -> None:
    ask = "is there a room free on Friday for 2 nights?"

    assert with_start({"hint": "2 nights"}, ask) == {"hint": "Friday for 2 nights"}
    assert with_start({"hint": "2 nights"}, "2 nights from next friday") == {
        "hint": "2 nights from next friday"
    }
    # Nothing says when: the length stays as written (the tool says what it lacks).
    assert with_start({"hint": "2 nights"}, "a room for 2 nights") == {"hint": "2 nights"}
    assert with_start({"hint": "Friday", "guests": 2}, ask) == {"hint": "Friday", "guests": 2}


def test_the_question_for_missing_dates_names_them() -> None:
    assert asking_for(["check_in", "check_out"]) == (
        "Which dates do you mean? I need the check in and check out dates."
    )
    assert asking_for(["due_date"]) == "Which date do you mean? I need the due date."


def test_an_optional_number_takes_the_messages_not_a_results_count_of_something_else() -> None:
    pytest.importorskip("llama_cpp")
    rooms = {"function": {"name": "get_availability", "parameters": ROOMS_PARAMETERS}}
    stay = {"check_in": "2026-11-27", "check_out": "2026-11-28", "nights": 1}

    chained = pools(turn_of("what about friday?", ("resolve_date_hint", stay)))
    asked = pools(turn_of("what about friday for 3 guests?", ("resolve_date_hint", stay)))

    assert "1" in chained.numbers and chained.said_numbers == ()
    assert "guests" not in call_grammar(rooms, chained)._grammar  # the default applies
    grammar = call_grammar(rooms, asked)._grammar
    assert "guests" in grammar and '"3"' in grammar


def test_an_argument_a_result_names_takes_that_results_value() -> None:
    pytest.importorskip("llama_cpp")
    rooms = {
        "status": "found",
        "check_in": "2026-12-04",
        "guests": 2,
        "rooms": [
            {"room_type": "Queen", "nightly_rates": [{"date": "2026-12-05", "rate": 149}]},
            {"room_type": "King Suite", "nightly_rates": []},
        ],
    }
    booking = {
        "function": {
            "name": "create_booking",
            "parameters": {
                "type": "object",
                "properties": {
                    **BOOKING["function"]["parameters"]["properties"],
                    "room_type": {"type": "string"},
                },
                "required": ["check_in", "guest_name", "room_type"],
            },
        }
    }

    def copied(ask: str) -> list[str]:
        """The values each copied argument may take, one rule per argument."""
        text = call_grammar(booking, pools(turn_of(ask, ("get_availability", rooms))))._grammar
        return [line.split(" ::= ")[1] for line in text.splitlines() if line.startswith("copied-")]

    values = pools(turn_of("book a room for Dana Levi next weekend", ("get_availability", rooms)))
    check_in, guests, guest_name, room_type = copied("book a room for Dana Levi next weekend")

    assert values.fields["check_in"] == ("2026-12-04",)
    # A nightly rate's date is a date the turn holds, but the results say which one starts it.
    assert check_in == '"\\"2026-12-04\\""'
    assert room_type == '"\\"Queen\\"" | "\\"King Suite\\""'
    assert '"\\"Dana Levi\\""' in guest_name  # no field of that name: the message's spans
    # The guests the lookup counted, or a number the message says; not a rate.
    assert guests == '"2"'
    assert copied("book a room for 3 for Dana Levi")[1] == '"2" | "3"'


def test_a_holiday_name_is_what_a_holiday_argument_takes_and_no_one_elses_name() -> None:
    pytest.importorskip("llama_cpp")
    holiday = {
        "function": {
            "name": "resolve_holiday",
            "parameters": {
                "type": "object",
                "properties": {
                    "holiday_name": {"type": "string", "description": "e.g. 'Hanukkah'"},
                    "country": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                },
                "required": ["holiday_name"],
            },
        }
    }

    values = pools(turn_of("book a room for Dana Levi on New Year's Eve"))
    text = call_grammar(holiday, values)._grammar

    assert values.holidays == ("New Year's Eve",) and values.own_time
    assert "New" not in values.names and "Dana Levi" in values.names
    copied = [line.split(" ::= ")[1] for line in text.splitlines() if line.startswith("copied-")]
    assert copied[0] == '"\\"New Year\'s Eve\\""'
    # Any other text argument takes the message's spans as before.
    assert call_grammar(BOOKING, values)._grammar.count("Dana Levi") >= 1


@pytest.mark.parametrize(
    "ask",
    [
        "what can you do?",
        "Help",
        "help!",
        "What else can you do?",
        "how can you help me?",
        "what can I ask you?",
        "what do you do",
    ],
)
def test_a_message_asking_only_what_the_assistant_can_do_is_told_so(ask: str) -> None:
    assert asks_abilities(ask)


@pytest.mark.parametrize(
    "ask",
    [
        "help me find Thorinox's open tasks",
        "what can you do about the Garlic Press brand?",
        "can you help Dana book a room?",
        "what do you do when a booking fails?",
    ],
)
def test_an_ask_for_something_in_particular_is_not_a_question_about_abilities(ask: str) -> None:
    assert not asks_abilities(ask)


def test_the_abilities_reply_lists_every_ability_a_line_each() -> None:
    reply = abilities_reply(["Look up a client by name", "Book a room (once you approve)"])

    assert reply.splitlines()[1:] == [
        "- Look up a client by name",
        "- Book a room (once you approve)",
    ]


@pytest.mark.parametrize("ask", ["how are you?", "Hi, how are you doing today?", "how's it going"])
def test_how_are_you_gets_the_stock_answer_not_the_models_made_up_day(ask: str) -> None:
    made_up = "I'm fine. Just checking in to your email."

    assert grounded(made_up, turn_of(ask), "") == (WELL, False)
    # Asked about something in particular, the model's own reply stands.
    assert grounded("Fine, thanks.", turn_of("how are you handling Thorinox?"), "")[1]


def test_a_change_made_is_shown_as_what_the_tool_did_and_later_taken_for_an_echo() -> None:
    booking = {"status": "booked", "guest": "Dana Levi", "check_in": "2026-12-04"}
    turn = turn_of("yes", ("create_booking", booking))

    shown, own = grounded("ok", turn, "", frozenset({"create_booking"}))

    assert not own and shown.startswith("Here is what create_booking did:")
    assert "guest: Dana Levi" in shown
    # A lookup's result still reads as what it found.
    assert grounded("ok", turn, "")[0].startswith("Here is what create_booking found:")
    # Copied into a later reply, the rendering reads as a lookup this turn did not make.
    assert grounded(shown, turn_of("and then?"), "")[0] == UNLOOKED


def test_a_listed_name_no_result_holds_gives_the_result_instead() -> None:
    candidates = {
        "status": "ambiguous",
        "candidates": [{"client": "Distex"}, {"client": "Thorinox"}],
    }
    turn = turn_of("Which client owns the Garlic Press brand?", ("resolve_brand", candidates))
    # Seen in a thread where a task's assignee had come up before.
    listed = "The owner of Garlic Press is:\n- 1. Omar Haddad\n- 2. Distex\n- 3. Thorinox"

    shown, own = grounded(listed, turn, "")

    assert not own and shown.startswith("Here is what resolve_brand found:")
    assert "Omar Haddad" not in shown
    assert grounded(listed.replace("- 1. Omar Haddad\n", ""), turn, "")[1]


def test_what_can_you_do_is_answered_from_the_abilities_act_names_without_the_model() -> None:
    from langchain_core.messages import HumanMessage

    from core.models.local_chat import LocalChatModel

    model = LocalChatModel(llama=None)  # never read: no likelihood, no generation
    config: Any = {"metadata": {"abilities": ["Look up a client by name"]}}

    answer = model.invoke([HumanMessage("what can you do?")], config)

    assert answer.content == abilities_reply(["Look up a client by name"])
    assert answer.response_metadata["local_reply"] == "what I can do"
    # A required call is not answered with a list: it goes on to the model (none here).
    with pytest.raises(AttributeError):
        model.bind(tool_choice="required").invoke([HumanMessage("help")], config)
