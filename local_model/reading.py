"""How a message reads on its own, before any tool is weighed.

Whether it asks to know or goes on from the ask before, where its clauses start, and the
records it names said as their kinds (the tools' examples name other records).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from local_model.conversation import Mentions, Turn, names
from local_model.spans import BACK, FUNCTION_WORDS, bare

REQUEST = re.compile(
    r"(?i)^\W*(?:please\b|(?:can|could|would|will) (?:you|we|i)\b|let'?s\b|i'?d like\b|i want\b)"
)
QUESTION = re.compile(
    r"(?i)^\W*(?:is|are|was|were|do|does|did|would|could|should|what|which|when|who|whose|where"
    r"|how|any|tell me)\b"
)


def asks_to_know(message: str) -> bool:
    """A question that asks to know, not a request put as one ("can you book ...?")."""
    return not REQUEST.match(message) and (
        message.rstrip().endswith("?") or QUESTION.match(message) is not None
    )


def clauses(text: str) -> list[tuple[str, str]]:
    """`text` cut after its first word and each clause ("ok, | thanks! | and ..."): both parts."""
    words = text.split()
    cuts = [i + 1 for i, word in enumerate(words[:-1]) if i == 0 or word[-1] in ",;.!?"]
    return [(" ".join(words[:i]), " ".join(words[i:])) for i in cuts]


def masked(text: str, mentions: Mentions, read_as: Mapping[str, str] | None = None) -> str:
    """The message with each record it names read as its kind, or as `read_as` names the kind.

    "About Distex" reads "about client", or "about Acme" when the pack reads clients so: the
    examples name other records, and a name they use reads like them.
    """
    named = [(name, kind) for kind, names in mentions.items() for name in names]
    for name, kind in sorted(named, key=lambda pair: -len(pair[0])):
        for start, end in reversed(names(text, name)):  # not "Thorinox" in "Thorinox Pans"
            word = (read_as or {}).get(kind) or kind.replace("_", " ")
            text = f"{text[:start]}{word}{text[end:]}"
    return text


def answered(turn: Turn, own: set[str]) -> tuple[set[str], set[str]]:
    """The tools the message answers: what a question asked about, and the calls before again.

    A question of this model's is answered by the next message. A call is asked again by one
    that adds only names and what its results hold ("and for Distex?"); a choice among its
    result's records, or a change set aside, by one that adds at most a word of its own or
    refers back ("the Distex one", "make it Friday"), not by a request ("make a task for …").
    """
    if (before := turn.before) is None:
        return set(), set()
    called = {call.name for call in before.calls}
    held = {bare(w) for found in before.values().values() for v in found for w in str(v).split()}
    asked, words, new = set(before.asked), {bare(w) for w in turn.ask.split()} - {""}, own - held
    few = len(new) < 2 or words & BACK  # "make it Friday": the change set aside, corrected
    again = called if words - FUNCTION_WORDS and not new else asked & called if few else set()
    return asked - called, again
