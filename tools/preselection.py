"""Tool preselection: before each model call, rank the registry's tools against the turn.

Only the best `budget` tools are offered to the model. The ranking is BM25 (`bm25s`) over
what each tool declares: its name, its description's first paragraph and the example asks
of its declaration. The query is the person's message plus a word for each kind of source
gather found (a mentioned client or brand). Tools the turn
already needs stay whatever their rank. The model still decides: this only narrows what it
is offered, so a large registry does not cost every call its whole schema list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import bm25s

from core.state import Source
from core.terms import terms
from tools.declaration import Tool

_K1 = 1.2
_B = 0.5
_NAME_WEIGHT = 3
_ASK_WEIGHT = 2
_SOURCE_WORDS = {"client": "client", "brand": "brand"}
"""Words a gathered source adds to the query: what the message names in the workspace. A KB
hit is no signal (the search finds some document for almost any message)."""


@dataclass(frozen=True)
class Offer:
    """The tools offered to one model call, in the order they are bound."""

    names: tuple[str, ...]
    """Kept tools first (in the order the turn used them), then the best-ranked."""
    scores: dict[str, float]
    """Each offered tool's ranking score (0 for a kept tool the query does not match)."""


class ToolRanker:
    """A BM25 index over the declared tools, built once per registry."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools = list(tools)
        corpus = [_words(_document(tool)) for tool in self._tools]
        self._bm25 = bm25s.BM25(k1=_K1, b=_B, method="atire", idf_method="lucene")
        vocabulary: dict[str, int] = {}
        ids = [[vocabulary.setdefault(w, len(vocabulary)) for w in doc] for doc in corpus]
        if ids:  # an empty corpus has no mean document length: nothing to index or rank
            self._bm25.index((ids, vocabulary), create_empty_token=False, show_progress=False)
        self._vocabulary = vocabulary

    def rank(self, query: str) -> list[tuple[str, float]]:
        """Return every tool's name and score for `query`, best first (ties: declared order)."""
        known = [w for w in _words(query) if w in self._vocabulary]
        # "what" and "which" tell tools apart, but name no need by themselves.
        if not self._tools or all(w in _GENERIC_QUESTION_WORDS for w in known):
            return [(tool.name, 0.0) for tool in self._tools]
        scores = [float(score) for score in self._bm25.get_scores(known)]
        order = sorted(range(len(self._tools)), key=lambda i: -scores[i])
        return [(self._tools[i].name, scores[i]) for i in order]

    def offer(
        self,
        message: str,
        *,
        sources: Iterable[Source] = (),
        keep: Iterable[str] = (),
        budget: int,
    ) -> Offer:
        """Choose the tools one model call is offered.

        Args:
            message: The text of the message that opened the turn.
            sources: What gather found for it; each kind of source adds its words.
            keep: Tools the turn already needs (called this turn, a pending proposal's,
                rehydration when history was cut); they are offered whatever their rank.
            budget: How many tools to offer at most, counting the kept ones. When it holds
                every tool, all are offered; otherwise only tools the query matches.

        Returns:
            The offered tools, kept first, then by score.
        """
        ranked = self.rank(turn_query(message, sources))
        scores = dict(ranked)
        kept = [name for name in dict.fromkeys(keep) if name in scores]
        names = list(kept)
        # A budget that holds the whole registry offers all of it (ranked); a smaller one
        # offers only tools the turn matches: filling it with strangers misleads a model.
        everything = budget >= len(ranked)
        for name, score in ranked:
            if len(names) >= max(budget, len(kept)):
                break
            if name not in names and (everything or score > 0):
                names.append(name)
        return Offer(tuple(names), {name: round(scores[name], 3) for name in names})


def turn_query(message: str, sources: Iterable[Source]) -> str:
    """Return the ranking query: the message, plus a word for each kind of source it names."""
    extra = {_SOURCE_WORDS[s["type"]] for s in sources if s.get("type") in _SOURCE_WORDS}
    return " ".join([message, *sorted(extra)])


def _document(tool: Tool) -> str:
    """What a tool is found by: its name, description's first paragraph and example asks."""
    name = tool.name.replace("_", " ")
    summary = tool.description.split("\n\n", 1)[0]
    asks = " ".join(tool.asks)
    return " ".join([*([name] * _NAME_WEIGHT), summary, *([asks] * _ASK_WEIGHT)])


def _words(text: str) -> list[str]:
    """Searchable words, with a plural's `s` dropped so "tasks" finds "task"."""
    out = []
    for word in re.findall(r"\w+", text.casefold()):
        if word in _ALWAYS_KEPT_WORDS or word in terms(word):
            out.append(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return out


_ALWAYS_KEPT_WORDS = frozenset({"when", "who", "which", "what", "where"})
"""Question words the workspace search drops, but which tell tools apart (when → dates)."""
_GENERIC_QUESTION_WORDS = frozenset({"what", "which"})
