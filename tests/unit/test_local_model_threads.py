"""The embedded model reading a thread longer than one exchange, without the model."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from local_model.conversation import Exchange, Turn, read_turn
from local_model.reading import answered
from local_model.values import fill
from tools.calendar.time_phrases import time_phrases
from tools.registry import default_registry

SCHEMAS = {s["function"]["name"]: s for s in default_registry().openai_schemas()}
KINDS: dict[str, list[str]] = {"client": [], "brand": [], "room_type": []}
STAY = {"check_in": "2027-01-06", "check_out": "2027-01-08"}
ROOMS = {**STAY, "rooms": [{"room_type": t} for t in ("Queen", "Double Queen", "King Suite")]}


def parameters(name: str) -> dict[str, Any]:
    return SCHEMAS[name]["function"]["parameters"]


def times(text: str) -> list[tuple[int, int]]:
    return time_phrases(text, date(2026, 11, 24))


def looked_up(ask: str, number: int, args: dict[str, Any] = STAY) -> list[BaseMessage]:
    """`ask`, answered by a check of rooms with `args` (its `number`-th call)."""
    call = {"name": "get_availability", "args": args, "id": f"c{number}", "type": "tool_call"}
    found = ToolMessage(json.dumps(ROOMS), tool_call_id=f"c{number}", name="get_availability")
    return [HumanMessage(ask), AIMessage("", tool_calls=[call]), found]


def thread(*messages: BaseMessage) -> Turn:
    return replace(read_turn(messages), times=times)


def test_an_exchange_that_asked_again_of_the_one_before_reads_with_it() -> None:
    named = looked_up("is the Double Queen open Jan 6-8?", 1)
    for middle in ("how much is it?", "what about the price?"):  # refers back, or goes on
        booking = thread(*named, *looked_up(middle, 2), HumanMessage("hold it for Uma Reyes"))

        assert booking.before is not None
        assert booking.before.ask == f"is the Double Queen open Jan 6-8?\n{middle}"
        offered = fill(parameters("create_booking"), booking, KINDS, "create_booking")
        assert offered.choices["room_type"] == ["Double Queen"]  # not every room it listed


def test_an_exchange_of_its_own_reads_alone() -> None:
    named = looked_up("is the Double Queen open Jan 6-8?", 1)
    # It refers to nothing before: a look-up of its own, though the same tool's.
    fresh = looked_up("rooms Jan 6-8 for two?", 2)
    assert thread(*named, *fresh, HumanMessage("hold one for Uma Reyes")).before == Exchange(
        "rooms Jan 6-8 for two?", read_turn(fresh).now.calls, read_turn(fresh).now.results
    )
    # It refers back, but asked another tool: the thread has moved on.
    moved = looked_up("what do its notes say?", 2)
    search = {"name": "search_kb", "args": {"query": "notes"}, "id": "c2"}
    moved[1] = AIMessage("", tool_calls=[search])
    read = thread(*named, *moved, HumanMessage("hold it for Uma Reyes"))
    assert read.before is not None and read.before.ask == "what do its notes say?"
    # A thread of one message reads it alone.
    assert thread(HumanMessage("hi")).before is None
    assert read_turn([]).ask == "" and read_turn([]).before is None


def test_an_id_is_a_number_said_after_its_name_not_any_count() -> None:
    load = parameters("load_prior_skill_result")
    count = replace(read_turn([HumanMessage("rooms Dec 20-22 for 2?")]), times=times)
    assert fill(load, count, KINDS, "load_prior_skill_result").missing == ["result_id"]
    said = read_turn([HumanMessage("open result 42 in full")])
    assert fill(load, said, KINDS, "load_prior_skill_result").choices["result_id"] == [42]


TASK = {"client": "Distex", "title": "Check the lamp reviews", "assignee": "Ada Lovelace"}
"""A task proposed for "new task for Distex: check the lamp reviews, for Ada Lovelace"."""


def set_aside(message: str) -> Turn:
    """`message`, sent while the task `TASK` waited for approval: the task was set aside."""
    call = {"name": "create_task", "args": TASK, "id": "c1", "type": "tool_call"}
    aside = ToolMessage(
        "not run", tool_call_id="c1", name="create_task", status="error",
        additional_kwargs={"outcome": "not_confirmed"},
    )  # fmt: skip
    ask = HumanMessage("new task for Distex: check the lamp reviews, for Ada Lovelace")
    return thread(ask, AIMessage("", tool_calls=[call]), aside, HumanMessage(message))


def test_a_correction_of_a_task_set_aside_keeps_its_title() -> None:
    for correction in ("hmm, have it due Dec 4", "assign it to Grace Hopper instead"):
        offered = fill(parameters("create_task"), set_aside(correction), KINDS, "create_task")
        assert offered.choices["title"] == ["Check the lamp reviews"], correction
    # Without a word that refers back, it is a task of its own.
    other = set_aside("add one for Distex to call the lamp supplier")
    offered = fill(parameters("create_task"), other, KINDS, "create_task")
    assert "Check the lamp reviews" not in offered.choices["title"]
    assert any("call the lamp supplier" in str(t) for t in offered.choices["title"])


def test_a_correction_that_refers_back_asks_for_the_change_set_aside_again() -> None:
    # two words of its own ("hmm", "have"): a request of its own, but for "it"
    _, again = answered(set_aside("hmm, have it due Dec 4"), {"hmm", "have"})
    assert again == {"create_task"}
    _, again = answered(set_aside("add one to call the lamp supplier"), {"add", "call", "lamp"})
    assert again == set()
