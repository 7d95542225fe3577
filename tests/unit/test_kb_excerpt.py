"""The excerpt a knowledge-base hit shows: the part of the document the question is about."""

from __future__ import annotations

from core.terms import terms
from tools.agency.search import excerpt

STEPS = "\n".join(
    [
        "Use this checklist whenever a shipment of samples goes out to a reviewer.",
        "1. Confirm the reviewer's address and the sample list with the account lead.",
        "2. Pack each sample with the printed insert; fragile items go in double boxes.",
        "3. Book the courier before noon so the parcel leaves the same day.",
        "4. Email the reviewer the tracking number once the courier collects it.",
        "5. Follow up after ten days; reviews usually appear within three weeks.",
    ]
)


def test_the_window_holds_the_step_asked_about() -> None:
    shown = excerpt(STEPS, terms("how long until reviews appear after the follow up?"))

    assert "within three weeks" in shown
    assert shown.startswith("…") and not shown.startswith("…Use this checklist")


def test_the_opening_is_shown_when_it_already_holds_the_words() -> None:
    shown = excerpt(STEPS, terms("samples checklist"))

    assert shown.startswith("Use this checklist")


def test_an_excerpt_ends_after_a_line_or_sentence_not_in_a_word() -> None:
    shown = excerpt(STEPS, terms("courier"))

    assert "Book the courier" in shown and shown.endswith("leaves the same day.…")
    assert len(shown) <= 282


def test_without_words_the_start_is_shown() -> None:
    assert excerpt(STEPS, []).startswith("Use this checklist")
    assert excerpt("short body", ["missing"]) == "short body"
