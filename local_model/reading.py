"""How a message reads on its own, before any tool is weighed.

Whether it asks to know or goes on from the ask before, where its clauses start, and the
records it names said as their kinds (the tools' examples name other records).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from local_model.conversation import names

REQUEST = re.compile(
    r"(?i)^\W*(?:please\b|(?:can|could|would|will) (?:you|we|i)\b|let'?s\b|i'?d like\b|i want\b)"
)
GOES_ON = re.compile(r"(?i)^\W*(?:and|or|also|(?:what|how) about)\b")  # "and for coupons?"
QUESTION = re.compile(
    r"(?i)^\W*(?:is|are|was|were|do|does|did|what|which|when|who|whose|where|how|any|tell me)\b"
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


def masked(
    text: str, mentions: Mapping[str, Sequence[str]], read_as: Mapping[str, str] | None = None
) -> str:
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
