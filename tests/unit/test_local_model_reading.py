"""How the local model reads a request: its head, identifiers said as words, names and prose."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import numpy as np

from local_model.conversation import Exchange, Turn
from local_model.intent import TRAINED, Intents
from local_model.values import fill, own_words
from tools.calendar.time_phrases import time_phrases
from tools.registry import default_registry

SCHEMAS = {s["function"]["name"]: s for s in default_registry().openai_schemas()}
KINDS: dict[str, list[str]] = {"client": [], "brand": [], "room_type": []}


class SameVectors:
    """Embeds every text alike, so that only the nearest example by words tells classes apart."""

    def embed(self, texts: Sequence[str], prompt: int, *, keep: bool = False) -> np.ndarray:
        return np.ones((len(texts), 8), np.float32) / np.sqrt(8)

    def save(self) -> None:
        pass


def turn(ask: str) -> Turn:
    return Turn(Exchange(ask, (), ()), None, times=lambda t: time_phrases(t, date(2026, 11, 24)))


def parameters(name: str) -> dict[str, Any]:
    return SCHEMAS[name]["function"]["parameters"]


def test_the_head_of_a_request_outweighs_the_words_of_what_it_is_about() -> None:
    classes = {
        "remember": ("make a note that Initech's launch slipped to March",),
        "forget": ("forget that Acme wants calls on Mondays, it changed",),
    }
    intents = Intents(SameVectors())  # type: ignore[arg-type]

    # More of its words are the other example's ("that", "wants", "calls", "Mo…"), but they
    # come after the request's head.
    ranked = intents.rank("make a note that Hooli wants monthly calls", classes)
    assert ranked[0][0] == "remember"
    assert intents.rank("forget that Hooli wants monthly calls", classes)[0][0] == "forget"


def test_an_identifier_the_description_gives_is_the_value_when_said_as_words() -> None:
    said = turn("could Maya Chen join Thorinox as account manager?")
    offered = fill(parameters("assign_person"), said, {**KINDS, "client": ["Thorinox"]})
    assert offered.choices["assignment_role"] == ["account_manager"]
    # Not said: any span of the message may be it, as before.
    other = fill(parameters("assign_person"), turn("add Linus Park to Distex as copywriter"), KINDS)
    assert "copywriter" in other.choices["assignment_role"]


def test_only_capitalized_words_count_as_a_name_not_the_words_after_one() -> None:
    before = Exchange("book the Queen for Zoe Adams from December 12 to 13", (), ())
    note = Turn(turn("note for Thorinox: they want photos on white backgrounds").now, before)
    # Words of its own: a request of its own, not a follow-up of the booking.
    assert {"photos", "white", "backgrounds"} <= own_words(note, {"client": ["Thorinox"]}, [])
    guest = Turn(turn("and for Noor Aziz?").now, before)
    assert own_words(guest, KINDS, []) == set()  # a new name alone goes on from the ask before


def test_a_name_is_offered_whole_never_cut_in_two() -> None:
    stay = turn("put Ines Duarte in the King Suite for tonight")
    guests = fill(parameters("create_booking"), stay, {**KINDS, "room_type": ["King Suite"]})
    assert "Ines Duarte" in guests.choices["guest_name"]
    assert not {"Ines", "Duarte"} & set(guests.choices["guest_name"])
    # Opening the message, each word capitalized: a name too, not a sentence's first word.
    joins = fill(parameters("assign_person"), turn("Zoe Adams joins Distex as designer"), KINDS)
    assert "Zoe Adams" in joins.choices["person"]
    # A sentence's capitalized opening words with a function word among them name no one.
    tasks = fill(parameters("list_tasks"), turn("Before I Leave, what is open for Distex?"), KINDS)
    assert "Before I Leave" not in tasks.choices.get("assignee", [])


def prose(tool: str, ask: str, arg: str) -> list[Any]:
    """What `tool`'s text argument `arg` is offered for `ask`, Distex being a client."""
    return fill(parameters(tool), turn(ask), {**KINDS, "client": ["Distex"]}, tool).choices[arg]


def test_prose_is_offered_as_clauses_without_the_request_or_a_record_alone() -> None:
    title = prose("create_task", "add a to-do for Distex to answer the lamp reviews", "title")
    assert "answer the lamp reviews" in title
    assert not {"reviews", "answer the lamp", "Distex"} & set(title)
    note = prose("remember_client_note", "Remember that Distex pays by card", "note")
    assert {"Distex pays by card", "pays by card"} <= set(note)
    assert not {"Remember", "Distex"} & set(note)  # no fact in either


def test_a_text_runs_to_its_clause_end_and_the_clauses_that_say_little_are_not_offered() -> None:
    ask = "distex to-do: follow up with the carrier about the dented pallet invoices, by Friday"
    title = prose("create_task", ask, "title")
    # Nine words, past the eight a name may have; neither the request nor a cut of the clause.
    assert "follow up with the carrier about the dented pallet invoices" in title
    assert not {"distex to-do", "dented pallet invoices", "by Friday"} & set(title)
    ask = "the Distex warehouse only signs for pallets on weekday mornings, jot that down"
    note = prose("remember_client_note", ask, "note")
    assert "jot" not in note
    assert "warehouse only signs for pallets on weekday mornings" in note


def test_classes_offered_in_another_order_reuse_their_classifier_and_few_are_kept() -> None:
    intents = Intents(SameVectors())  # type: ignore[arg-type]
    trained = []
    train = intents._train
    intents._train = lambda key: trained.append(key) or train(key)  # type: ignore[method-assign]
    classes = {"list_tasks": ("what is open?",), "create_task": ("add a task",)}
    first = intents.rank("add a task for Acme", classes)
    again = intents.rank("add a task for Acme", dict(reversed(classes.items())))
    assert first == again and first[0][0] == "create_task"
    assert len(trained) == 1  # the tools come ranked for each message: one classifier

    for n in range(TRAINED + 3):  # a long-running process keeps only the latest few
        intents.rank("anything", {**classes, f"tool_{n}": (f"example {n}",)})
    assert len(intents._trained) == TRAINED
