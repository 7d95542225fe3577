"""What the ranking reads of a message: content words name a need, question words alone do not."""

from __future__ import annotations

from tools.preselection import ToolRanker
from tools.registry import default_registry

RANKER = ToolRanker(default_registry().tools())


def offered(message: str) -> tuple[str, ...]:
    return RANKER.offer(message, budget=3).names


def test_a_generic_question_names_no_tool() -> None:
    assert offered("what can you do?") == ()


def test_a_date_question_word_still_finds_the_calendar() -> None:
    assert offered("When is Christmas?")[0] == "resolve_holiday"
    assert offered("what's still open for Thorinox?")[0] == "list_tasks"


def test_room_words_and_a_persons_work_find_their_lookups() -> None:
    assert offered("is a King Suite free on Christmas?")[0] == "get_availability"
    assert offered("what is Omar working on?")[0] == "list_tasks"
