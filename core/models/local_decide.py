"""Stage one of a local-model answer: reply, or call one of the first two offered tools.

A 135M model cannot pick among JSON schemas, and asked outright ("which tool?") it answers
near chance. What it does measurably well is tell how likely a text is after a prefix, so the
decision compares log-likelihoods of the person's message (nats, base e):

- small talk: the message after a list of small-talk messages versus after a list of
  requests (on the reference asks and 25 small-talk lines this separates every one);
- which tool: the message after each tool's one-line description.

Each is added to a prior that matches how the graph offers tools: they are bound best-first,
so on the first call the first tool wins unless the model clearly prefers the second; after a
tool result a reply wins unless an offered tool not yet called can be filled from the results
(a chain, e.g. `resolve_date_hint` → `get_availability`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from core.models.local_args import Pools, date_arguments, pools, unfillable
from core.models.local_prompt import summary_line
from core.models.local_turn import Turn
from core.models.local_values import ISO_DATE
from core.time_phrases import changes_only_when, few_words

REPLY = "reply"
ASK_WORDS = 12
"""Only the message's first words are scored. Log-likelihoods add up over tokens, so a long
message would otherwise stretch every margin below; and its opening tells small talk from a
request, or one tool from another, as well as the rest."""
RANK_GAP = 4.0
"""How many nats more likely the message must be under the second tool than the first..."""
LEAD_GAP = 4.0
"""...plus this many times the first tool's relative lead in the ranking score: a second
tool the ranking barely placed second needs RANK_GAP, one it placed far behind up to twice
that ("which client owns Garlic Press?" ranks resolve_brand 13.4, create_brand 7.1)."""
SMALL_TALK_BAR = 0.5
"""Small-talk margin above which the message is answered, not looked up; measured margins
were at most -0.7 for requests and at least 1.7 for small talk."""
DEFAULT_GAP = 1.0
"""Nats by which a tool other than the first must win a required call among unranked tools:
"thank you" after a proposed change is about as likely under "go ahead" as under "something
else", and must not approve it."""
MAX_CLAUSES = 3
_QUESTION = re.compile(
    r"(?:is|are|was|were|do|does|did|what|which|when|who|whose|where|how|any)\b", re.IGNORECASE
)
"""How a question opens ("is there ...", "do we have ...", "which ...")."""
_REQUEST = re.compile(
    r"(?:please|(?:can|could|would|will) (?:you|we|i)|let'?s|i'?d like|i want)\b", re.IGNORECASE
)
"""How a request put as a question, or politely, opens ("can you book ...?")."""
_CLAUSE = re.compile(r"[.!?;,:]+|\band\b", re.IGNORECASE)
CHAIN_PRIOR = 3.0
"""Prior of a chained call whose required arguments the tool results hold; the model's
preference can only overrule it when the tool already called explains the message better
by more than this."""
SMALL_TALK = ("thanks a lot!", "hi!", "great, that's perfect", "good morning :)", "you rock")
REQUESTS = (
    "What's the weather in Paris tomorrow?",
    "show me the files in the shared drive",
    "email Bob the minutes",
    "find folders with broken sharing settings",
    "when is the next team offsite?",
)


@dataclass(frozen=True)
class Candidate:
    """One option of the decision and why it scored what it did."""

    name: str
    """`reply` or a tool name."""
    score: float | None
    """Higher wins; None: ruled out."""
    why: str


@dataclass(frozen=True)
class Decision:
    """The outcome of stage one."""

    tool: dict[str, Any] | None
    """The OpenAI tool dict to call, or None to reply."""
    candidates: tuple[Candidate, ...]
    input_tokens: int = 0
    """Tokens the scoring read (each scored prefix and message counted in full)."""
    lacking: tuple[str, ...] = ()
    """The dates the best-ranked tool needs and the message does not give: the reply asks
    for them."""
    lacking_for: str = ""
    """That tool's name, when the reply asks for its dates."""

    def trace(self) -> list[dict[str, Any]]:
        """The candidates as plain data, for `response_metadata["local_decision"]`."""
        return [
            {"name": c.name, "score": None if c.score is None else round(c.score, 2), "why": c.why}
            for c in self.candidates
        ]


class Scorer(Protocol):
    """What the decision needs of the model (`local_scoring.ContinuationScorer`)."""

    def tokens(self, text: str) -> list[int]:
        """Tokenize `text`."""
        ...

    def loglik(self, prefix: list[int], continuation: list[int]) -> float:
        """Return log P(continuation | prefix)."""
        ...


class Decider:
    """Scores the candidates of one call with the model's log-likelihoods."""

    def __init__(self, scorer: Scorer) -> None:
        """Use `scorer` (and so its model) for every likelihood."""
        self._scorer = scorer
        self._read = 0

    def decide(
        self,
        turn: Turn,
        tools: list[dict[str, Any]],
        choice: str | None,
        scores: Mapping[str, float] | None = None,
        values: Pools | None = None,
        changing: frozenset[str] = frozenset(),
    ) -> Decision:
        """Choose between a reply and the first two of `tools` (bound order is rank).

        When a call is required and the caller gave no ranking, every tool is weighed.

        Args:
            turn: The conversation's current turn.
            tools: The tools this call may use under `choice`, best first.
            choice: The normalized tool_choice (None, "auto", "required", "none", a name).
            scores: The tools' ranking scores, when the caller ranked them.
            values: The turn's copyable values, when the caller has read them.
            changing: The offered tools that change data, when the caller knows them.

        Returns:
            The decision, with every candidate's score.
        """
        self._read = 0
        if choice == "none" or not tools:
            return Decision(None, (Candidate(REPLY, None, "no tool may be called"),))
        if choice not in (None, "auto", "required"):
            named = Candidate(tools[0]["function"]["name"], None, "tool_choice")
            return Decision(tools[0], (named,))
        reply_allowed = choice != "required"
        values = values or pools(turn)
        missing = {tool["function"]["name"]: unfillable(tool, values) for tool in tools}
        ruled_out = [
            Candidate(name, None, f"nothing in the turn gives {', '.join(args)}")
            for name, args in missing.items()
            if args
        ]
        lacking = missing[tools[0]["function"]["name"]]
        if reply_allowed and lacking and not turn.answered and not values.own_time:
            # The message is about the best-ranked tool but says no date, nor a time in
            # words another tool could read: a tool ranked below it is no answer.
            asked = Candidate(REPLY, 0.0, f"ask for {', '.join(lacking)}")
            best = tools[0]["function"]["name"]
            return Decision(None, (asked, *ruled_out), lacking=tuple(lacking), lacking_for=best)
        if reply_allowed:
            tools = [tool for tool in tools if not missing[tool["function"]["name"]]]
        if not tools:
            candidates = [Candidate(REPLY, 0.0, "no offered tool can be filled")]
        elif turn.answered and reply_allowed and _changed(turn, changing):
            # The person approved that one change; nothing else runs on its back.
            candidates = [Candidate(REPLY, 0.0, "a change went through")]
        elif turn.answered and reply_allowed:
            candidates = self._after_results(turn, tools, _asked_for(scores), values)
        elif scores is None and not reply_allowed:
            candidates = self._unranked(turn, tools)
        else:
            candidates = self._ranked(turn, tools[:2], scores or {}, changing)
            # Every tool offered counts, also one that waits for its dates to be read.
            if reply_allowed and _asks_again(turn, set(missing)):
                # "what about friday?" reads as small talk as much as "see you friday!".
                candidates.insert(0, Candidate(REPLY, None, "asks the previous lookup again"))
            elif reply_allowed:
                candidates.insert(0, self._small_talk(turn))
        candidates += ruled_out if reply_allowed else []
        scored = [c for c in candidates if c.score is not None]
        best = max(scored, key=lambda c: c.score or 0.0).name if scored else REPLY
        by_name = {tool["function"]["name"]: tool for tool in tools}
        return Decision(by_name.get(best), tuple(candidates), self._read)

    def _ranked(
        self,
        turn: Turn,
        top: list[dict[str, Any]],
        scores: Mapping[str, float],
        changing: frozenset[str] = frozenset(),
    ) -> list[Candidate]:
        """The first two tools: rank prior, and the second's likelihood edge over the first.

        A question that asks to know ("is there a room for 2 on December 18?") asks for no
        change: of a tool that changes data and one that does not, the other is chosen.
        """
        first = top[0]["function"]["name"]
        if len(top) == 1:
            return [Candidate(first, 0.0, "rank 1")]
        second = top[1]["function"]["name"]
        if asks_to_know(turn.ask) and (first in changing) != (second in changing):
            kept, dropped = (second, first) if first in changing else (first, second)
            why = "a question asks for no change"
            return [
                Candidate(kept, 0.0, "the tool that changes nothing"),
                Candidate(dropped, None, why),
            ]
        if first in turn.earlier_called and few_words(turn.ask):
            # "the Distex one" answers the question the previous exchange's resolve_brand
            # asked; alone, the words read as a client lookup (+9.7 nats).
            why = "a follow-up of a few words to the previous exchange's tool"
            return [Candidate(first, 0.0, "rank 1"), Candidate(second, None, why)]
        edge = self._purpose(turn, top[1]) - self._purpose(turn, top[0])
        best, next_best = scores.get(first, 0.0), scores.get(second, 0.0)
        lead = (best - next_best) / best if best > next_best > 0 else 0.0
        gap = RANK_GAP + LEAD_GAP * lead
        return [
            Candidate(first, 0.0, "rank 1"),
            Candidate(
                second,
                edge - gap,
                f"rank 2: message likelihood {edge:+.2f} vs rank 1, minus {gap:.2f}",
            ),
        ]

    def _unranked(self, turn: Turn, tools: list[dict[str, Any]]) -> list[Candidate]:
        """A required call among unranked tools: the message's likelihood under each.

        The first tool listed is the caller's default; another must explain the message
        better by `DEFAULT_GAP`. What a reply to a proposal means is decided this way.
        """
        first, *others = tools
        return [
            Candidate(first["function"]["name"], self._purpose(turn, first), "the default"),
            *(
                Candidate(
                    tool["function"]["name"],
                    self._purpose(turn, tool) - DEFAULT_GAP,
                    f"message likelihood minus {DEFAULT_GAP:.2f} (not the default)",
                )
                for tool in others
            ),
        ]

    def _small_talk(self, turn: Turn) -> Candidate:
        """Reply when every clause of the message reads as small talk.

        "thanks! and can you list the open tasks?" opens like small talk; its second clause
        does not. The clauses are scored under one list, then the other, so each list's
        prefix is evaluated once.
        """
        parts = _clauses(turn.ask)
        small = [self._examples(part, SMALL_TALK) for part in parts]
        margin = min(
            s - self._examples(part, REQUESTS) for s, part in zip(small, parts, strict=True)
        )
        return Candidate(REPLY, margin - SMALL_TALK_BAR, f"small talk {margin:+.2f} vs requests")

    def _after_results(
        self, turn: Turn, tools: list[dict[str, Any]], asked_for: str | None, values: Pools
    ) -> list[Candidate]:
        """After a tool result: reply, or chain to an offered tool not called yet.

        A chain needs a tool whose required arguments all are top-level values of this
        turn's results, at least one of them news (not in the message): the results made
        the call possible, as dates from `resolve_date_hint` make `get_availability`.

        The tool the message itself ranked first (`asked_for`: "book a room for Dana Levi
        next weekend" ranks `create_booking` first) may also take a field of the results'
        records (a room's `room_type`) and, for a text argument, a name the message says
        ("Dana Levi"): the lookups before it were steps towards it.
        """
        candidates = [Candidate(REPLY, 0.0, "a tool result arrived")]
        fresh = [t for t in tools if t["function"]["name"] not in turn.called][:2]
        given: dict[str, Any] = turn.plain_values()
        by_name = {tool["function"]["name"]: tool for tool in tools}
        # The tool that answered is normally still offered; if not, its name stands in.
        answered_by = turn.called[-1] if turn.called else turn.results[-1].name
        last = by_name.get(answered_by, {"function": {"name": answered_by}})
        # A date argument takes any date the results hold ("start" of a holiday for a
        # check-in); the grammar then offers those dates.
        dates = [v for v in given.values() if isinstance(v, str) and ISO_DATE.fullmatch(v)]
        for tool in fresh:
            name = tool["function"]["name"]
            required = (tool["function"].get("parameters") or {}).get("required") or []
            fills: dict[str, Any] = {arg: given[arg] for arg in required if arg in given}
            if dates:
                dated = date_arguments(tool, required_only=True)
                fills |= {arg: dates for arg in dated if arg not in fills}
            if name == asked_for:
                fills |= {arg: list(v) for arg, v in values.fields.items() if arg in required}
                said = [n for n in values.names if n in turn.ask]
                texts = [a for a in _text_arguments(tool) if a in required and a not in fills]
                fills |= {arg: said for arg in texts if said}
            unfilled = [arg for arg in required if arg not in fills]
            if not required or unfilled:
                why = f"results lack {', '.join(unfilled)}" if unfilled else "needs nothing"
                candidates.append(Candidate(name, None, why))
                continue
            if all(_said(fills[arg], turn.ask) for arg in required):
                # Everything it needs was in the message: not a next step the results opened.
                candidates.append(Candidate(name, None, "the message already held its arguments"))
                continue
            # "and tomorrow?" after a room search: alone its words read as a date question,
            # and the date reading's result would be the answer.
            if name in turn.earlier_called and changes_only_when(turn.ask):
                why = "chain: results hold its arguments; the previous exchange asked it"
                candidates.append(Candidate(name, CHAIN_PRIOR, why))
                continue
            edge = self._purpose(turn, tool) - self._purpose(turn, last)
            candidates.append(
                Candidate(
                    name,
                    CHAIN_PRIOR + edge,
                    f"chain: results hold its arguments; likelihood {edge:+.2f} vs the tool called",
                )
            )
        return candidates

    def _purpose(self, turn: Turn, tool: dict[str, Any]) -> float:
        """The message's log-likelihood after "The assistant can: <the tool's description>"."""
        prefix = f"<|im_start|>system\nThe assistant can: {summary_line(tool)}<|im_end|>\n"
        return self._loglik(f"{prefix}<|im_start|>user\n", f"{_ask(turn)}<|im_end|>")

    def _examples(self, text: str, examples: tuple[str, ...]) -> float:
        """The log-likelihood of `text` as the next line of a list of example messages."""
        listed = "".join(f"- {example}\n" for example in examples)
        return self._loglik(f"<|im_start|>Messages:\n{listed}- ", f"{text}\n")

    def _loglik(self, prefix: str, continuation: str) -> float:
        scorer = self._scorer
        prefix_tokens, tokens = scorer.tokens(prefix), scorer.tokens(continuation)
        self._read += len(prefix_tokens) + len(tokens)
        return scorer.loglik(prefix_tokens, tokens)


def _changed(turn: Turn, changing: frozenset[str]) -> bool:
    """Whether the latest result is a change that went through."""
    latest = turn.results[-1]
    return latest.name in changing and not latest.failed


def asks_to_know(message: str) -> bool:
    """Whether the message is a question that asks to know, not a request put as one.

    "is there a room for 2 on December 18?" asks to know; "can you book a room for Dana?"
    asks for something done.
    """
    text = message.strip()
    if _REQUEST.match(text):
        return False
    return text.endswith("?") or _QUESTION.match(text) is not None


def _asked_for(scores: Mapping[str, float] | None) -> str | None:
    """The tool the ranking placed first for the message (None without a ranking)."""
    ranked = {name: score for name, score in (scores or {}).items() if score > 0}
    return max(ranked, key=lambda name: ranked[name]) if ranked else None


def _text_arguments(tool: dict[str, Any]) -> list[str]:
    """The names of the tool's plain text arguments (no date, no enum)."""
    properties = ((tool["function"].get("parameters") or {}).get("properties")) or {}
    return [
        name
        for name, prop in properties.items()
        if prop.get("type") == "string" and "format" not in prop and "enum" not in prop
    ]


def _asks_again(turn: Turn, offered: set[str]) -> bool:
    """A question that changes only when, with the previous exchange's tool offered again."""
    return (
        "?" in turn.ask
        and changes_only_when(turn.ask)
        and any(name in offered for name in turn.earlier_called)
    )


def _said(value: Any, message: str) -> bool:
    """Whether the message already holds `value` (every one, for a list of dates)."""
    values = value if isinstance(value, list) else [value]
    return all(str(v).casefold() in message.casefold() for v in values)


def _ask(turn: Turn) -> str:
    """The message as scored: its first words on one line ("..." for an empty message)."""
    return " ".join(turn.ask.split()[:ASK_WORDS]) or "..."


def _clauses(text: str) -> list[str]:
    """The message's first clauses (split at punctuation and "and"), each cut short."""
    parts = [" ".join(p.split()[:ASK_WORDS]) for p in _CLAUSE.split(text) if p.strip()]
    return parts[:MAX_CLAUSES] or ["..."]
