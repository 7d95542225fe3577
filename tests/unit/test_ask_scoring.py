"""The bench's strict scoring: the first call, the fact, and questions only when asked for."""

from __future__ import annotations

from bench import ask_scoring
from bench.ask_scoring import (
    ABILITIES,
    CALLED_NOT_ASKED,
    MISSED_OPTIONS,
    NO_CALL,
    NO_FACT,
    NOT_A_QUESTION,
    NOT_PROPOSED,
    RIGHT,
    UNASKED_QUESTION,
    WRONG_TOOL,
    Outcome,
    is_right,
    verdict,
)
from bench.ask_sets import Ask
from prompts.replies import graceful_failure

LOOKUP = Ask(
    text="which brands sit under Acme?",
    kind="tool",
    tools=("lookup_brand", "resolve_brand"),
    facts=("Acme Oats", "Acme Bars"),
)
BOOKING = Ask(
    text="put Jo in a room",
    kind="tool",
    tools=("create_booking",),
    facts=(),
    clarify=True,
    options=("check in|check-in|date", "room type"),
)
HELLO = Ask(text="hi there", kind="small_talk", tools=(), facts=())
ABILITIES_ASK = Ask(text="list your skills", kind="small_talk", tools=(), facts=("approve",))
THANKS = Ask(text="many thanks", kind="small_talk", tools=(), facts=("welcome",))
HOW_ASK = Ask(text="would you undo a thing yourself?", kind="ask_to_know", tools=(), facts=())


def abilities_reply(which: int = 0) -> str:
    opening = ask_scoring._abilities_openings()[which]
    return f"{opening}\n- look up a brand\n- approve changes\nWhat would you like me to do?"


def test_the_abilities_openings_are_read_from_the_models_texts() -> None:
    # the abilities reply, and how the assistant works in general before the same list
    assert len(ask_scoring._abilities_openings()) == 2
    assert ask_scoring.is_abilities_reply(abilities_reply())
    general = abilities_reply(1)
    assert ask_scoring.is_abilities_reply(general) and ask_scoring.is_set_answer(general)
    assert verdict(LOOKUP, Outcome((), general, "completed")) == ABILITIES
    assert verdict(HOW_ASK, Outcome((), general, "completed")) == ABILITIES  # no fact: no answer


def test_the_first_call_must_be_an_expected_tool_with_the_fact() -> None:
    shown = "Here is what lookup_brand found: Acme Oats, Acme Bars"
    assert verdict(LOOKUP, Outcome(("lookup_brand",), shown, "completed")) == RIGHT
    assert verdict(LOOKUP, Outcome(("resolve_brand",), shown, "completed")) == RIGHT
    late = Outcome(("lookup_client", "lookup_brand"), shown, "completed")
    assert verdict(LOOKUP, late) == WRONG_TOOL
    missing = Outcome(("lookup_brand",), "Here is what lookup_brand found: none", "completed")
    assert verdict(LOOKUP, missing) == NO_FACT


def test_a_fact_in_the_waiting_proposal_counts() -> None:
    ask = Ask(text="add Acme Oats", kind="tool", tools=("create_brand",), facts=("Acme Oats",))
    proposal = '[{"tool": "create_brand", "args": {"name": "Acme Oats"}}]'
    outcome = Outcome(
        ("create_brand",), "I'd like to make this change:", "needs_confirmation", proposal
    )
    assert is_right(ask, outcome)


def test_a_change_is_right_only_when_proposed_with_the_fact() -> None:
    ask = Ask(
        text="drop the oats note", kind="tool", tools=("forget_client_note",), facts=("oats",)
    )
    refused = Outcome(
        ("forget_client_note",), "No note matches 'x'. Acme's notes: likes oats", "completed"
    )
    assert verdict(ask, refused) == NOT_PROPOSED
    elsewhere = Outcome(
        ("forget_client_note",),
        "I'd like to make this change (Acme likes oats):",
        "needs_confirmation",
        '[{"tool": "forget_client_note", "args": {"note": "ships Friday"}}]',
    )
    assert verdict(ask, elsewhere) == NO_FACT
    held = '[{"tool": "forget_client_note", "args": {"note": "likes oats"}}]'
    proposed = Outcome(("forget_client_note",), "I'd like to:", "needs_confirmation", held)
    assert verdict(ask, proposed) == RIGHT


def test_a_question_is_wrong_for_an_ask_not_marked_clarify() -> None:
    which = "Do you want me to look up a brand, or find which client owns a brand?"
    assert verdict(LOOKUP, Outcome((), which, "completed")) == UNASKED_QUESTION
    assert verdict(LOOKUP, Outcome((), "Acme Oats and Acme Bars.", "completed")) == NO_CALL


def test_a_clarify_ask_is_right_only_with_a_question_naming_every_option() -> None:
    both = "To book a room, I need the check in, check out and room type: which do you mean?"
    assert verdict(BOOKING, Outcome((), both, "completed")) == RIGHT
    one = "To book a room, I need the check in and check out: which do you mean?"
    assert verdict(BOOKING, Outcome((), one, "completed")) == MISSED_OPTIONS
    statement = "I need the check in date and the room type."
    assert verdict(BOOKING, Outcome((), statement, "completed")) == NOT_A_QUESTION
    proposal = Outcome(("create_booking",), "I'd like to make this change:", "needs_confirmation")
    assert verdict(BOOKING, proposal) == CALLED_NOT_ASKED


def test_a_clarify_ask_may_read_first_but_only_the_closing_question_counts() -> None:
    read_first = Outcome(
        ("resolve_date_hint",), "I need the room type and a check-in date?", "completed"
    )
    assert verdict(BOOKING, read_first) == RIGHT
    listing = "Here is what lookup_client found:\nroom type: Queen, check in: today\nWhich one?"
    assert verdict(BOOKING, Outcome(("lookup_client",), listing, "completed")) == MISSED_OPTIONS


def test_the_abilities_reply_is_never_right_for_a_tool_ask() -> None:
    assert verdict(LOOKUP, Outcome((), abilities_reply(), "completed")) == ABILITIES
    assert verdict(BOOKING, Outcome((), abilities_reply(), "completed")) == ABILITIES


def test_the_abilities_reply_is_right_only_for_asking_what_the_assistant_does() -> None:
    assert verdict(ABILITIES_ASK, Outcome((), abilities_reply(), "completed")) == RIGHT
    assert verdict(HELLO, Outcome((), abilities_reply(), "completed")) == ABILITIES


def test_small_talk_is_a_set_answer_without_a_call() -> None:
    answers = ask_scoring._answers()
    greeting = next(a for a in answers if a.startswith("Hi"))
    thanks = next(a for a in answers if "welcome" in a)
    assert verdict(HELLO, Outcome((), greeting, "completed")) == RIGHT
    assert verdict(THANKS, Outcome((), thanks, "completed")) == RIGHT
    assert verdict(THANKS, Outcome((), greeting, "completed")) == NO_FACT
    assert verdict(HELLO, Outcome(("lookup_client",), "Here is …", "completed")) == WRONG_TOOL
    which = "Do you want me to look up a client, or list tasks?"
    assert verdict(HELLO, Outcome((), which, "completed")) == UNASKED_QUESTION


def test_with_no_fact_listed_the_graceful_failure_is_wrong() -> None:
    plan = Ask(text="plan a launch", kind="tool", tools=("create_plan",), facts=())
    failed = Outcome(("create_plan",), graceful_failure(1, []), "completed")
    assert verdict(plan, failed) == NO_FACT
    assert is_right(plan, Outcome(("create_plan",), "Plan: 1. map 2. assign", "completed"))
