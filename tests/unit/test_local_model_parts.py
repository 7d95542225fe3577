"""The embedded model's parts without the model: what a message says, what a call may take,
how a step is chosen and what is said instead of prose."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from types import SimpleNamespace
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from local_model.conversation import ASKED, Call, Exchange, Result, Turn, read_turn
from local_model.decide import SURE_OF_CHANGE, Decider
from local_model.intent import SMALL_TALK
from local_model.reading import asks_to_know, masked
from local_model.replies import ask_for, shown, small_talk, which_of
from local_model.spans import spans
from local_model.values import fill, hollow, name_spans, own_words
from local_model.writing import as_span, write_call
from tools.calendar.time_phrases import time_phrases
from tools.registry import default_registry

SCHEMAS = {s["function"]["name"]: s for s in default_registry().openai_schemas()}
KINDS = {"client": [], "brand": [], "room_type": []}


def parameters(name: str) -> dict[str, Any]:
    return SCHEMAS[name]["function"]["parameters"]


def times(text: str) -> list[tuple[int, int]]:
    """Where a text says a time, as the calendar pack's date reader finds it."""
    return time_phrases(text, date(2026, 11, 24))


def turn(ask: str, calls: Sequence[Call] = (), results: Sequence[Result] = ()) -> Turn:
    return Turn(Exchange(ask, tuple(calls), tuple(results)), None, times=times)


# --- what a message says ---------------------------------------------------------------


def test_a_time_that_refers_back_takes_the_dates_the_exchange_before_found() -> None:
    holiday = Call("resolve_holiday", {"holiday_name": "Easter"})
    found = {"holiday": "Easter Sunday", "start": "2027-03-28", "end": "2027-03-28"}
    rooms = follow_up("are there rooms that weekend?", "when is Easter 2027?", holiday, found)
    offered = fill(parameters("get_availability"), rooms, KINDS, "get_availability")
    assert offered.missing == [] and offered.choices["check_in"] == ["2027-03-28"]


def test_questions_that_ask_to_know_are_told_from_requests_put_as_questions() -> None:
    assert asks_to_know("is there a room for 2 on December 18?")
    assert asks_to_know("tell me about the client Distex")
    assert not asks_to_know("can you book the Queen for Dana Levi?")
    assert not asks_to_know("note that Distex wants weekly status reports")
    assert asks_to_know("would it work to book the Queen for Dana Levi on the 3rd")
    assert asks_to_know("should we give Omar the Distex images")
    assert not asks_to_know("could you give Omar the Distex images")


def test_a_named_record_reads_as_its_kind_or_the_name_its_pack_gives_the_kind() -> None:
    named = {"client": ["Vexa"], "team_member": ["Ivo Petrov"]}
    ask = "what is Ivo Petrov doing for Vexa?"
    assert masked(ask, named) == "what is team member doing for client?"
    assert masked(ask, named, {"team_member": "Ann Lee"}) == "what is Ann Lee doing for client?"
    # A record's name that opens a name of its own is no mention of it ("Vexa Lamps").
    assert masked("add Vexa Lamps for Vexa", named) == "add Vexa Lamps for client"


def test_a_search_is_offered_the_fullest_clause_not_a_word_of_it() -> None:
    asked = turn("background colour for main images per our SOP?")
    offered = fill(parameters("search_kb"), asked, KINDS, "search_kb").choices["query"]
    assert "colour" not in offered and all(len(q.split()) > 2 for q in offered)


def test_a_new_name_that_begins_with_a_records_name_is_offered_whole() -> None:
    named = {**KINDS, "client": ["Vexa"]}
    offered = fill(parameters("create_brand"), turn("add a brand Vexa Lamps for Vexa"), named)
    assert offered.choices["client"] == ["Vexa"] and "Vexa Lamps" in offered.choices["name"]
    assert "Lamps" not in offered.choices["name"]


# --- what a call may take --------------------------------------------------------------


def test_a_record_argument_takes_only_a_record_the_message_names() -> None:
    offered = fill(parameters("list_tasks"), turn("what is Omar Haddad working on?"), KINDS)
    assert "client" not in offered.choices  # no client named: not the person's name
    assert "Omar Haddad" in offered.choices["assignee"] and "assignee" in offered.said
    mentioned = {**KINDS, "client": ["Distex"]}
    offered = fill(parameters("list_tasks"), turn("show blocked tasks for Distex"), mentioned)
    assert offered.choices["client"] == ["Distex"] and offered.choices["status"] == ["blocked"]


def test_a_record_the_message_names_in_part_is_written_as_its_filter() -> None:
    people = {**KINDS, "team_member": ["Linus Park"]}
    offered = fill(parameters("list_tasks"), turn("anything on Linus's plate?"), people)
    assert offered.choices["assignee"] == ["Linus Park"] and "assignee" in offered.said


def test_a_filter_takes_a_date_a_result_holds_only_when_the_message_says_a_time() -> None:
    found = {"client": {"name": "Thorinox"}, "tasks": [{"due_date": "2026-12-04"}]}
    looked = Call("get_client_context", {"client": "Thorinox"})
    now = turn(
        "what's Thorinox working on?", [looked], [Result(looked.name, json.dumps(found), False)]
    )
    assert "due_before" not in fill(parameters("list_tasks"), now, KINDS).choices
    read = {"hint": "next friday", "check_in": "2026-12-04", "check_out": "2026-12-05"}
    asked = Call("resolve_date_hint", {"hint": "next friday"})
    due = turn(
        "tasks due before next friday", [asked], [Result(asked.name, json.dumps(read), False)]
    )
    assert "2026-12-04" in fill(parameters("list_tasks"), due, KINDS).choices["due_before"]


def test_a_count_in_words_is_a_number_and_a_text_fits_its_schema_and_its_label() -> None:
    offered = fill(
        parameters("get_availability"), turn("a room for three people on the 20th?"), KINDS
    )
    assert offered.choices["guests"] == [3]
    assert "guests" not in fill(parameters("get_availability"), turn("the Acme one"), KINDS).choices
    brands = {**KINDS, "brand": ["Distex Lighting"]}
    listed = turn("put Distex Lighting on the list Lighting Intake")
    offered = fill(parameters("update_brand"), listed, brands)
    assert "Lighting Intake" in offered.choices["destination_list"]
    assert "Lighting Intake" not in offered.choices.get("marketplace", [])  # no channel_cc
    # Said after an argument's name, it is that argument's alone.
    assert "Lighting Intake" not in offered.choices.get("destination_space", [])
    assert "destination_list" in offered.said
    ask = "move Distex Lighting: space Distex, list Amazon US - Lighting"
    offered = fill(parameters("update_brand"), turn(ask), {**brands, "client": ["Distex"]})
    assert offered.choices["destination_space"] == ["Distex"]  # a record, said after the name
    assert offered.choices["destination_list"][0] == "Amazon US - Lighting"
    assert offered.choices["client"] == ["Distex"]  # and still its own kind's


def scripted_call(
    tool: str,
    ask: Turn,
    mentions: Mapping[str, Sequence[str]],
    wrote: Mapping[str, Any],
    changes: bool = False,
) -> tuple[dict[str, Any] | None, str]:
    """`write_call` of `tool` for `ask`, the model writing `wrote` as the call's arguments.

    `changes`: `tool` is one that changes data.
    """
    hints = SimpleNamespace(mentions=mentions, changing={tool} if changes else set())
    return write_call(
        SCHEMAS[tool],
        ask,
        hints,
        lambda prompt, grammar, tokens: json.dumps({"tool": tool, "args": dict(wrote)}),
    )


def test_a_record_the_message_names_inside_a_title_is_written_as_well() -> None:
    wrote = {"client": "Thorinox", "title": "Redo the Thorinox Peelers bullets"}
    wrote |= {"brand": "Thorinox Peelers", "assignee": "Peelers"}
    call, question = scripted_call(
        "create_task",
        turn("new task for Thorinox: redo the Thorinox Peelers bullets"),
        {**KINDS, "client": ["Thorinox"], "brand": ["Thorinox Peelers"]},
        wrote,
    )
    assert question == "" and call is not None
    assert call["args"]["brand"] == "Thorinox Peelers" and "assignee" not in call["args"]


def booking_written(ask: str, guest: str) -> tuple[dict[str, Any] | None, str]:
    wrote = {"room_type": "Queen", "check_in": "2026-12-05", "check_out": "2026-12-07"}
    stay = {"check_in": "2026-12-05", "check_out": "2026-12-07"}
    booking = replace(turn(ask), stated=(stay,))
    mentions = {**KINDS, "room_type": ["Queen"]}
    return scripted_call(
        "create_booking", booking, mentions, {**wrote, "guest_name": guest}, changes=True
    )


def test_a_change_is_given_only_a_name_the_message_writes_as_one() -> None:
    call, question = booking_written("reserve the Queen Dec 5-7 for 2 adults", "adults")
    assert call is None and "guest name" in question
    call, _ = booking_written("reserve the Queen Dec 5-7 for Dana Levi", "Dana Levi")
    assert call is not None and call["args"]["guest_name"] == "Dana Levi"
    # In a message all in lower case, its case tells nothing: two words may be a name.
    call, _ = booking_written("book the queen for dana levi dec 5-7", "dana levi")
    assert call is not None and call["args"]["guest_name"] == "Dana Levi"
    call, question = booking_written("book the queen for my client dec 5-7", "client")
    assert call is None and "guest name" in question
    call, question = booking_written("book the Queen Dec 5-7 for it", "it")  # hollow too
    assert call is None and question.count("guest name") == 1
    # In lower case, a count or a record's words are no name ("two people", "queen room").
    call, question = booking_written("book the queen dec 5-7 for two people", "two people")
    assert call is None and "guest name" in question
    call, question = booking_written("book dec 5-7 for the queen room", "queen room")
    assert call is None and "guest name" in question


def test_a_name_a_change_is_given_from_the_conversation_is_a_name() -> None:
    """A value the message does not say came from the thread: a record it named before."""
    people = Call("list_tasks", {"assignee": "Wren Okoro"})
    found = {"count": 1, "tasks": [{"title": "Kiln check", "assignee": "Wren Okoro"}]}
    move = follow_up(
        "give her the Brackwater account as designer", "what does Wren Okoro do?", people, found
    )
    wrote = {"client": "Brackwater", "person": "Wren Okoro", "assignment_role": "designer"}
    mentions = {**KINDS, "client": ["Brackwater"], "team_member": []}
    call, question = scripted_call("assign_person", move, mentions, wrote, changes=True)
    assert question == "" and call is not None and call["args"]["person"] == "Wren Okoro"


def test_a_title_that_is_the_request_itself_is_asked_for() -> None:
    def written(ask: str, title: str) -> tuple[dict[str, Any] | None, str]:
        wrote = {"client": "Thorinox", "title": title}
        return scripted_call("create_task", turn(ask), {**KINDS, "client": ["Thorinox"]}, wrote)

    call, question = written("add a task for Thorinox", "add a task")
    assert call is None and "title" in question
    call, _ = written(
        'task for Thorinox "image requirements"', 'task for Thorinox "image requirements"'
    )
    assert call is not None  # words of its own besides the tool's name
    call, _ = written(
        "audit the brand mappings, make it a Thorinox task", "audit the brand mappings"
    )
    assert call is not None


def test_a_value_set_with_to_after_its_arguments_name_is_that_arguments_alone() -> None:
    brands = {**KINDS, "brand": ["Distex Storage"]}
    moved = turn("set the Distex Storage destination list to Bins Intake")
    offered = fill(parameters("update_brand"), moved, brands)
    assert offered.choices["destination_list"] == ["Bins Intake"]
    assert "Bins Intake" not in offered.choices.get("destination_space", [])
    assert "destination_list" in offered.said
    # Named before the value, though not right before it: still that argument's alone.
    apart = turn("set the destination list for Distex Storage to Bins Intake")
    offered = fill(parameters("update_brand"), apart, brands)
    assert offered.choices["destination_list"] == ["Bins Intake"]
    assert "Bins Intake" not in offered.choices.get("destination_space", [])
    # Named after it, the name is about another value ("Ana Ruiz joins Acme, role: PPC").
    later = turn("Bins Intake it is for Distex Storage, the list")
    offered = fill(parameters("update_brand"), later, brands)
    assert "Bins Intake" in offered.choices.get("destination_space", [])
    # A record is claimed by no other argument whose name comes before it.
    role = turn("give Ida Vo a tester role on Distex")
    people = {**KINDS, "client": ["Distex"], "person": ["Ida Vo"]}
    offered = fill(parameters("assign_person"), role, people)
    assert "tester" in offered.choices["assignment_role"]  # not narrowed to the client


def test_a_changes_verb_written_as_a_one_word_value_is_asked_for() -> None:
    named = {**KINDS, "client": ["Distex"]}
    wrote = {"client": "Distex", "person": "Rivka Stein", "assignment_role": "stick"}
    ask = turn("stick Rivka Stein on Distex")
    call, question = scripted_call("assign_person", ask, named, wrote, changes=True)
    assert call is None and "assignment role" in question
    said = turn("Rivka Stein joins Distex, role: stick")  # a role said, however odd, is kept
    call, _ = scripted_call("assign_person", said, named, wrote, changes=True)
    assert call is not None and call["args"]["assignment_role"] == "stick"
    looked = {"query": "refunds"}  # a look-up's one-word value may open the message
    call, _ = scripted_call("search_kb", turn("refunds, any SOP?"), KINDS, looked)
    assert call is not None and call["args"]["query"] == "refunds"


def test_a_title_ends_before_the_clause_that_names_another_value() -> None:
    named = {**KINDS, "client": ["Distex"], "team_member": ["Rivka Stein"]}
    wrote = {"client": "Distex", "title": "Label the bin lids and ask Rivka Stein"}
    ask = turn("Distex task: label the bin lids and ask Rivka Stein")
    call, _ = scripted_call("create_task", ask, named, wrote | {"assignee": "Rivka Stein"})
    assert call is not None and call["args"]["title"] == "Label the bin lids"
    assert call["args"]["assignee"] == "Rivka Stein"
    kept = {"client": "Distex", "title": "Send the new bin photos to Rivka Stein"}
    call, _ = scripted_call("create_task", ask, named, kept)  # nobody else's value: it stays
    assert call is not None and call["args"]["title"] == kept["title"]
    # What to do with the task once made is no part of its title.
    handed = {"client": "Distex", "title": "Sort the bin returns and hand it"}
    ask = turn("Distex task to sort the bin returns and hand it to Rivka Stein")
    call, _ = scripted_call("create_task", ask, named, handed | {"assignee": "Rivka Stein"})
    assert call is not None and call["args"]["title"] == "Sort the bin returns"


def test_a_new_brands_name_is_offered_whole_wherever_the_message_says_it() -> None:
    named = {**KINDS, "client": ["Distex"]}

    def names(ask: str) -> list[Any]:
        return fill(parameters("create_brand"), turn(ask), named).choices.get("name", [])

    # a name runs to its clause's end, not on into the marketplace after the comma
    assert "Rook Hangers" in names("Distex line: Rook Hangers, amazon_ca. add it")
    assert not any("," in str(n) for n in names("Distex line: Rook Hangers, amazon_ca. add it"))
    # the opening word of the message may start a name later in it
    assert "Distex Shelves" in names("Distex has a new line, Distex Shelves; add that brand")
    # said alone, and again inside the list it is mapped to: it is still the name's
    ask = "add Rook Hangers as a Distex brand, space Distex, list Amazon CA - Rook Hangers"
    assert "Rook Hangers" in names(ask)
    assert not hollow("Rook Hangers", "create_brand", ["Amazon CA - Rook Hangers"])
    assert hollow("Distex", "create_brand", ["Distex"])  # a name that is only the client's
    assert hollow("distex", "create_task", ["Distex"])  # written in another case, the same
    assert hollow("pls", "create_task", ["Thorinox"])  # a request's filler says nothing


def test_a_name_two_records_share_is_cut_out_once_and_the_rest_of_the_message_stays() -> None:
    twice = {"client": ["Distex"], "brand": ["Garlic Press", "Garlic Press"]}  # two clients'
    ask = "Distex wants new Garlic Press photos, ASIN B0DGP77777, by friday"
    assert name_spans(ask, twice, lambda text: ()) == ["ASIN B0DGP77777"]


def test_a_time_alone_is_not_offered_as_a_text_an_argument_does_not_describe_as_a_time() -> None:
    named = {**KINDS, "client": ["Thorinox"]}
    note = turn("remember that Thorinox wants reports every Friday")

    offered = fill(parameters("remember_client_note"), note, named).choices["note"]

    assert "Friday" not in offered and "Thorinox wants reports every Friday" in offered
    hint = fill(parameters("resolve_date_hint"), turn("what date is next Friday?"), KINDS)
    assert hint.choices["hint"] == ["next Friday"]


def test_a_follow_up_keeps_the_previous_record_and_a_missing_one_is_asked_for() -> None:
    before = Exchange("list Distex's tasks", (Call("list_tasks", {"client": "Distex"}),), ())
    follow = Turn(Exchange("only the blocked ones", (), ()), before, times=times)
    assert fill(parameters("list_tasks"), follow, KINDS).choices["client"] == ["Distex"]
    offered = fill(parameters("create_booking"), turn("book a room for Dana Levi"), KINDS)
    assert {"room_type", "check_in", "check_out"} <= set(offered.missing)


def test_an_answer_to_a_question_about_a_tool_is_read_after_the_ask_it_answers() -> None:
    asked = Exchange("add a task to update the cutlery photos", (), (), asked=("create_task",))
    answer = Turn(Exchange("Thorinox", (), ()), asked, times=times)
    assert answer.said("create_task") == "add a task to update the cutlery photos\nThorinox"
    assert answer.said("list_tasks") == "Thorinox"  # the question was not about it
    mentions = {**KINDS, "client": ["Thorinox"]}
    offered = fill(parameters("create_task"), answer, mentions, "create_task")
    assert "update the cutlery photos" in offered.choices["title"]
    assert "photos Thorinox" not in " | ".join(map(str, offered.choices["title"]))  # no span across
    # A question about a tool that was then called is answered: the next message is its own.
    called = Exchange("list tasks", (Call("list_tasks", {}),), (), asked=("list_tasks",))
    assert Turn(Exchange("Distex", (), ()), called).said("list_tasks") == "Distex"


def test_a_date_written_out_is_no_part_of_a_text_in_a_call_that_takes_dates() -> None:
    ask = "book a King Suite for Alan Turing, Jan 22 to Jan 24"
    stay = ({"check_in": "2027-01-22", "check_out": "2027-01-24"},)
    booking = Turn(Exchange(ask, (), ()), None, stated=stay, times=times)

    names = fill(parameters("create_booking"), booking, KINDS).choices["guest_name"]

    assert "Alan Turing" in names and not any("Jan" in name for name in names)
    note = turn("remember that Distex wants invoices by Dec 5")  # no date argument: kept
    offered = fill(parameters("remember_client_note"), note, {**KINDS, "client": ["Distex"]})
    assert "Distex wants invoices by Dec 5" in offered.choices["note"]


def test_of_the_records_a_result_lists_a_follow_up_takes_the_one_the_ask_before_named() -> None:
    rooms = {"rooms": [{"room_type": t} for t in ("Queen", "Double Queen", "King Suite")]}
    stay = {"check_in": "2027-01-05", "check_out": "2027-01-07"}
    call = Call("get_availability", stay)
    for ask in ("is the Double Queen free Jan 5-7?", "any Double Queens free Jan 5-7?"):
        booking = follow_up("book it for Katherine Johnson", ask, call, {**stay, **rooms})

        offered = fill(parameters("create_booking"), booking, KINDS).choices

        assert offered["room_type"] == ["Double Queen"]  # not "Queen", said only inside it
    # of several listed and none named, none is guessed: the room type is asked for
    unnamed = follow_up("book one for Ann Lee", "rooms Jan 5-7?", call, {**stay, **rooms})
    assert "room_type" in fill(parameters("create_booking"), unnamed, KINDS).missing


def test_a_request_of_its_own_takes_a_record_from_the_result_before_only_when_it_holds_one() -> (
    None
):
    audit = Call("audit_brand_mappings", {})
    rows = [{"brand": b, "client": c} for b, c in (("Oat Bars", "Globex"), ("Pans", "Initech"))]
    task = follow_up("add a task to plan the spring launch", "audit the mappings", audit, rows)
    assert "client" in fill(parameters("create_task"), task, KINDS, "create_task").missing
    one = [{"brand": b, "client": "Globex"} for b in ("Oat Bars", "Oat Flakes")]
    task = follow_up("add a task to plan the spring launch", "audit the mappings", audit, one)
    assert fill(parameters("create_task"), task, KINDS, "create_task").choices["client"] == [
        "Globex"
    ]


def test_a_dated_follow_up_without_a_time_of_its_own_keeps_the_stays_other_options() -> None:
    stay = {"check_in": "2026-12-18", "check_out": "2026-12-20", "guests": 3}
    call = Call("get_availability", stay)
    rooms = {**stay, "rooms": [{"room_type": "Double Queen"}]}
    ask = "any rooms for 3 people Dec 18 to 20?"
    booking = follow_up("book the Double Queen for Ruth Bader Ginsburg", ask, call, rooms)

    offered = fill(parameters("create_booking"), booking, KINDS, "create_booking")

    assert offered.choices["guests"] == [3] and "guests" in offered.said
    anew = follow_up("book the Double Queen for Ruth Bader Ginsburg Jan 9-11", ask, call, rooms)
    assert "guests" not in fill(parameters("create_booking"), anew, KINDS, "create_booking").said


def follow_up(message: str, ask: str, call: Call, found: Any) -> Turn:
    """`message` after `ask`, which `call` answered with `found`."""
    before = Exchange(ask, (call,), (Result(call.name, json.dumps(found), False),))
    return Turn(Exchange(message, (), ()), before, times=times)


def test_a_record_found_by_a_word_of_its_name_is_the_follow_ups_new_value() -> None:
    routed = {"brand": "Distex Lighting", "client": "Distex", "destination_list": "Lamps"}
    asked = Call("resolve_brand", {"brand": "Distex Lighting"})
    other = follow_up("and the storage one?", "where does Distex Lighting go?", asked, routed)
    word = {**KINDS, "brand": ["Distex Storage"]}  # what gather found for "storage"
    assert fill(parameters("resolve_brand"), other, word).choices["brand"] == ["Distex Storage"]
    same = follow_up("and its list again?", "where does Distex Lighting go?", asked, routed)
    named = {**KINDS, "brand": ["Distex Lighting"]}  # the record the thread is about stays
    assert fill(parameters("resolve_brand"), same, named).choices["brand"] == ["Distex Lighting"]


def test_a_follow_ups_optional_filters_come_from_what_was_asked_not_what_was_found() -> None:
    tasks = {"tasks": [{"title": "Refresh", "brand": "Garlic Press", "due_date": "2026-12-01"}]}
    listed = Call("list_tasks", {"client": "Distex"})
    blocked = follow_up("only the blocked one", "what tasks does Distex have?", listed, tasks)
    offered = fill(parameters("list_tasks"), blocked, KINDS)
    assert offered.choices == {"client": ["Distex"], "status": ["blocked"]}
    # A required date may still come from what the exchange before found.
    holiday = {"holiday": "Christmas Day", "start": "2026-12-25", "end": "2026-12-25"}
    asked = Call("resolve_holiday", {"holiday_name": "Christmas"})
    rooms = follow_up("any rooms?", "when is Christmas?", asked, holiday)
    assert fill(parameters("get_availability"), rooms, KINDS).choices["check_in"] == ["2026-12-25"]


def test_a_tool_called_again_keeps_what_it_was_given_unless_the_message_replaces_it() -> None:
    listed = Call("list_tasks", {"client": "Distex", "status": "open"})
    done = follow_up("what about the done ones?", "Distex's open tasks?", listed, {"tasks": []})
    offered = fill(parameters("list_tasks"), done, KINDS, "list_tasks")
    assert offered.choices == {"client": ["Distex"], "status": ["done"]}
    assert set(offered.said) == {"client", "status"}
    # Another tool is offered the client but not made to take it.
    brands = fill(parameters("lookup_brand"), done, KINDS, "lookup_brand")
    assert brands.choices["client"] == ["Distex"] and "client" not in brands.said
    # A client the message names replaces the one kept.
    named = {**KINDS, "client": ["Distex", "Thorinox"]}
    other = follow_up("and Thorinox?", "Distex's open tasks?", listed, {"tasks": []})
    offered = fill(parameters("list_tasks"), other, named, "list_tasks")
    assert offered.choices == {"client": ["Thorinox"], "status": ["open"]}
    assert set(offered.said) == {"client", "status"}
    # A request in words of its own does not lean on the call before it.
    graces = Call("list_tasks", {"assignee": "Grace Hopper"})
    fresh = follow_up("list Thorinox's open tasks", "Grace Hopper's title?", graces, {"tasks": []})
    offered = fill(parameters("list_tasks"), fresh, named, "list_tasks")
    assert offered.choices["client"] == ["Thorinox"] and set(offered.said) == {"client", "status"}


def test_a_follow_up_that_refers_back_keeps_what_the_call_before_was_given() -> None:
    audit = Call("audit_brand_mappings", {"client": "Distex"})
    found = {"checked": 3, "missing": [{"brand": "Distex Lighting", "client": "Distex"}]}
    fix = follow_up("go ahead and fix them", "audit the brands of Distex", audit, found)
    offered = fill(parameters("apply_remediation"), fix, KINDS, "apply_remediation")
    assert offered.choices["client"] == ["Distex"] and "client" in offered.said
    # Without a word that refers back, another tool is offered the client, not made to take it.
    every = follow_up("go ahead and fix the mappings", "audit Distex", audit, found)
    offered = fill(parameters("apply_remediation"), every, KINDS, "apply_remediation")
    assert offered.choices["client"] == ["Distex"] and "client" not in offered.said


def test_a_required_record_said_as_a_pronoun_is_the_one_the_exchange_before_named() -> None:
    tasks = Call("list_tasks", {"client": "Distex", "status": "open"})
    who = follow_up("who is their account manager?", "what's open for Distex?", tasks, {})
    offered = fill(parameters("lookup_client"), who, KINDS, "lookup_client")
    assert offered.choices["query"] == ["Distex"]
    # Without a word that refers back, the message's own words are offered too.
    other = follow_up("who is the account manager?", "what's open for Distex?", tasks, {})
    offered = fill(parameters("lookup_client"), other, KINDS, "lookup_client")
    assert "Distex" in offered.choices["query"] and len(offered.choices["query"]) > 1


def test_a_person_said_as_a_pronoun_is_the_one_the_message_before_named() -> None:
    """Of what the message before named, the records of another kind than the argument's stay
    out ("Brackwater", a client, is no assignee)."""
    team = Call("lookup_client", {"query": "Brackwater"})
    found = {"client": {"name": "Brackwater", "team": [{"name": "Wren Okoro"}, {"name": "Ida Vo"}]}}
    busy = follow_up("is she busy?", "is Wren Okoro on Brackwater?", team, found)
    kinds = {**KINDS, "team_member": []}
    offered = fill(parameters("list_tasks"), busy, kinds, "list_tasks")
    assert offered.choices["assignee"] == ["Wren Okoro"] and "assignee" in offered.said
    # Without a word that refers back, nobody is meant.
    plain = follow_up("anything busy?", "is Wren Okoro on Brackwater?", team, found)
    assert "assignee" not in fill(parameters("list_tasks"), plain, kinds, "list_tasks").choices


def test_a_phrase_said_once_fills_one_argument() -> None:
    wrote = {"client": "Thorinox", "name": "Thorinox Pans", "marketplace": "Pans"}
    wrote |= {"destination_space": "Pans"}
    call, question = scripted_call(
        "create_brand",
        turn("add a brand called Thorinox Pans to Thorinox"),
        {**KINDS, "client": ["Thorinox"]},
        wrote,
    )
    assert question == "" and call is not None
    assert call["args"] == {"client": "Thorinox", "name": "Thorinox Pans"}


def test_a_value_said_after_its_arguments_name_stays_beside_a_record_alike() -> None:
    wrote = {"brand": "Distex Lighting", "client": "Distex", "destination_space": "Distex"}
    call, _ = scripted_call(
        "update_brand",
        turn("move Distex Lighting to space Distex"),
        {**KINDS, "client": ["Distex"], "brand": ["Distex Lighting"]},
        wrote,
    )
    assert call is not None and call["args"] == wrote


def test_of_two_arguments_given_the_same_words_the_records_one_stays() -> None:
    call, _ = scripted_call(
        "lookup_brand",
        turn("which brands does Thorinox have?"),
        {**KINDS, "client": ["Thorinox"]},
        {"query": "Thorinox", "client": "Thorinox"},
    )
    assert call is not None and call["args"] == {"client": "Thorinox"}


def test_a_record_the_follow_up_picks_out_of_a_listing_gives_its_fields() -> None:
    candidates = [
        {"name": "Garlic Press", "client": "Distex", "marketplace": "amazon_ca"},
        {"name": "Garlic Press", "client": "Thorinox", "marketplace": "amazon_us"},
    ]
    resolved = Call("resolve_brand", {"brand": "Garlic Press"})
    found = {"candidates": candidates}
    picked = fill(
        parameters("resolve_brand"),
        follow_up("the amazon_us one", "who owns Garlic Press?", resolved, found),
        KINDS,
        "resolve_brand",
    )
    assert picked.choices["client"] == ["Thorinox"] and picked.said == ["client"]
    unpicked = fill(
        parameters("resolve_brand"),
        follow_up("the other one", "who owns Garlic Press?", resolved, found),
        KINDS,
        "resolve_brand",
    )
    assert "client" not in unpicked.choices


def test_a_request_for_another_tool_takes_nothing_from_a_record_it_happens_to_pick() -> None:
    task = {"title": "Reshoot", "status": "open", "brand": "Cork Screw", "assignee": "Ivo Petrov"}
    pack = {"client": {"name": "Vexa"}, "tasks": [{**task, "due_date": "2026-12-03"}]}
    context = Call("get_client_context", {"client": "Vexa"})
    # "open" is the listed task's status, but here it is the request's verb.
    new = follow_up("open a task for Lumen to reprint the inserts", "Vexa?", context, pack)
    offered = fill(parameters("create_task"), new, {**KINDS, "client": ["Lumen"]}, "create_task")
    assert not {"brand", "assignee", "due_date"} & {*offered.choices, *offered.said}
    assert offered.choices["client"] == ["Lumen"]


def test_a_request_of_its_own_takes_another_tools_records_not_its_filters() -> None:
    listed = Call("list_tasks", {"client": "Vexa", "assignee": "Ivo Petrov"})
    ask, kinds = "what is Ivo Petrov working on for Vexa?", {**KINDS, "client": ["Vexa"]}
    # The listing was filtered by a person; a new task is not therefore theirs.
    new = follow_up("make a task for Vexa to reprint the inserts", ask, listed, {"tasks": []})
    offered = fill(parameters("create_task"), new, kinds, "create_task")
    assert "assignee" not in offered.choices and offered.choices["client"] == ["Vexa"]
    # The client, a record, is still offered to another tool's optional filter.
    brands = follow_up("which brands carry the inserts?", ask, listed, {"tasks": []})
    assert fill(parameters("lookup_brand"), brands, kinds, "lookup_brand").choices["client"] == [
        "Vexa"
    ]
    # A message that refers back to the person keeps them.
    theirs = follow_up("give them a task to reprint the inserts", ask, listed, {"tasks": []})
    offered = fill(parameters("create_task"), theirs, kinds, "create_task")
    assert offered.choices["assignee"] == ["Ivo Petrov"]


def test_a_record_a_result_is_about_stands_for_its_name() -> None:
    client = {"status": "found", "client": {"id": 1, "name": "Thorinox", "notes": "Kitchen"}}
    looked_up = Call("lookup_client", {"query": "Thorinox"})
    them = follow_up("what notes do we have on them?", "look up Thorinox", looked_up, client)
    assert fill(parameters("get_client_context"), them, KINDS).choices["client"] == ["Thorinox"]
    # The record a result is about is kept by a filter too, unlike a listed record's fields.
    theirs = follow_up("and their tasks?", "look up Thorinox", looked_up, client)
    offered = fill(parameters("list_tasks"), theirs, KINDS, "list_tasks")
    assert offered.choices == {"client": ["Thorinox"]} and offered.said == ["client"]
    # Unless the message neither refers back nor leans on it: a request of its own.
    afresh = follow_up("show tasks due before December 10", "look up Thorinox", looked_up, client)
    assert "client" not in fill(parameters("list_tasks"), afresh, KINDS, "list_tasks").choices
    # A required name of that kind may take it too, before the message's own words.
    manager = follow_up("who is their account manager?", "look up Thorinox", looked_up, client)
    assert fill(parameters("lookup_client"), manager, KINDS).choices["query"][0] == "Thorinox"


def read(ask: str, stay: dict[str, Any]) -> Turn:
    """`ask`, whose time the date reader has read as `stay` this turn."""
    found = [Result("resolve_date_hint", json.dumps(stay), False)]
    return turn(ask, [Call("resolve_date_hint", {"hint": stay["hint"]})], found)


def test_dates_come_from_results_and_numbers_not_from_times_or_read_phrases() -> None:
    stay = {"hint": "Dec 20-22", "check_in": "2026-12-20", "check_out": "2026-12-22", "nights": 2}
    now = read("bok a Double Queen for Ana Novak Dec 20-22", stay)
    offered = fill(parameters("create_booking"), now, {**KINDS, "room_type": ["Double Queen"]})
    assert offered.choices["check_in"] == ["2026-12-20"]
    assert offered.choices["check_out"] == ["2026-12-22"]
    assert "guests" not in offered.choices  # 20 and 22 are days, not people
    assert offered.choices["room_type"] == ["Double Queen"]


def test_a_day_read_as_one_night_is_that_day_for_a_date_of_another_name() -> None:
    """A day said alone reads as a night (in Friday, out Saturday); a due date is the Friday,
    a range's end stays offered ("due this week"), and a stay keeps both."""
    friday = {"hint": "fri", "check_in": "2026-11-27", "check_out": "2026-11-28", "nights": 1}

    kinds = {**KINDS, "client": ["Brackwater"]}
    offered = fill(
        parameters("create_task"), read("Brackwater: scrub the kiln, due friday", friday), kinds
    )
    assert offered.choices["due_date"] == ["2026-11-27"]
    week = {"hint": "wk", "check_in": "2026-11-24", "check_out": "2026-11-30", "nights": 6}
    offered = fill(parameters("list_tasks"), read("anything due this week?", week), KINDS)
    assert offered.choices["due_before"] == ["2026-11-24", "2026-11-30"]
    offered = fill(parameters("get_availability"), read("rooms friday?", friday), KINDS)
    assert offered.choices["check_out"] == ["2026-11-28"]


def test_before_a_colon_is_the_request_and_after_it_the_text() -> None:
    kinds = {**KINDS, "client": ["Brackwater"]}
    ask = turn("put a new one in for Brackwater: ring the kiln man")
    titles = fill(parameters("create_task"), ask, kinds).choices["title"]
    assert titles[0] == "ring the kiln man" and not [t for t in titles if "new" in str(t)]


def test_a_text_argument_about_times_takes_the_times_and_no_number_alone() -> None:
    offered = fill(
        parameters("resolve_date_hint"), turn("is a King Suite free on Christmas?"), KINDS
    )
    assert offered.choices["hint"] == ["Christmas"]
    offered = fill(parameters("search_kb"), turn("search 2026 budgets"), KINDS)
    queries = offered.choices["query"]
    assert "2026" not in queries and any("budgets" in q for q in queries)


def test_a_value_the_message_did_not_give_is_hollow_and_one_day_is_a_night() -> None:
    assert hollow("Distex", "remember_client_note", ["Distex"])
    assert hollow("note", "forget_client_note", [])
    assert hollow("the Thorinox note", "forget_client_note", ["Thorinox"])
    assert not hollow("wants weekly status reports", "remember_client_note", ["Distex"])
    span = as_span(
        {"check_in": "2026-12-25", "check_out": "2026-12-25"}, parameters("get_availability")
    )
    assert span == {"check_in": "2026-12-25", "check_out": "2026-12-26"}
    assert "Linus Park" in spans("Linus Park's tasks please")


# --- how a step is chosen --------------------------------------------------------------


class StubIntents:
    """Ranks every class by a fixed score (unlisted classes: 0)."""

    def __init__(self, scores: Mapping[str, float]) -> None:
        self.scores = dict(scores)
        self.asked: list[str] = []

    def rank(self, text: str, classes: Mapping[str, Sequence[str]]) -> list[tuple[str, float]]:
        self.asked.append(text)
        found = [(name, self.scores.get(name, 0.0)) for name in classes]
        return sorted(found, key=lambda item: -item[1])


@dataclass(frozen=True)
class Hints:
    examples: Mapping[str, Sequence[str]] = field(default_factory=dict)
    changing: frozenset[str] = frozenset({"create_booking", "remember_client_note", "create_task"})
    readers: frozenset[str] = frozenset({"resolve_date_hint"})
    abilities: Sequence[str] = ("Look up a client by name",)
    mentions: Mapping[str, Sequence[str]] = field(default_factory=lambda: dict(KINDS))
    read_as: Mapping[str, str] = field(default_factory=dict)
    shows: Mapping[str, Any] = field(default_factory=dict)
    manuals: Mapping[str, str] = field(default_factory=lambda: dict(MANUALS))
    times: Any = times


MANUALS = {"lookup_client": "Look up a client.", "remember_client_note": "Save a note; it waits."}


TOOLS = [
    SCHEMAS[n]
    for n in (
        "lookup_client",
        "remember_client_note",
        "get_availability",
        "resolve_date_hint",
        "create_booking",
        "list_tasks",
    )
]


def step(scores: Mapping[str, float], ask: str, hints: Hints = Hints(), **kw: Any):  # type: ignore[no-untyped-def]
    return Decider(StubIntents(scores)).step(kw.get("turn") or turn(ask), TOOLS, None, hints)


def test_small_talk_gets_a_set_answer_and_what_can_you_do_the_abilities() -> None:
    assert step({"thanks": 0.9}, "thanks!").reply == small_talk("thanks", ())
    listed = step({"abilities": 0.9}, "what can you do?").reply
    assert "Look up a client by name" in listed and "help you with" in listed


def test_how_a_change_works_is_told_from_its_manual_not_proposed() -> None:
    # The question names the change ("note"), likelier than the look-up the classifier ranks.
    told = step({"how_it_works": 0.8, "lookup_client": 0.2}, "can a saved note be undone?")
    assert told.tool is None and told.reply.endswith("\nSave a note; it waits.")
    # Not asked as a question, it is the next kind of small talk ("approve all without asking").
    ruled = step({"how_it_works": 0.5, "rules": 0.4}, "approve every change unasked")
    assert ruled.reply == step({"rules": 0.9}, "stop asking me").reply


def test_a_question_naming_no_tool_is_told_how_the_assistant_works() -> None:
    # Of the three best matched offered tools (the first three of TOOLS), a change is the
    # likelier subject of such a question than the look-up offered first.
    asked, scores = "what may you alter unasked?", {"how_it_works": 0.8, "lookup_client": 0.2}
    assert step(scores, asked).reply.endswith("\nSave a note; it waits.")
    # None of them changes data: no look-up's manual is a guess at the subject, but the
    # approvals and what the asker may ask for.
    looks = [SCHEMAS[n] for n in ("lookup_client", "get_availability", "list_tasks")]
    general = Decider(StubIntents(scores)).step(turn(asked), looks, None, Hints())
    assert general.tool is None and "once you approve it" in general.reply
    assert (
        "\n- Look up a client by name\n" in general.reply
        and "Look up a client." not in general.reply
    )
    assert step(scores, "how does it work?", Hints(manuals={})).reply == general.reply


def test_a_question_whose_likeliest_tool_is_a_change_asks_how_it_works() -> None:
    # Nothing to know is changed: naming no record, the change's share goes to how it works.
    scores = {"remember_client_note": 0.5, "lookup_client": 0.3, "how_it_works": 0.2}
    told = step(scores, "may a viewer save notes?")
    assert told.tool is None and told.reply.endswith("\nSave a note; it waits.")
    # Likelier a look-up, or naming a record, it asks of the records ("has Distex got notes?").
    looks = {"lookup_client": 0.5, "remember_client_note": 0.3, "how_it_works": 0.2}
    assert step(looks, "any notes saved lately?").tool == SCHEMAS["lookup_client"]
    # Going on from the ask before ("and one about refunds?"), it asks as that did: no manual;
    # a question of its own later in the thread is still one of how the change works.
    before = Exchange("any coupon notes?", (), ())
    thread = Turn(Exchange("and one on refunds?", (), ()), before)
    assert step(scores, "", turn=thread).tool == SCHEMAS["lookup_client"]
    later = step(scores, "", turn=Turn(Exchange("may a viewer save notes?", (), ()), before))
    assert later.tool is None and later.reply.endswith("\nSave a note; it waits.")
    distex = Hints(mentions={**KINDS, "client": ["Distex"]})
    named = step(scores, "has Distex got notes saved?", distex)
    assert named.tool is not None and named.tool["function"]["name"] == "lookup_client"


def test_a_question_of_how_something_works_is_about_the_tool_it_names() -> None:
    manuals = Hints(manuals={**MANUALS, "create_booking": "Book a room; it waits."})
    # create_booking is offered fifth, past the three best: the question names it ("book").
    told = step({"how_it_works": 0.9}, "if I ask you to book a room, is it instant?", manuals)
    assert told.tool is None and told.reply.endswith("\nBook a room; it waits.")


def test_small_talk_is_answered_only_when_likelier_than_the_tools_together() -> None:
    # Its likeliest kind leads, but the tools together are likelier: the message asks for one.
    mixed = {"acknowledgement": 0.37, "declining": 0.03, "list_tasks": 0.35, "lookup_client": 0.25}
    asked = step(mixed, "ok list those")
    assert asked.tool is not None and asked.tool["function"]["name"] == "list_tasks"
    assert step({**mixed, "declining": 0.13}, "ok fine").reply == small_talk("acknowledgement", ())


# Five tools nearly alike: the likeliest holds about a fifth of their probability.
SPREAD = {
    "lookup_client": 0.19,
    "list_tasks": 0.19,
    "get_availability": 0.19,
    "create_booking": 0.19,
}


def test_close_tools_or_an_unsure_change_are_asked_about(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("local_model.decide.CLOSE", 0.05)  # the margin the thresholds may set
    close = step({"lookup_client": 0.41, "remember_client_note": 0.39}, "Distex wants Fridays")
    assert close.tool is None
    assert close.reply.startswith("Which do you want me to do: look up a client")
    assert close.asked == ("lookup_client", "remember_client_note")
    monkeypatch.undo()
    scores = {"remember_client_note": 0.2, **SPREAD, "thanks": 0.15}
    assert SURE_OF_CHANGE * sum(SPREAD.values(), 0.2) > 0.2
    unsure = step(scores, "Distex and Fridays")
    assert unsure.tool is None and "remember a durable fact" in unsure.reply


def test_an_unsure_change_the_follow_up_points_back_to_is_proposed_when_results_fill_it() -> None:
    audit = Call("audit_brand_mappings", {"client": "Distex"})
    found = {"missing": [{"brand": "Distex Lighting", "client": "Distex"}]}
    hints = Hints(changing=frozenset({"apply_remediation", "remember_client_note"}))
    scores = {"apply_remediation": 0.2, **SPREAD, "thanks": 0.15}
    tools = [*TOOLS, SCHEMAS["apply_remediation"]]
    decider = Decider(StubIntents(scores))
    fix = follow_up("go ahead and fix them", "audit the mappings for Distex", audit, found)

    chosen = decider.step(fix, tools, None, hints)

    assert chosen.tool is not None and chosen.tool["function"]["name"] == "apply_remediation"
    alone = decider.step(turn("go ahead and fix the mappings"), tools, None, hints)
    assert alone.tool is None and "fill in missing brand destination" in alone.reply


def test_a_change_is_proposed_when_it_holds_most_of_the_tools_probability() -> None:
    # Small talk is no rival of a tool: only the tools' probability counts.
    sure = step({"remember_client_note": 0.3, "thanks": 0.4, "lookup_client": 0.1}, "note: Distex")
    assert sure.tool is not None and sure.tool["function"]["name"] == "remember_client_note"


def test_a_question_that_asks_to_know_never_reaches_a_change() -> None:
    distex = Hints(mentions={**KINDS, "client": ["Distex"]})  # a record named: no how-it-works
    scores = {"remember_client_note": 0.8, "lookup_client": 0.1}
    chosen = step(scores, "tell me about the client Distex", distex)
    assert chosen.tool is not None and chosen.tool["function"]["name"] == "lookup_client"


def test_a_tool_that_reads_a_time_is_not_chosen_when_none_is_said() -> None:
    # "that weekend" refers back to the dates found before: there is no time to read anew.
    easter = {"start": "2027-03-28", "end": "2027-03-28"}
    after = follow_up("free that weekend?", "when is Easter?", Call("resolve_holiday", {}), easter)
    chosen = step({"resolve_date_hint": 0.6, "get_availability": 0.3}, "", turn=after)
    assert chosen.tool is not None and chosen.tool["function"]["name"] == "get_availability"
    # A thread that says no time at all has none to read: the likelier reader gives way.
    alone = step({"resolve_date_hint": 0.6, "list_tasks": 0.3}, "when is the audit due?")
    assert alone.tool is not None and alone.tool["function"]["name"] == "list_tasks"
    read = step({"resolve_date_hint": 0.6, "get_availability": 0.3}, "what dates is next weekend?")
    assert read.tool is not None and read.tool["function"]["name"] == "resolve_date_hint"


def test_missing_dates_are_read_first_or_asked_for() -> None:
    read = step({"get_availability": 0.9}, "any rooms next weekend?")
    assert read.tool is not None and read.tool["function"]["name"] == "resolve_date_hint"
    asked = step({"get_availability": 0.9}, "any rooms free?")
    assert asked.tool is None and "check in and check out" in asked.reply
    assert asked.asked == ("get_availability",)


def test_after_the_dates_are_read_the_tool_that_needed_them_is_called() -> None:
    stay = {"check_in": "2026-12-04", "check_out": "2026-12-06", "nights": 2}
    read = turn(
        "any rooms next weekend?",
        [Call("resolve_date_hint", {"hint": "next weekend"})],
        [Result("resolve_date_hint", json.dumps(stay), False)],
    )
    chosen = step({"get_availability": 0.9}, "", turn=read)
    assert chosen.tool is not None and chosen.tool["function"]["name"] == "get_availability"
    failed = turn(
        "any rooms next blah?",
        [Call("resolve_date_hint", {"hint": "next blah"})],
        [Result("resolve_date_hint", "error: could not understand", True)],
    )
    assert "check in and check out" in step({"get_availability": 0.9}, "", turn=failed).reply


def test_a_time_read_for_a_likely_look_up_that_takes_dates_goes_on_to_it() -> None:
    thursday = {"hint": "thursday", "check_in": "2026-11-26", "check_out": "2026-11-27"}
    due = read("which tickets fall due ahead of thursday?", thursday)
    # The reader was likelier, but the task list holds more than a quarter: it was the aim.
    listed = step({"resolve_date_hint": 0.6, "list_tasks": 0.35}, "", turn=due)
    assert listed.tool is not None and listed.tool["function"]["name"] == "list_tasks"
    # A reader alone asked for ("what date is it?") shows its dates.
    shown = step({"resolve_date_hint": 0.9, "list_tasks": 0.05}, "", turn=due)
    assert shown.tool is None and "2026-11-26" in shown.reply


def test_a_look_up_answered_is_not_followed_by_another_that_only_the_message_fills() -> None:
    tasks = {"tasks": [{"title": "Bin lid labels", "assignee": "Rivka Stein", "status": "open"}]}
    looked = turn(
        "what is the analyst there busy with?",
        [Call("list_tasks", {"assignee": "Rivka Stein"})],
        [Result("list_tasks", json.dumps(tasks), False)],
    )
    # lookup_client could take a span of the message as its query, but no result gives one
    shown = step({"lookup_client": 0.9, "list_tasks": 0.1}, "", turn=looked)
    assert shown.tool is None and "Bin lid labels" in shown.reply


def test_a_look_ups_result_is_the_answer_even_when_it_fills_another_look_up() -> None:
    tasks = {"tasks": [{"title": "Bin lid labels", "client": "Thorinox", "status": "open"}]}
    looked = turn(
        "which account is Rivka Stein labelling bins for?",
        [Call("list_tasks", {"assignee": "Rivka Stein"})],
        [Result("list_tasks", json.dumps(tasks), False)],
    )
    # the client the result names would fill lookup_client: the result answers, not a look-up
    shown = step({"lookup_client": 0.9, "list_tasks": 0.1}, "", turn=looked)
    assert shown.tool is None and "Bin lid labels" in shown.reply


def test_a_stays_length_said_alone_is_read_from_the_stay_before_and_checked_again() -> None:
    checked = Call("get_availability", {"check_in": "2026-12-18", "check_out": "2026-12-19"})
    before = Exchange("rooms on December 18?", (checked,), ())
    longer = Turn(Exchange("make it 2 nights", (), ()), before, times=times)
    offered = fill(parameters("resolve_date_hint"), longer, KINDS, "resolve_date_hint")
    assert offered.choices == {"hint": ["2 nights"], "check_in": ["2026-12-18"]}
    assert offered.said == ["check_in"]
    reader = Call("resolve_date_hint", {"hint": "2 nights", "check_in": "2026-12-18"})
    stay = {"check_in": "2026-12-18", "check_out": "2026-12-20", "nights": 2}
    read = replace(
        longer,
        now=Exchange(longer.ask, (reader,), (Result(reader.name, json.dumps(stay), False),)),
    )
    chosen = step({"resolve_date_hint": 0.9}, "", turn=read)
    assert chosen.tool is not None and chosen.tool["function"]["name"] == "get_availability"
    # Nothing is booked for the stay read until it is checked ("make" is no guest's name).
    booking = step({"create_booking": 0.9}, "", turn=read)
    assert booking.tool is not None and booking.tool["function"]["name"] == "get_availability"
    # A time of its own read in the same thread ("next Friday") is the answer: no check.
    other = {"check_in": "2026-12-04", "check_out": "2026-12-05", "nights": 1}
    asked = replace(
        read, now=replace(read.now, results=(Result(reader.name, json.dumps(other), False),))
    )
    assert step({"resolve_date_hint": 0.9}, "", turn=asked).tool is None
    # What the reader found, not the check-in it was given, is the stay a call then takes.
    rooms = fill(parameters("get_availability"), asked, KINDS, "get_availability")
    assert rooms.choices["check_in"] == ["2026-12-04"]


def test_a_date_reader_that_failed_is_not_called_again_in_the_turn() -> None:
    failed = turn(
        "what's due this week?",
        [Call("resolve_date_hint", {"hint": "this week"})],
        [Result("resolve_date_hint", "error: could not understand 'this week'", True)],
    )
    chosen = step({"resolve_date_hint": 0.5, "list_tasks": 0.4}, "", turn=failed)
    assert chosen.tool is None and "could not understand 'this week'" in chosen.reply


def test_a_change_that_went_through_is_shown_as_done() -> None:
    booked = turn(
        "yes",
        [Call("create_booking", {"guest_name": "Dana Levi"})],
        [
            Result(
                "create_booking",
                json.dumps({"status": "confirmed", "guest_name": "Dana Levi"}),
                False,
            )
        ],
    )
    chosen = step({"create_booking": 0.9}, "", turn=booked)
    assert chosen.tool is None and chosen.reply.startswith("Here is what create_booking did:")


def test_a_follow_up_is_read_with_the_ask_before_it() -> None:
    intents = StubIntents({"list_tasks": 0.9})
    before = Exchange("what's still open for Thorinox?", (Call("list_tasks", {}),), ())
    follow = Turn(Exchange("and for Distex?", (), ()), before, times=times)
    Decider(intents).step(follow, TOOLS, None, Hints())
    assert intents.asked == ["and for Distex?", "and for Distex? what's still open for Thorinox?"]


class TextIntents(StubIntents):
    """Ranks by fixed scores for each text read (the message alone, or with the ask before)."""

    def __init__(self, by_text: Mapping[str, Mapping[str, float]]) -> None:
        super().__init__({})
        self.by_text = by_text

    def rank(self, text: str, classes: Mapping[str, Sequence[str]]) -> list[tuple[str, float]]:
        self.scores = dict(self.by_text[text])
        return super().rank(text, classes)


def chosen_after(
    before: Exchange | None, ask: str, by_text: Mapping[str, Mapping[str, float]]
) -> str:
    hints = Hints(mentions={**KINDS, "client": ["Thorinox", "Distex"]})
    chosen = Decider(TextIntents(by_text)).step(
        Turn(Exchange(ask, (), ()), before, times=times), TOOLS, None, hints
    )
    return chosen.why


def test_a_follow_up_of_records_alone_is_read_wholly_as_the_ask_before_it() -> None:
    before = Exchange("what tasks does Thorinox have?", (Call("list_tasks", {}),), ())
    scores = {
        "and client?": {"lookup_client": 0.8, "list_tasks": 0.2},
        "and client? what tasks does client have?": {"list_tasks": 0.7, "lookup_client": 0.3},
    }
    # Read half alone, "and Distex?" would be a client lookup.
    assert chosen_after(before, "and Distex?", scores).startswith("list_tasks")
    # A name that is no record of the workspace (a person's) is no word of its own either.
    named = {
        "and Linus Park?": {"lookup_client": 0.8, "list_tasks": 0.2},
        "and Linus Park? what tasks does client have?": {"list_tasks": 0.7, "lookup_client": 0.3},
    }
    assert chosen_after(before, "and Linus Park?", named).startswith("list_tasks")


def test_a_follow_up_of_records_alone_asks_the_call_before_again() -> None:
    before = Exchange("which brands does Distex have?", (Call("lookup_brand", {}),), ())
    tools = [*TOOLS, SCHEMAS["lookup_brand"]]
    hints = Hints(mentions={**KINDS, "client": ["Thorinox", "Distex"]})
    # Read alone and with the ask before, a client named alone looks most like a client lookup.
    scores = {"lookup_client": 0.7, "lookup_brand": 0.3}
    again = Turn(Exchange("what about Thorinox?", (), ()), before, times=times)
    chosen = Decider(StubIntents(scores)).step(again, tools, None, hints)
    assert chosen.tool is not None and chosen.tool["function"]["name"] == "lookup_brand"
    # With words of its own it is a request of its own.
    own = Turn(Exchange("look up Thorinox's account", (), ()), before, times=times)
    chosen = Decider(StubIntents(scores)).step(own, tools, None, hints)
    assert chosen.tool is not None and chosen.tool["function"]["name"] == "lookup_client"
    # A change asked again is no answer to a message that asks to know.
    noted = Exchange("note that Distex pays by wire", (Call("remember_client_note", {}),), ())
    knowing = Turn(Exchange("and Thorinox?", (), ()), noted, times=times)
    chosen = Decider(StubIntents({"remember_client_note": 0.6, "lookup_client": 0.4})).step(
        knowing, tools, None, hints
    )
    assert chosen.tool is not None and chosen.tool["function"]["name"] == "lookup_client"


def test_a_choice_among_results_is_answered_by_what_they_hold_not_by_a_request() -> None:
    candidates = [
        {"name": "Garlic Press", "client": "Distex", "marketplace": "amazon_ca"},
        {"name": "Garlic Press", "client": "Thorinox", "marketplace": "amazon_us"},
    ]
    found = json.dumps({"status": "ambiguous", "candidates": candidates})
    call = Call("resolve_brand", {"brand": "Garlic Press"})
    before = Exchange("who owns Garlic Press?", (call,), (Result("resolve_brand", found, False),))
    before = replace(before, asked=("resolve_brand",))
    tools = [*TOOLS, SCHEMAS["resolve_brand"], SCHEMAS["create_task"]]
    hints = Hints(mentions={**KINDS, "client": ["Thorinox", "Distex"]})
    scores = {"create_task": 0.5, "lookup_client": 0.45, "resolve_brand": 0.05}

    def chosen(ask: str) -> str:
        step = Decider(StubIntents(scores)).step(
            Turn(Exchange(ask, (), ()), before), tools, None, hints
        )
        return step.tool["function"]["name"] if step.tool else step.reply

    assert chosen("the one on amazon_ca") == "resolve_brand"
    assert chosen("I meant the Distex one") == "resolve_brand"
    # A request of its own that names a candidate's client is no answer to the choice.
    assert chosen("make a task for Distex to fix the Storage bins title") == "create_task"


def test_a_follow_up_with_words_of_its_own_is_read_alone() -> None:
    before = Exchange("what tasks does Thorinox have?", (Call("list_tasks", {}),), ())
    # The ask before is not read with it (TextIntents fails on a text it has no scores for).
    alone = {"look up who works on client": {"lookup_client": 0.6, "list_tasks": 0.4}}
    assert chosen_after(before, "look up who works on Distex", alone).startswith("lookup_client")


def test_a_follow_up_that_goes_on_from_the_ask_before_is_read_with_it() -> None:
    before = Exchange("what's open for the launch?", (Call("list_tasks", {}),), ())
    scores = {
        "and for the images?": {"get_availability": 0.6, "list_tasks": 0.4},
        "and for the images? what's open for the launch?": {"list_tasks": 0.9},
    }
    assert chosen_after(before, "and for the images?", scores).startswith("list_tasks")
    # Without "and", whether it goes on is a class ("on") told from requests of their own.
    again = "same question for the images"
    scores = {again: {"get_availability": 0.6, "list_tasks": 0.4, "on": 0.9, "own": 0.1}}
    scores |= {f"{again} what's open for the launch?": {"list_tasks": 0.9}}
    assert chosen_after(before, again, scores).startswith("list_tasks")
    scores[again] |= {"on": 0.1, "own": 0.9}
    assert chosen_after(before, again, scores).startswith("get_availability")
    focused = {"just the ones for client": {"lookup_client": 0.8, "list_tasks": 0.2}}
    focused |= {"just the ones for client list all tasks": {"list_tasks": 0.9}}
    listed = Exchange("list all tasks", (Call("list_tasks", {}),), ())
    assert chosen_after(listed, "just the ones for Thorinox", focused).startswith("list_tasks")


def test_a_follow_up_of_enum_values_is_read_with_the_ask_before_it() -> None:
    before = Exchange("what tasks does Distex have?", (Call("list_tasks", {}),), ())
    scores = {
        "and the done ones?": {"lookup_client": 0.8, "list_tasks": 0.2},
        "and the done ones? what tasks does client have?": {
            "list_tasks": 0.7,
            "lookup_client": 0.3,
        },
    }
    assert chosen_after(before, "and the done ones?", scores).startswith("list_tasks")


def test_a_follow_up_of_numbers_and_argument_names_is_read_with_the_ask_before_it() -> None:
    before = Exchange("any rooms from December 9 to 11?", (Call("get_availability", {}),), ())
    scores = {
        "for 3 guests": {"create_booking": 0.8, "get_availability": 0.2},
        "for 3 guests any rooms from December 9 to 11?": {"get_availability": 0.9},
    }
    assert chosen_after(before, "for 3 guests", scores).startswith("get_availability")
    listed = Exchange("look up Distex", (Call("lookup_client", {}),), ())
    plural = {"its brands?": {"create_booking": 0.8, "list_tasks": 0.2}}
    plural |= {"its brands? look up client": {"list_tasks": 0.9}}
    assert chosen_after(listed, "its brands?", plural).startswith("list_tasks")


def test_the_answer_to_the_models_question_leans_to_what_it_asked() -> None:
    before = Exchange("any rooms free?", (), (), asked=("get_availability",))
    scores = {
        "next weekend": {"resolve_date_hint": 0.6, "get_availability": 0.3},
        "any rooms free? next weekend": {"resolve_date_hint": 0.5, "get_availability": 0.4},
    }
    assert chosen_after(before, "next weekend", scores).startswith("get_availability")


# --- reading the conversation and what is said ----------------------------------------


def test_the_conversation_splits_into_this_exchange_and_the_one_before() -> None:
    call = {"name": "list_tasks", "args": {"client": "Distex"}, "id": "c1", "type": "tool_call"}
    messages = [
        HumanMessage("list Distex's tasks"),
        AIMessage("", tool_calls=[call]),
        ToolMessage('{"tasks": [{"title": "Map"}]}', tool_call_id="c1", name="list_tasks"),
        AIMessage("Which dates?", response_metadata={ASKED: ["get_availability"]}),
        HumanMessage("only the blocked ones"),
    ]
    read = read_turn(messages)
    assert read.ask == "only the blocked ones" and read.now.calls == ()
    assert read.before is not None and read.before.asked == ("get_availability",)
    assert read.before.values() == {"client": ["Distex"], "title": ["Map"]}


def test_results_read_a_record_per_line_and_questions_name_the_options() -> None:
    found = Result(
        "resolve_brand",
        json.dumps(
            {
                "status": "ambiguous",
                "candidates": [
                    {"id": 1, "name": "Garlic Press", "client": "Thorinox"},
                    {"id": 2, "name": "Garlic Press", "client": "Distex"},
                ],
            }
        ),
        False,
    )
    text = shown(found, {})
    assert text.splitlines() == [
        "More than one record matches:",
        "- Garlic Press — client: Thorinox",
        "- Garlic Press — client: Distex",
        "Which one do you mean?",
    ]
    assert "2026-12-05 (Saturday, December 5)" in shown(
        Result("x", '{"start": "2026-12-05"}', False), {}
    )
    refused = Result(
        "create_task", "Not executed: U0GRACE rejected this change. Do not retry.", True
    )
    assert shown(refused, {}) == "I did not create the task: U0GRACE rejected this change."
    report = {"report": {"summary": "The planner could not run: no model.", "confidence": 0}}
    assert shown(Result("create_plan", json.dumps(report), True), {}) == (
        "create_plan did not go through: The planner could not run: no model."
    )  # a failure written as JSON, in its own words
    unmade = Result("update_brand", "error: nothing to change yet: brand 'X' is ambiguous.", True)
    assert shown(unmade, {}) == (
        "update_brand did not go through: nothing to change yet: brand 'X' is ambiguous."
    )  # a change answered with why it was not proposed: its reason, not "error:"
    listed = shown(Result("lookup_client", '{"suggestions": [], "known": ["A", "B"]}', False), {})
    assert listed.endswith(":\nknown: A; B")  # lists read as words, not JSON; empty ones not
    assert which_of(["Look up a client by name (typos are fine)", "Remember a fact"]) == (
        "Which do you want me to do: look up a client by name, or remember a fact?"
    )
    assert which_of(["Remember a fact"]) == "Do you want me to remember a fact?"
    assert (
        ask_for(["check_in", "check_out"], None)
        == "I need the check in and check out: which do you mean?"
    )


def test_a_question_for_a_record_names_the_few_the_workspace_has() -> None:
    tool = {
        "function": {
            "name": "file_report",
            "description": "File a report for a team (up to one a day).\n\nMore.",
            "parameters": {
                "properties": {
                    "team": {"type": "string", "examples": ["Ops", "Sales", "Legal"]},
                    "day": {"type": "string", "format": "date"},
                    "desk": {"type": "string", "examples": ["North"]},
                }
            },
        }
    }
    assert ask_for(["team", "day", "desk"], tool) == (
        "To file a report for a team, I need the team (Ops, Sales or Legal), day and desk"
        " (North): which do you mean?"
    )


@pytest.mark.parametrize("kind", sorted(SMALL_TALK))
def test_every_kind_of_small_talk_has_an_answer(kind: str) -> None:
    assert small_talk(kind, ("a line",)).strip()


def test_small_talk_that_goes_on_to_ask_is_read_from_where_the_ask_starts() -> None:
    thanks = {"thanks": 0.9, "lookup_client": 0.1}
    scores = {"thanks! who runs client?": thanks, "thanks!": thanks}
    scores |= {"who runs client?": {"lookup_client": 0.9}}
    assert chosen_after(None, "thanks! who runs Distex?", scores).startswith("lookup_client")
    # What follows asks nothing and names no record: it is never read on its own (TextIntents
    # fails on a text it has no scores for), and the message stays small talk.
    sorry = {"sorry, wrong channel": {"apology": 0.8, "lookup_client": 0.2}}
    assert chosen_after(None, "sorry, wrong channel", sorry).startswith("small talk: apology")
    # Small talk through: the rest is read, and is small talk too.
    bye = {"ok, thanks, bye?": thanks, "ok,": thanks, "thanks, bye?": thanks, "ok, thanks,": thanks}
    assert (
        chosen_after(None, "ok, thanks, bye?", bye | {"bye?": thanks}) == "small talk: thanks 0.90"
    )
    # Small talk that asks another kind after it is answered as that kind ("hello! | what …?").
    hello = {"hello! what can you do?": {"greeting": 0.7}, "hello!": {"greeting": 0.9}}
    hello |= {"what can you do?": {"abilities": 0.8}}
    assert chosen_after(None, "hello! what can you do?", hello).startswith("small talk: abil")
    # A question that opens with no small talk is not cut ("what | sort of things ...?").
    sort = {"what sort of help?": {"abilities": 0.6}, "what": {"lookup_client": 0.5}}
    assert chosen_after(None, "what sort of help?", sort).startswith("small talk: abilities")


def test_a_look_up_the_message_cannot_fill_gives_way_to_one_it_can() -> None:
    tools = [SCHEMAS[n] for n in ("resolve_brand", "lookup_brand", "remember_client_note")]
    hints = Hints(mentions={**KINDS, "client": ["Distex"]})
    intents = StubIntents({"resolve_brand": 0.6, "lookup_brand": 0.3, "remember_client_note": 0.1})
    decider = Decider(intents)
    # No brand is named for resolve_brand to resolve; the brand list takes the client named.
    listed = decider.step(turn("which labels sit under Distex?"), tools, None, hints)
    assert listed.tool is not None and listed.tool["function"]["name"] == "lookup_brand"
    assert "resolve_brand lacks a value" in listed.why
    # A brand named: the likeliest look-up is called.
    named = Hints(mentions={**KINDS, "client": ["Distex"], "brand": ["Distex Lighting"]})
    resolved = decider.step(turn("Distex Lighting: which client?"), tools, None, named)
    assert resolved.tool is not None and resolved.tool["function"]["name"] == "resolve_brand"
    # A change that lacks a value stays the step (its call asks for the value), never a look-up.
    change = Decider(StubIntents({"remember_client_note": 0.9, "lookup_brand": 0.1}))
    asked = change.step(turn("remember they pay by wire"), tools, None, Hints())
    assert asked.tool is not None and asked.tool["function"]["name"] == "remember_client_note"


def test_a_dash_set_apart_ends_a_clause_as_a_colon_does() -> None:
    edges = frozenset({"a", "the", "to", "for"})
    for dash in ("–", "—"):
        clauses = spans(f"Globex {dash} send the revised proofs to Jo", edges)
        assert "send the revised proofs to Jo" in clauses
        assert not any(dash in clause for clause in clauses[1:])  # [0]: the whole message
    hyphened = spans("the Amazon US - Peelers list", edges)
    assert "Amazon US - Peelers list" in hyphened


def test_a_name_joined_by_a_lone_hyphen_is_not_cut_at_it() -> None:
    found = spans("point Globex Oats at Walmart CA - Cereal")
    assert "Walmart CA - Cereal" in found
    assert "Walmart CA" not in found and "Cereal" not in found and "CA - Cereal" not in found
    # a hyphen before a word that names nothing still ends a name ("Globex - call Jo")
    assert "Globex" in spans("Globex - call Jo about it")


def test_a_record_said_right_after_an_arguments_name_is_offered_to_it() -> None:
    kinds = {"client": ["Acme"], "brand": ["Acme Oats"], "room_type": []}
    asked = turn("Acme Oats should file under space Acme")
    offered = fill(parameters("update_brand"), asked, kinds, "update_brand")
    assert offered.choices["destination_space"] == ["Acme"]
    assert "destination_space" in offered.said
    assert offered.choices["client"] == ["Acme"]


def test_a_time_the_message_says_is_written_to_its_date_argument() -> None:
    """An optional date is written, not left to the model, when the message says its time."""
    week = {"hint": "next fri", "check_in": "2026-12-04", "check_out": "2026-12-05", "nights": 1}
    read = [Result("resolve_date_hint", json.dumps(week), False)]
    asked = turn(
        "task for Acme: re-shoot the oat photos, due next friday",
        [Call("resolve_date_hint", {"hint": "next friday"})],
        read,
    )
    offered = fill(parameters("create_task"), asked, {**KINDS, "client": ["Acme"]}, "create_task")
    assert offered.choices["due_date"] == ["2026-12-04"] and "due_date" in offered.said
    looked = Call("get_client_context", {"client": "Acme"})
    found = {"client": {"name": "Acme"}, "tasks": [{"due_date": "2026-12-04"}]}
    unsaid = turn(
        "what's Acme working on?", [looked], [Result(looked.name, json.dumps(found), False)]
    )
    assert "due_before" not in fill(parameters("list_tasks"), unsaid, KINDS).said


def test_a_word_of_a_records_name_said_alone_does_not_cut_a_title() -> None:
    kinds = {**KINDS, "client": ["Acme"], "brand": ["Acme Oats"]}
    asked = turn("new task for Acme: answer the oats reviews on the storefront")
    titles = fill(parameters("create_task"), asked, kinds, "create_task").choices["title"]
    # "oats" found the brand, and is a word of the title: no clause starts after it
    assert titles[0] == "answer the oats reviews on the storefront"
    assert "reviews on the storefront" not in titles


def test_a_pronoun_after_an_answer_is_the_record_the_ask_before_asked_about() -> None:
    team = [
        {"name": "Jo Kim", "title": "Lead", "assignment_role": "account_manager"},
        {"name": "Ann Lee", "title": "Analyst", "assignment_role": "analyst"},
    ]
    found = {"status": "found", "client": {"name": "Acme", "team": team}}
    asked = Call("lookup_client", {"query": "Acme"})
    kinds = {**KINDS, "client": ["Acme"], "team_member": []}
    her = follow_up("ok remove her from Acme", "who's the account manager on Acme?", asked, found)
    offered = fill(parameters("remove_assignment"), her, kinds, "remove_assignment")
    assert offered.choices["person"] == ["Jo Kim"]  # not the role the ask said


def test_the_same_search_for_another_record_swaps_the_record_in_what_it_searched() -> None:
    searched = Call("search_kb", {"query": "Brackwater returns policy", "client": "Brackwater"})
    found = {"query": "Brackwater returns policy", "documents": []}
    other = follow_up(
        "and Quillon?", "Brackwater returns policy written anywhere?", searched, found
    )
    named = {**KINDS, "client": ["Quillon"]}
    offered = fill(parameters("search_kb"), other, named, "search_kb")
    assert offered.choices["query"] == ["Quillon returns policy"]
    assert offered.choices["client"] == ["Quillon"]
    # Before, the search had nothing to search for: the message says no words of its own.
    assert "query" not in offered.missing


def test_a_note_said_as_a_pronoun_is_the_one_the_answer_before_showed() -> None:
    shown = Call("get_client_context", {"client": "Brackwater"})
    found = {"client": "Brackwater", "memory_notes": [{"note": "Invoices go to Ida Vo."}]}
    drop = follow_up("drop it", "what do we keep on Brackwater?", shown, found)
    offered = fill(parameters("forget_client_note"), drop, KINDS, "forget_client_note")
    assert offered.choices["note"] == ["Invoices go to Ida Vo."]
    # A note said in words of its own is that note, not one the answer showed.
    kept = follow_up("remember it pays in euros", "what do we keep on Brackwater?", shown, found)
    offered = fill(parameters("remember_client_note"), kept, KINDS, "remember_client_note")
    assert "Invoices go to Ida Vo." not in offered.choices["note"]


def test_a_count_said_in_words_is_written_like_one_in_digits() -> None:
    for said in ("a room for our party of three, Jan 5-7", "a room for our party of 3, Jan 5-7"):
        offered = fill(parameters("get_availability"), turn(said), KINDS, "get_availability")
        assert offered.choices["guests"] == [3] and "guests" in offered.said, said


TEAM = {
    "client": {
        "name": "Brackwater",
        "team": [
            {
                "name": "Wren Okoro",
                "title": "Account manager",
                "assignment_role": "account_manager",
            },
            {"name": "Ida Vo", "title": "SEO lead", "assignment_role": "seo_lead"},
            {"name": "Tove Lind", "title": "Designer", "assignment_role": "designer"},
        ],
    }
}


def test_a_pronoun_is_the_person_a_word_only_their_record_holds_picked_out() -> None:
    kinds = {**KINDS, "team_member": []}
    team = Call("lookup_client", {"query": "Brackwater"})
    for ask, person in (
        ("Brackwater SEO person?", "Ida Vo"),
        ("Wren's role on Brackwater?", "Wren Okoro"),
    ):
        off = follow_up("take her off it", ask, team, TEAM)
        offered = fill(parameters("remove_assignment"), off, kinds, "remove_assignment")
        assert offered.choices["person"] == [person], ask
    # A word the records share, or none holds, picks nobody.
    for ask in ("Brackwater team?", "who manages Brackwater?"):
        off = follow_up("take her off it", ask, team, TEAM)
        offered = fill(parameters("remove_assignment"), off, kinds, "remove_assignment")
        assert offered.choices.get("person") != ["Wren Okoro"], ask


def test_the_same_role_is_the_one_the_record_referred_to_holds() -> None:
    kinds = {**KINDS, "team_member": [], "client": ["Quillon"]}
    team = Call("lookup_client", {"query": "Brackwater"})
    same = follow_up("put her on Quillon too, same role", "Brackwater SEO person?", team, TEAM)
    offered = fill(parameters("assign_person"), same, kinds, "assign_person")
    assert offered.choices["person"] == ["Ida Vo"]
    assert offered.choices["assignment_role"] == ["seo_lead"]
    # A role the message says is its own: no word that refers back comes before "role".
    own = follow_up("put her on Quillon as designer", "Brackwater SEO person?", team, TEAM)
    offered = fill(parameters("assign_person"), own, kinds, "assign_person")
    assert offered.choices["assignment_role"] != ["seo_lead"]


def set_aside(call: Call, ask: str, message: str) -> Turn:
    """`message` sent while the change `call` proposed for `ask` waited: it was set aside."""
    aside = ToolMessage(
        "not run", tool_call_id="c1", name=call.name, status="error",
        additional_kwargs={"outcome": "not_confirmed"},
    )  # fmt: skip
    asked = AIMessage("", tool_calls=[{"name": call.name, "args": call.args, "id": "c1"}])
    return replace(read_turn([HumanMessage(ask), asked, aside, HumanMessage(message)]), times=times)


BOOKED = Call(
    "create_booking",
    {"room_type": "Queen", "check_in": "2026-12-14", "check_out": "2026-12-16",
     "guest_name": "Sol Arce"},
)  # fmt: skip
"""A booking proposed for "Sol Arce, Queen, Dec 14-16"."""


def test_a_change_set_aside_by_a_correction_keeps_what_it_was_given() -> None:
    longer = set_aside(BOOKED, "Sol Arce, Queen, Dec 14-16", "extend it, 4 nights")
    assert longer.before and not longer.before.results[0].failed
    assert longer.before.asked == ("create_booking",)  # a question left open
    reading = fill(parameters("resolve_date_hint"), longer, KINDS, "resolve_date_hint")
    assert reading.choices["check_in"] == ["2026-12-14"]
    offered = fill(
        parameters("create_booking"), longer, {**KINDS, "room_type": []}, "create_booking"
    )
    assert offered.choices["guest_name"] == ["Sol Arce"]
    # A name the correction says is its own.
    other = set_aside(BOOKED, "Sol Arce, Queen, Dec 14-16", "make it for Ana Ruiz")
    offered = fill(
        parameters("create_booking"), other, {**KINDS, "room_type": []}, "create_booking"
    )
    assert offered.choices["guest_name"] == ["Ana Ruiz"]


def test_a_stay_read_from_a_change_moved_on_from_proposes_that_change_again() -> None:
    longer = set_aside(BOOKED, "Sol Arce, Queen, Dec 14-16", "3 nights then")
    reader = Call("resolve_date_hint", {"hint": "3 nights", "check_in": "2026-12-14"})
    stay = {"check_in": "2026-12-14", "check_out": "2026-12-17", "nights": 3}
    read = replace(
        longer, now=Exchange(longer.ask, (reader,), (Result(reader.name, json.dumps(stay), False),))
    )
    # Even with a look-up that takes dates likely too, the change set aside is what goes on.
    chosen = step({"resolve_date_hint": 0.6, "get_availability": 0.4}, "", turn=read)
    assert chosen.tool is not None and chosen.tool["function"]["name"] == "create_booking"


def test_a_time_after_small_talk_is_read_for_what_was_left_open() -> None:
    booked = {"room_type": "Queen", "check_in": "2026-12-18", "check_out": "2026-12-20"}
    aside = Exchange("book the Queen for Ida Moss", (Call("create_booking", booked),), ())
    aside = replace(aside, asked=("create_booking",))
    oops = {"apology": 0.9, "create_booking": 0.1}
    # read alone, what follows the apology is more small talk than anything
    scores = {"oops, make that Dec 19 to Dec 21": oops, "oops,": oops}
    scores |= {"make that Dec 19 to Dec 21": {"apology": 0.6, "create_booking": 0.4}}
    assert chosen_after(aside, "oops, make that Dec 19 to Dec 21", scores).startswith(
        "create_booking"
    )
    # With nothing left open, the time is no answer: the message is the apology.
    said = Exchange("is a Queen free?", (), ())
    assert chosen_after(said, "oops, make that Dec 19 to Dec 21", scores).startswith(
        "small talk: apology"
    )
    # Once the time is read, the change goes on with it; the reading is not the answer.
    read = Call("resolve_date_hint", {"hint": "Dec 19 to Dec 21"})
    nights = {"check_in": "2026-12-19", "check_out": "2026-12-21"}
    now = Exchange(
        "oops, make that Dec 19 to Dec 21", (read,), (Result(read.name, json.dumps(nights), False),)
    )
    hints = Hints(mentions={**KINDS, "client": ["Thorinox", "Distex"]})
    chosen = Decider(TextIntents(scores)).step(Turn(now, aside, times=times), TOOLS, None, hints)
    assert chosen.why == "the dates read fill create_booking"


def test_a_span_that_opens_with_a_pronoun_is_no_name() -> None:
    apology = turn("apologies, I meant Jan 7 to Jan 9")
    assert name_spans(apology.ask, KINDS, times) == []
    assert own_words(apology, KINDS, []) == {"apologies", "meant", "jan"}  # "I" is no name
    # A message of marks alone names nobody (and is read without an error).
    assert name_spans("?!", KINDS, times) == [] and name_spans(" ... ", KINDS, times) == []


def test_prose_that_refers_to_a_shown_value_is_offered_the_clause_about_it() -> None:
    context = {"client": {"name": "Vexa"}, "memory_notes": [{"note": "Vexa wants terse emails"}]}
    looked = Call("get_client_context", {"client": "Vexa"})
    named = {**KINDS, "client": ["Vexa"]}
    ask = "drop the one about terse emails, no longer true"
    drop = follow_up(ask, "notes on Vexa?", looked, context)
    offered = fill(parameters("forget_client_note"), drop, named).choices["note"]
    assert offered and all("terse emails" in str(note) for note in offered)
    # a new fact shares no word with what was shown: its clauses are offered as before
    add = follow_up("save that they like a call each Friday", "notes on Vexa?", looked, context)
    offered = fill(parameters("remember_client_note"), add, named).choices["note"]
    assert offered and all("call each Friday" in str(note) for note in offered)


def drafted_task(correction: str) -> Turn:
    """`correction` after a task for Vexa's Lumen Lamps was drafted and set aside."""
    wrote = {"client": "Vexa", "title": "Check the Lumen Lamps bullets", "brand": "Lumen Lamps"}
    drafted = Call("create_task", {**wrote, "due_date": "2026-11-27"})
    aside = Result("create_task", "not confirmed", False)
    before = Exchange(
        "task for Vexa: check the Lumen Lamps bullets, due Friday", (drafted,), (aside,)
    )
    return Turn(Exchange(correction, (), ()), replace(before, asked=("create_task",)), times=times)


def test_a_correction_of_a_drafted_call_keeps_its_title_and_the_record_inside_it() -> None:
    # a time alone keeps the title the draft gave; a record the draft gave stays inside it
    offered = fill(
        parameters("create_task"), drafted_task("actually the 30th"), KINDS, "create_task"
    )
    assert offered.choices["title"] == ["Check the Lumen Lamps bullets"]
    wrote = {"client": "Vexa", "title": "Check the Lumen Lamps bullets", "brand": "Lumen Lamps"}
    ask = drafted_task("sorry, make it due the 30th instead")
    call, question = scripted_call("create_task", ask, KINDS, {**wrote, "due_date": "2026-11-30"})
    assert question == "" and call is not None and call["args"]["brand"] == "Lumen Lamps"
