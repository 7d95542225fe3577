"""The words of a text that say what it is about: what searches and overlaps are scored on."""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)
# Words that match nearly every document and only dilute the ranking.
STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "did",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "please",
        "the",
        "this",
        "to",
        "us",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "you",
        "your",
    }
)
MAX_TERMS = 16


def terms(query: str, limit: int | None = MAX_TERMS) -> list[str]:
    """Return the searchable words of a query (no operators survive: only word characters).

    The first `limit` of them, in order; None: all of them.
    """
    words = [w.casefold() for w in _WORD.findall(query)]
    kept = [w for w in dict.fromkeys(words) if w not in STOPWORDS and len(w) > 1]
    return kept[:limit]
