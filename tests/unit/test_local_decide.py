"""Stage one of the local model: the rank prior, small talk, chains after a tool result.

The model's log-likelihoods are scripted here (a scorer that answers by which prefix it is
given), so these tests pin the decision rules, not the model.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from core.models.local_decide import (
    DEFAULT_GAP,
    LEAD_GAP,
    RANK_GAP,
    REPLY,
    REQUESTS,
    SMALL_TALK,
    Decider,
    asks_to_know,
)
from core.models.local_turn import ASKED_DATES_OF, read_turn


def tool(
    name: str, summary: str, required: tuple[str, ...] = (), dates: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A tool as offered to the model; `dates` are required arguments in date format."""
    properties: dict[str, dict[str, str]] = {arg: {"type": "string"} for arg in required}
    properties |= {arg: {"type": "string", "format": "date"} for arg in dates}
    parameters = {"type": "object", "properties": properties, "required": [*required, *dates]}
    return {
        "type": "function",
        "function": {"name": name, "description": summary, "parameters": parameters},
    }


HOLIDAY = tool("resolve_holiday", "Find the dates of a named holiday.", ("holiday_name",))
DATES = tool("resolve_date_hint", "Turn a date phrase into a stay.", ("hint",))
ROOMS = tool("get_availability", "Check which rooms are free.", ("check_in", "check_out"))
BRANDS = tool("lookup_brand", "List brands.")
STAY = ("check_in", "check_out")


class ScriptedScorer:
    """Log-likelihoods by text: the first key found in prefix + continuation gives the value."""

    def __init__(self, by_text: dict[str, float]) -> None:
        self._by_text = by_text
        self._texts: list[str] = []
        self.prefixes: list[str] = []

    def tokens(self, text: str) -> list[int]:
        self._texts.append(text)
        return [len(self._texts) - 1]

    def loglik(self, prefix: list[int], continuation: list[int]) -> float:
        self.prefixes.append(self._texts[prefix[0]])
        text = self._texts[prefix[0]] + self._texts[continuation[0]]
        return next((v for key, v in self._by_text.items() if key in text), -10.0)


def first_call(ask: str) -> list[Any]:
    return [SystemMessage("You are agentloop."), HumanMessage(ask)]


def after(
    ask: str, name: str, args: dict[str, Any], result: dict[str, Any], call_id: str = "call_1"
) -> list[Any]:
    call = {"name": name, "args": args, "id": call_id, "type": "tool_call"}
    return [
        *first_call(ask),
        AIMessage("", tool_calls=[call]),
        ToolMessage(json.dumps(result), tool_call_id=call_id, name=name),
    ]


def exchanged(
    asked: str, name: str, args: dict[str, Any], result: dict[str, Any], answer: str
) -> list[Any]:
    """A finished exchange: `asked`, one call of `name`, its result, then the answer."""
    return [*after(asked, name, args, result, call_id="call_0"), AIMessage(answer)]


ROOM_SEARCH = exchanged(
    "any rooms next weekend?",
    "get_availability",
    {"check_in": "2026-12-04"},
    {"rooms": []},
    "Two rooms are free.",
)
"""The exchange before a follow-up about rooms."""


def test_the_first_ranked_tool_wins_a_request() -> None:
    scorer = ScriptedScorer({SMALL_TALK[0]: -30.0, "Find the dates": -20.0, "date phrase": -19.0})

    decision = Decider(scorer).decide(
        read_turn(first_call("When is Hanukkah?")), [HOLIDAY, DATES], None
    )

    assert decision.tool is HOLIDAY
    names = [c["name"] for c in decision.trace()]
    assert names == [REPLY, "resolve_holiday", "resolve_date_hint"]
    assert decision.input_tokens > 0


def test_the_second_tool_needs_a_clear_edge() -> None:
    clear = {SMALL_TALK[0]: -30.0, "Find the dates": -20.0, "date phrase": -20.0 + RANK_GAP + 1}
    decision = Decider(ScriptedScorer(clear)).decide(
        read_turn(first_call("dates of next weekend")), [HOLIDAY, DATES], "auto"
    )
    assert decision.tool is DATES


def test_small_talk_gets_a_reply_even_with_tools_offered() -> None:
    scorer = ScriptedScorer({SMALL_TALK[0]: -5.0, "Messages:": -12.0})

    decision = Decider(scorer).decide(read_turn(first_call("thanks!")), [HOLIDAY], None)

    assert decision.tool is None
    assert decision.trace()[0]["name"] == REPLY and decision.trace()[0]["score"] > 0


def test_a_request_after_a_thanks_is_no_small_talk() -> None:
    scorer = ScriptedScorer(
        {
            f"{SMALL_TALK[-1]}\n- thanks": -2.0,  # the small-talk list, then "thanks"
            f"{REQUESTS[-1]}\n- thanks": -8.0,  # the request list, then "thanks"
            f"{SMALL_TALK[-1]}\n- can you": -20.0,  # (the request list: -10)
        }
    )
    turn = read_turn(first_call("thanks! and can you list the open tasks?"))

    decision = Decider(scorer).decide(turn, [HOLIDAY], None)

    assert decision.tool is HOLIDAY
    assert decision.trace()[0]["why"] == "small talk -10.00 vs requests"


def test_required_and_named_choices_never_reply() -> None:
    scorer = ScriptedScorer({SMALL_TALK[0]: 50.0})
    turn = read_turn(first_call("thanks!"))

    assert Decider(scorer).decide(turn, [HOLIDAY, DATES], "required").tool is HOLIDAY
    named = Decider(scorer).decide(turn, [DATES], "resolve_date_hint")
    assert named.tool is DATES and named.input_tokens == 0


def test_no_tools_or_none_reply_without_scoring() -> None:
    scorer = ScriptedScorer({})
    turn = read_turn(first_call("When is Hanukkah?"))

    assert Decider(scorer).decide(turn, [], None).tool is None
    assert Decider(scorer).decide(turn, [], "none").tool is None
    assert scorer.prefixes == []


def test_after_a_result_a_reply_wins_unless_a_chain_opens() -> None:
    holiday = after(
        "When is Hanukkah?",
        "resolve_holiday",
        {"holiday_name": "Hanukkah"},
        {"start": "2026-12-05"},
    )
    decision = Decider(ScriptedScorer({})).decide(read_turn(holiday), [HOLIDAY, DATES, ROOMS], None)
    assert decision.tool is None
    why = {c["name"]: c["why"] for c in decision.trace()}
    assert "resolve_holiday" not in why  # already called in this turn
    assert why["resolve_date_hint"] == "results lack hint"

    stay = {"check_in": "2026-12-04", "check_out": "2026-12-06"}
    weekend = after("Do we have a room next weekend?", "resolve_date_hint", {"hint": "x"}, stay)
    chained = Decider(ScriptedScorer({})).decide(read_turn(weekend), [DATES, ROOMS], None)
    assert chained.tool is ROOMS


def test_a_follow_up_that_changes_only_when_chains_to_what_the_previous_exchange_asked() -> None:
    stay = {"check_in": "2026-11-25", "check_out": "2026-11-26"}

    def after_rooms(ask: str) -> Any:
        return [*ROOM_SEARCH, *after(ask, "resolve_date_hint", {"hint": "tomorrow"}, stay)[1:]]

    # Alone, the words read as a date question: resolve_date_hint explains them far better.
    scorer = ScriptedScorer({"Turn a date phrase": -2.0, "Check which rooms": -9.0})
    follow_up = read_turn(after_rooms("and tomorrow?"))
    new_question = read_turn(after_rooms("what dates are tomorrow and the day after?"))

    assert follow_up.earlier_called == ("get_availability",)
    chained = Decider(scorer).decide(follow_up, [DATES, ROOMS], None)
    assert chained.tool is ROOMS
    assert chained.trace()[1]["why"].endswith("the previous exchange asked it")
    assert Decider(scorer).decide(new_question, [DATES, ROOMS], None).tool is None


def test_a_time_given_for_the_dates_a_reply_asked_chains_to_the_tool_it_asked_them_for() -> None:
    stay = {"check_in": "2026-12-04", "check_out": "2026-12-06"}
    asking = AIMessage(
        "Which dates do you mean?", response_metadata={ASKED_DATES_OF: "get_availability"}
    )
    plain = AIMessage("Which dates do you mean?")

    def answered_by(reply: AIMessage) -> Any:
        question = [*first_call("Do we have a room free?"), reply]
        return read_turn([*question, *after("next weekend", "resolve_date_hint", {}, stay)[1:]])

    # Alone, the words read as a date question: resolve_date_hint explains them far better.
    scorer = ScriptedScorer({"Turn a date phrase": -2.0, "Check which rooms": -9.0})
    follow_up, unrelated = answered_by(asking), answered_by(plain)

    assert follow_up.earlier_called == ("get_availability",)
    assert Decider(scorer).decide(follow_up, [DATES, ROOMS], None).tool is ROOMS
    assert unrelated.earlier_called == ()
    assert Decider(scorer).decide(unrelated, [DATES, ROOMS], None).tool is None


def test_a_question_that_changes_only_when_is_no_small_talk_after_a_lookup() -> None:
    def after_rooms(ask: str) -> Any:
        return read_turn([*ROOM_SEARCH, HumanMessage(ask)])

    # Measured: "what about friday?" scores +1.98 as small talk, "see you tomorrow!" +1.85.
    scorer = ScriptedScorer({SMALL_TALK[0]: -1.0, REQUESTS[0]: -3.0})

    question = Decider(scorer).decide(after_rooms("what about friday?"), [DATES, ROOMS], None)
    farewell = Decider(scorer).decide(after_rooms("see you friday!"), [DATES, ROOMS], None)
    unrelated = Decider(scorer).decide(after_rooms("what about friday?"), [DATES, HOLIDAY], None)

    assert question.tool is DATES
    assert question.trace()[0] == {
        "name": REPLY,
        "score": None,
        "why": "asks the previous lookup again",
    }
    assert farewell.tool is None and unrelated.tool is None


def test_no_chain_to_a_tool_the_message_could_already_fill_or_that_needs_nothing() -> None:
    messages = after(
        "rooms from 2026-12-04 to 2026-12-06?",
        "resolve_date_hint",
        {"hint": "x"},
        {"check_in": "2026-12-04", "check_out": "2026-12-06"},
    )
    decision = Decider(ScriptedScorer({})).decide(read_turn(messages), [ROOMS, BRANDS], None)

    assert decision.tool is None
    why = {c["name"]: c["why"] for c in decision.trace()}
    assert why["get_availability"] == "the message already held its arguments"
    assert why["lookup_brand"] == "needs nothing"


def test_a_nested_record_fills_no_argument_of_a_chain() -> None:
    forget = tool("forget_client_note", "Forget a client note.", ("client",))
    context = {"status": "found", "client": {"name": "Thorinox Cutlery", "notes": "Kitchen"}}
    messages = after(
        "What do we know about Thorinox?", "get_client_context", {"client": "Thorinox"}, context
    )
    decision = Decider(ScriptedScorer({})).decide(read_turn(messages), [forget], None)

    assert decision.tool is None
    assert {c["name"]: c["why"] for c in decision.trace()}["forget_client_note"] == (
        "results lack client"
    )


def test_a_second_tool_the_ranking_placed_far_behind_needs_a_larger_edge() -> None:
    edge = {SMALL_TALK[0]: -30.0, "Find the dates": -20.0, "date phrase": -20.0 + RANK_GAP + 1}
    turn = read_turn(first_call("dates of next weekend"))

    close = Decider(ScriptedScorer(edge)).decide(
        turn, [HOLIDAY, DATES], None, {"resolve_holiday": 10.0, "resolve_date_hint": 9.0}
    )
    far = Decider(ScriptedScorer(edge)).decide(
        turn, [HOLIDAY, DATES], None, {"resolve_holiday": 10.0, "resolve_date_hint": 5.0}
    )

    assert close.tool is DATES  # lead 0.1: the gap is RANK_GAP + 0.4
    assert far.tool is HOLIDAY  # lead 0.5: the gap is RANK_GAP + LEAD_GAP / 2
    assert far.trace()[2]["why"].endswith(f"minus {RANK_GAP + LEAD_GAP / 2:.2f}")


def test_a_tool_whose_required_date_nothing_gives_is_ruled_out() -> None:
    booking = tool("create_booking", "Book a room.", ("guest_name",), dates=("check_in",))
    scorer = ScriptedScorer({SMALL_TALK[0]: -30.0})

    decision = Decider(scorer).decide(read_turn(first_call("book it for Dana")), [booking], None)

    assert decision.tool is None
    assert decision.trace()[-1] == {
        "name": "create_booking",
        "score": None,
        "why": "nothing in the turn gives check_in",
    }
    forced = Decider(scorer).decide(read_turn(first_call("book it")), [booking], "required")
    assert forced.tool is booking  # a required call is still made


def test_when_the_best_tool_lacks_dates_the_message_does_not_name_the_reply_asks() -> None:
    rooms = tool("get_availability", "Check which rooms are free.", dates=STAY)
    plan = tool("create_plan", "Plan a multi-step objective.", ("objective",))
    scorer = ScriptedScorer({SMALL_TALK[0]: -30.0})

    # Seen with the local model: ranked second, the planner got "any rooms for 3 guests?".
    asked = Decider(scorer).decide(
        read_turn(first_call("any rooms for 3 guests?")), [rooms, plan, DATES], None
    )
    # A time in words: the date-hint tool below it reads it.
    timed = Decider(scorer).decide(
        read_turn(first_call("any rooms tomorrow?")), [rooms, DATES, plan], None
    )

    assert asked.tool is None and asked.lacking == ("check_in", "check_out")
    assert asked.lacking_for == "get_availability"
    assert asked.trace()[0] == {"name": REPLY, "score": 0.0, "why": "ask for check_in, check_out"}
    assert timed.tool is DATES and timed.lacking == ()


def test_a_required_call_among_unranked_tools_goes_by_likelihood_past_the_default() -> None:
    meanings = [
        tool("unrelated", "The reply is about something else."),
        tool("approve", "The reply agrees."),
        tool("reject", "The reply declines."),
    ]
    clear = ScriptedScorer({"declines": -3.0, "agrees": -9.0, "something else": -6.0})
    close = ScriptedScorer({"declines": -9.0, "agrees": -5.5, "something else": -6.0})

    decision = Decider(clear).decide(read_turn(first_call("nah")), meanings, "required")
    # Half a nat is not enough to leave the default (the first tool listed).
    near = Decider(close).decide(read_turn(first_call("thank you")), meanings, "required")

    assert decision.tool is meanings[2]
    assert [c.name for c in decision.candidates] == ["unrelated", "approve", "reject"]
    assert near.tool is meanings[0]
    assert DEFAULT_GAP > 0.5
    # With a ranking (the agent's offer), the first two compete under the rank prior.
    ranked = Decider(clear).decide(
        read_turn(first_call("nah")), meanings, "required", {"unrelated": 10.0, "approve": 1.0}
    )
    assert ranked.tool is meanings[0]


def test_dates_a_result_holds_fill_the_date_arguments_of_a_chain() -> None:
    rooms = tool("get_availability", "Free rooms.", dates=STAY)
    holiday = {"holiday": "Hanukkah", "start": "2026-12-05", "end": "2026-12-12"}
    stay = after("one night in Hanukkah", "resolve_holiday", {"holiday_name": "Hanukkah"}, holiday)

    chained = Decider(ScriptedScorer({})).decide(read_turn(stay), [HOLIDAY, rooms], None)

    assert chained.tool is rooms
    # The message explains the holiday lookup far better than a room search: no chain.
    when = after("When is Hanukkah?", "resolve_holiday", {"holiday_name": "Hanukkah"}, holiday)
    scorer = ScriptedScorer({"Find the dates": -5.0, "Free rooms": -12.0})
    assert Decider(scorer).decide(read_turn(when), [HOLIDAY, rooms], None).tool is None


def test_the_lookup_asked_again_counts_though_its_dates_are_still_to_be_read() -> None:
    rooms = tool("get_availability", "Check which rooms are free.", dates=STAY)
    scorer = ScriptedScorer({SMALL_TALK[0]: -1.0, REQUESTS[0]: -3.0})
    turn = read_turn([*ROOM_SEARCH, HumanMessage("what about friday?")])

    # "friday" is no date yet: the room search cannot be filled until the hint is read.
    decision = Decider(scorer).decide(turn, [DATES, rooms], None)

    assert decision.tool is DATES
    assert decision.trace()[0]["why"] == "asks the previous lookup again"


def test_a_short_follow_up_stays_with_the_previous_exchanges_tool_ranked_first() -> None:
    brand = tool("resolve_brand", "Find which client a brand belongs to.", ("brand",))
    client = tool("lookup_client", "Look up a client by name.", ("query",))
    which = exchanged(
        "Which client owns the Garlic Press brand?",
        "resolve_brand",
        {"brand": "Garlic Press"},
        {"status": "ambiguous"},
        "Distex or Thorinox?",
    )

    def after_which(ask: str) -> Any:
        return read_turn([*which, HumanMessage(ask)])

    # Measured: "the Distex one" is 9.7 nats likelier under lookup_client's description.
    scorer = ScriptedScorer({"Look up a client": -2.0, "Find which client": -12.0})

    answer = Decider(scorer).decide(after_which("the Distex one"), [brand, client], None)
    longer = "tell me everything about the Distex client"
    moved_on = Decider(scorer).decide(after_which(longer), [brand, client], None)

    assert answer.tool is brand
    assert answer.trace()[2]["why"] == "a follow-up of a few words to the previous exchange's tool"
    assert moved_on.tool is client


def test_the_tool_the_message_ranked_first_chains_from_listed_records_and_its_names() -> None:
    booking = tool(
        "create_booking", "Book a room.", ("room_type", "guest_name"), dates=("check_in",)
    )
    rooms = tool("get_availability", "Check which rooms are free.", dates=STAY)
    found = {"check_in": "2026-12-04", "check_out": "2026-12-06", "rooms": [{"room_type": "Queen"}]}
    scorer = ScriptedScorer({"Book a room": -5.0, "Check which rooms": -8.0})

    def decided(ask: str, scores: dict[str, float]) -> Any:
        messages = after(ask, "get_availability", {"check_in": "2026-12-04"}, found)
        return Decider(scorer).decide(read_turn(messages), [rooms, booking], None, scores)

    asked = decided("book a room for Dana Levi next weekend", {"create_booking": 15.0})
    assert asked.tool is booking
    # The message asked for rooms: the booking's room type and guest are no next step.
    looked = decided("any rooms for Dana Levi next weekend?", {"get_availability": 9.0})
    assert looked.tool is None
    assert {c["name"]: c["why"] for c in looked.trace()}["create_booking"] == (
        "results lack room_type, guest_name"
    )


def test_a_holiday_named_is_a_time_the_holiday_lookup_reads() -> None:
    rooms = tool("get_availability", "Check which rooms are free.", dates=STAY)
    scorer = ScriptedScorer({SMALL_TALK[0]: -30.0})
    # After a search for next weekend, its dates are not the ones Thanksgiving means.
    turn = read_turn([*ROOM_SEARCH, HumanMessage("any rooms over Thanksgiving?")])

    decision = Decider(scorer).decide(turn, [rooms, HOLIDAY], None)

    assert decision.tool is HOLIDAY and decision.lacking == ()
    assert {c["name"]: c["why"] for c in decision.trace()}["get_availability"] == (
        "nothing in the turn gives check_in, check_out"
    )


def test_after_a_change_went_through_the_reply_comes_and_nothing_chains() -> None:
    booking = tool("create_booking", "Book a room.", ("room_type",), dates=("check_in",))
    rooms = tool("get_availability", "Check which rooms are free.", dates=STAY)
    booked = {"status": "confirmed", "check_in": "2026-12-05", "check_out": "2026-12-12"}
    # Seen with the local model: the booking's dates opened a room search after it.
    messages = after("book the Queen for Dana Levi", "create_booking", {}, booked)
    scorer = ScriptedScorer({"Check which rooms": -5.0, "Book a room": -8.0})

    unknown = Decider(scorer).decide(read_turn(messages), [booking, rooms], None)
    known = Decider(scorer).decide(
        read_turn(messages), [booking, rooms], None, changing=frozenset({"create_booking"})
    )

    assert unknown.tool is rooms  # what happened before the change was known
    assert known.tool is None
    assert known.trace() == [{"name": REPLY, "score": 0.0, "why": "a change went through"}]


def test_a_question_does_not_reach_a_change_by_likelihood_alone() -> None:
    # No dates required here: what the turn cannot fill is tested elsewhere.
    rooms = tool("get_availability", "Check which rooms are free.")
    booking = tool("create_booking", "Book a room.")
    # Seen with the local model: +5.1 nats for the booking, past the rank gap.
    scorer = ScriptedScorer({"Book a room": -3.0, "Check which rooms": -3.0 - RANK_GAP - 1.0})
    scores = {"get_availability": 3.5, "create_booking": 3.4}
    changing = frozenset({"create_booking"})

    def decided(ask: str) -> Any:
        turn = read_turn(first_call(ask))
        return Decider(scorer).decide(turn, [rooms, booking], None, scores, changing=changing)

    assert decided("is there a room for 2 on December 18?").tool is rooms
    assert decided("book a room for 2 on December 18").tool is booking
    assert decided("can you book a room for 2 on December 18?").tool is booking
    # Ranked first, the change gives way to the lookup all the same.
    ranked_first = Decider(scorer).decide(
        read_turn(first_call("do we have a room on December 18?")),
        [booking, rooms],
        None,
        {"create_booking": 3.5, "get_availability": 3.4},
        changing=changing,
    )
    assert ranked_first.tool is rooms


def test_a_question_asks_to_know_unless_it_is_a_request_put_as_one() -> None:
    for ask in (
        "is there a room for 2 on December 18?",
        "Which brands have incomplete mappings",
        "do we have a room free next weekend",
        "any rooms then?",
    ):
        assert asks_to_know(ask), ask
    for ask in (
        "book a room for Dana Levi",
        "Can you book the Queen for Dana?",
        "please create a task for Thorinox?",
        "Remember that Thorinox prefers email",
    ):
        assert not asks_to_know(ask), ask
