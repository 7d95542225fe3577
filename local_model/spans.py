"""The runs of words a copied value may be: words as compared, and a message's spans.

A value is copied from the message, never written: a span is a run of its words, a clause one
that its punctuation or a joining word bounds.
"""

from __future__ import annotations

import re

MAX_SPAN_WORDS = 8
EDGE = " \t\n\"'`.,;:!?()[]{}<>—–-"
_FUNCTION_WORDS = """a an the this that these those it its is are was be to of for on in at by
    with from and or but so then there here me my we our us you your i he him his she her they
    them their one ones please can could would will do does did what which who whose when where
    how any some all about just only also same now as into onto via pls plz"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
_CONTENTFUL = "i he she you we they one any some all"  # words that name nothing on their own
JOINING_WORDS = FUNCTION_WORDS - frozenset(_CONTENTFUL.split())
"""Words no copied value begins or ends with ("that Acme prefers email", "refresh it for")."""
# pronouns that refer back to what the thread named before ("fix them", "is he free")
BACK = frozenset({"it", "its", "they", "them", "their", "he", "him", "his", "she", "her", "same"})
GOES_ON = re.compile(r"(?i)^\W*(?:and|or|also|(?:what|how) about)\b")  # "and for coupons?"
CUT = "\x00"
_STOPS = ",;:!?()–—"  # punctuation that ends a clause (a dash set apart: "Acme – call Jo")


def bare(word: str) -> str:
    """A word as compared: folded, without edge punctuation or a possessive ("Acme's")."""
    return unpossessive(word.strip(EDGE).casefold())


def unpossessive(text: str) -> str:
    """`text` without a possessive at its end ("Acme's" is Acme)."""
    return re.sub(r"['’]s$", "", text)


def spans(text: str, edges: frozenset[str] | None = None) -> list[str]:
    """The message and its runs of up to `MAX_SPAN_WORDS` words, edges cut, longest first.

    No run crosses a `CUT`. With `edges`, its clauses instead (`_clauses`): "add a task for
    Acme to | reply to the reviews |", never "reviews" alone.
    """
    parts = [line.split() for part in text.split(CUT) for line in part.splitlines()]
    whole = len(parts) == 1 and len(text.split()) <= 2 * MAX_SPAN_WORDS
    found = [text.strip(EDGE)] if whole else []
    if edges is not None:  # a clause runs to its end: from each start, its longest only
        return list(dict.fromkeys([*found, *_clauses(parts, edges)]))
    for size in range(MAX_SPAN_WORDS, 0, -1):
        for words in parts:
            for start in range(len(words) - size + 1):
                found += filter(None, [_span(words, start, start + size)])
    return list(dict.fromkeys(found))


def _clauses(parts: list[list[str]], edges: frozenset[str]) -> list[str]:
    """From each start, the longest clause: up to its punctuation, an `edges` word or the end."""
    found = []
    for words in parts:
        stops = [i + 1 for i, w in enumerate(words) if w[-1] in _STOPS] + [len(words)]
        for start in range(len(words)):
            if start and not (bare(words[start - 1]) in edges or words[start - 1][-1] in _STOPS):
                continue
            limit = next(i for i in stops if i > start)
            for end in range(limit, start, -1):
                closes = end == limit or bare(words[end]) in edges
                if closes and (span := _span(words, start, end)):
                    found.append(span)
                    break
    return sorted(found, key=lambda span: -len(span.split()))


def _span(words: list[str], start: int, end: int) -> str:
    """`words[start:end]` as a value, or "" when a joining word begins or ends it.

    Nor may it cut a name ("Yusuf | Demir") or cross a clause's end ("Acme Mills, | amazon_us").
    """
    span = unpossessive(" ".join(words[start:end]).strip(EDGE))
    ends = span.split()[:: max(1, len(span.split()) - 1)]
    # the words either side of a cut, past a lone hyphen ("Amazon US | - Lamps")
    dash = [w == "-" for w in words]
    at = [(i - 1 - dash[i - 1], i + dash[i]) for i in (start, end) if 1 < i < len(words)]
    cut = [[words[a], words[b]] for a, b in at if b < len(words)]
    name = any(all(w[:1].isupper() for w in pair) and pair[0][-1].isalnum() for pair in cut)
    crosses = any(w[-1] in _STOPS for w in words[start : end - 1])
    return "" if name or crosses or any(bare(w) in JOINING_WORDS for w in ends) else span
