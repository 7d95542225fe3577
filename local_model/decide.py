"""The local model's next step: a set answer, a question, or which tool to call.

The message is classified among the offered tools and kinds of small talk (`intent`), a
follow-up in context; close tools or an unsure change are asked about, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Protocol

from local_model.conversation import Times, Turn, says
from local_model.intent import FOLLOW_UP, HOW, SMALL_TALK, Intents
from local_model.reading import REQUEST, answered, asks_to_know, clauses, masked
from local_model.replies import ask_for, shown, small_talk, summary, which_of
from local_model.spans import BACK, GOES_ON, bare
from local_model.values import argument_terms, date_arguments, dates, fill, own_words

Ranked = list[tuple[str, float]]  # classes by probability, likeliest first
CLOSE = 0.0
"""Margin under which both likeliest tools are asked: cross-validated, bench/step_thresholds."""
SURE_OF_CHANGE = 0.25
"""Below this share of the tools' probability a change is asked about (cross-validated too)."""
ANSWER = 1.0  # added to the tools a question of this model's asked about: the next answers it
UNTIMED = 0.05
"""Weighs a tool that reads a time when the thread says none: every tuning ask for one says a
time, five in six others none (the likelihood ratio of saying none, smoothed, is about this)."""


class Hints(Protocol):
    """What the app tells the model about a call beyond its messages and tool schemas."""

    examples: Mapping[str, Sequence[str]]
    """Requests each offered tool answers, in a person's words."""
    changing: frozenset[str]
    """The offered tools that change data."""
    readers: frozenset[str]
    """The offered tools that turn a time said in words into dates."""
    abilities: Sequence[str]
    """What the asker may ask for, a line each."""
    mentions: Mapping[str, Sequence[str]]
    """The workspace records the message names, by kind (an argument's name)."""
    read_as: Mapping[str, str]
    """The name a record of a kind reads as when the message is classified (else its kind)."""
    stated: Sequence[Mapping[str, str]]
    """The stays the message writes out, already read (`check_in`, `check_out`)."""
    shows: Mapping[str, Any]
    """What a person reads in each tool's result, for the tools that declare it."""
    times: Times
    """Where a text says a time, as the date reader finds it."""
    manuals: Mapping[str, str]
    """How each offered tool works, in a person's words."""


@dataclass(frozen=True)
class Step:
    """What to do next: call `tool`, or say `reply`."""

    tool: dict[str, Any] | None = None
    reply: str = ""
    why: str = ""
    asked: tuple[str, ...] = ()
    """The tools a question is about: the next message may answer it."""
    wave: tuple[tuple[dict[str, Any], Turn], ...] = ()
    """Calls to write at once, each for its part of the turn (a stay the message writes out)."""


class _Offer(NamedTuple):
    """A step's conversation, the offered tools by name, and the hints."""

    turn: Turn
    by_name: dict[str, dict[str, Any]]
    hints: Hints


class Decider:
    """Chooses each step of a turn."""

    def __init__(self, intents: Intents) -> None:
        self._intents = intents

    def step(
        self, turn: Turn, tools: list[dict[str, Any]], choice: str | None, hints: Hints
    ) -> Step:
        """The next step for `turn` with `tools` bound under `choice` (normalized)."""
        by_name = {tool["function"]["name"]: tool for tool in tools if choice != "none"}
        if choice in by_name:
            return Step(tool=by_name[str(choice)], why="tool_choice")
        may_reply = choice != "required"
        offer = _Offer(turn, by_name, hints)
        ranked = self._rank(offer, may_reply)
        if ranked and ranked[0][0] not in by_name:
            offer, ranked = self._past_small_talk(offer, ranked)
            turn = offer.turn
        if not ranked:
            latest = turn.now.results[-1:]
            return Step(reply="".join(shown(r, hints.shows) for r in latest), why="no tool")
        if not may_reply:
            return Step(tool=by_name[ranked[0][0]], why=f"required: {ranked[0][1]:.2f}")
        if turn.now.results:
            return self._after(offer, ranked)
        (best, p1), (second, p2) = ranked[0], ranked[1] if len(ranked) > 1 else ("", 0.0)
        if best not in by_name:  # how a tool works, asked (else the next kind)
            asked = asks_to_know(turn.ask) or turn.ask.rstrip().endswith("?")
            best = next(n for n, _ in ranked if n not in by_name and (n != HOW or asked))
            reply = small_talk(best, hints.abilities, hints.manuals.get(_about(offer), ""))
            return Step(reply=reply, why=f"small talk: {best} {p1:.2f}")
        pair = (best, second) if second in by_name else (best,)
        close = second in by_name and p1 - p2 < CLOSE
        mass = sum(p for n, p in ranked if n in by_name)  # small talk is already ruled out
        unsure = best in hints.changing and p1 < SURE_OF_CHANGE * mass
        if unsure and turn.before and {bare(w) for w in turn.ask.split()} & BACK:  # "fix them"
            unsure = bool(fill(_parameters(by_name[best]), turn, hints.mentions, best).missing)
        if close or unsure:
            why = f"{'close' if close else 'an unsure change'}: {best} {p1:.2f}, {second} {p2:.2f}"
            return Step(reply=which_of([summary(by_name[n]) for n in pair]), why=why, asked=pair)
        chosen = _fillable(offer, best, ranked)
        why = f"{best} {p1:.2f}" if chosen == best else f"{chosen}, as {best} lacks a value"
        return self._toward(offer, chosen, ranked, why)

    def _past_small_talk(self, offer: _Offer, ranked: Ranked) -> tuple[_Offer, Ranked]:
        """A message that opens with small talk and then asks ("thanks! who runs X?"): the ask."""
        by_name, mentions, turn = offer.by_name, offer.hints.mentions, offer.turn
        for lead, rest in clauses(turn.ask):
            # a question or request after small talk that ends in a mark ("thanks! | who …?"), not
            # after a first word alone ("what | sort of things?"); no statement ("sorry, | bye")
            asking = (rest.endswith("?") or REQUEST.match(rest)) and not lead[-1:].isalpha()
            named = any(says(rest, n) for names in mentions.values() for n in names)
            refers = turn.before and {bare(w) for w in rest.split()} & BACK  # a pronoun: an ask
            # a time for a change or question left open ("oops, | the 5th"): no small talk
            timed = turn.before and turn.before.asked and turn.times(rest)
            if not (named or refers or timed or asking or GOES_ON.match(rest)):
                continue
            first = self._rank(_saying(offer, lead), True)[0][0]
            again = [] if first in by_name else self._rank(_saying(offer, rest), not timed)
            if again and (again[0][0] in by_name or (asking and again[0][0] != first)):
                return _saying(offer, rest), again  # an ask, or small talk asked ("hi! who …?")
        return offer, ranked

    def _after(self, offer: _Offer, ranked: Ranked) -> Step:
        """After a result: its own words, or the next call asked, which the results give a value."""
        turn, by_name, hints = offer
        latest = turn.now.results[-1]
        goal = ranked[0][0] if ranked[0][0] in by_name else ""
        called = {call.name for call in turn.now.calls}  # not called again after a result
        # A stay read from the stay before ("make it three nights") is checked again before
        # anything is changed for it: the asked change may rest on words it took for a name.
        if {goal} & (hints.readers | hints.changing) and turn.before and turn.went_on(latest.name):
            looks = [c.name for c in turn.before.calls if c.name in by_name]
            plain = [n for n in looks if n not in hints.readers | hints.changing]
            dated = [n for n in plain if date_arguments(_parameters(by_name[n]))]
            # "make it 2 nights": the stay before, longer; or the change proposed for it again
            aside = [n for n in turn.before.asked if n in hints.changing and n in by_name]
            goal = (dated or aside or [goal])[-1]
        if goal in called & hints.readers and not latest.failed:  # read toward a likely call
            on = [n for n, p in ranked if p >= SURE_OF_CHANGE and n in by_name and n not in called]
            goal = next((n for n in on if date_arguments(_parameters(by_name[n]))), goal)
        if latest.failed and latest.name in hints.readers and goal not in called:
            dates = date_arguments(_parameters(by_name[goal]), required_only=True) if goal else []
            if dates or not goal:
                question = ask_for(dates or ["dates"], by_name.get(goal))
                return Step(reply=question, why="the time was not read", asked=(goal,) * bool(goal))
            return Step(tool=by_name[goal], why=f"{goal} without the time")
        each = [r for r in turn.now.results if r.name == latest.name]  # one, or a wave's each
        # A look-up's result is the answer (the one asked for, or the one the message fills);
        # only dates read go on to the call that needed them.
        if latest.failed or latest.name not in hints.readers or not goal or goal in called:
            told = [shown(r, hints.shows, latest.name in hints.changing) for r in each]
            return Step(reply="\n\n".join(told), why="result")
        if not (missing := fill(_parameters(by_name[goal]), turn, hints.mentions, goal).missing):
            return Step(tool=by_name[goal], why=f"the dates read fill {goal}")
        question = ask_for(missing, by_name[goal])
        return Step(reply=question, why=f"{goal} lacks {missing}", asked=(goal,))

    def _toward(self, offer: _Offer, name: str, ranked: Ranked, why: str) -> Step:
        """Call `name`, or first a date reader when it needs dates the turn does not hold."""
        turn, by_name, hints = offer
        tool, parameters = by_name[name], _parameters(by_name[name])
        dated = date_arguments(parameters)
        missing = [a for a in dated if a in fill(parameters, turn, hints.mentions, name).missing]
        if dated and len(turn.stated) > 1:  # "Dec 4-6 and Dec 11-13": a call for each stay
            each = tuple((tool, replace(turn, stated=(s,))) for s in turn.stated)
            return Step(wave=each, why=why)
        unread = missing or (dated if turn.says_when and not turn.stated else [])
        if not unread or name in hints.readers:
            return Step(tool=tool, why=why)
        readers = [n for n, _ in ranked if n in hints.readers and n in by_name]
        if readers and turn.says_when:
            return Step(tool=by_name[readers[0]], why=f"{why}; read the time first")
        if missing:
            return Step(reply=ask_for(missing, tool), why=why, asked=(name,))
        return Step(tool=tool, why=why)

    def _rank(self, offer: _Offer, may_reply: bool) -> Ranked:
        """The offered tools (and kinds of small talk) by probability for the message."""
        turn, by_name, hints = offer
        classes = {n: (*hints.examples.get(n, ()), summary(t)) for n, t in by_name.items()}
        classes |= SMALL_TALK if may_reply else {}
        if not classes:
            return []

        def rank(text: str) -> dict[str, float]:
            kinds_said = masked(text, hints.mentions, hints.read_as) or "..."
            return dict(self._intents.rank(kinds_said, classes))

        def surest(ranked: Mapping[str, float]) -> float:  # the likeliest tool's probability
            return max((p for n, p in ranked.items() if n in by_name), default=0.0)

        alone, before = rank(turn.ask), turn.before
        tools = dict(alone)
        values = [v for tool in by_name.values() for v in argument_terms(_parameters(tool))]
        own = own_words(turn, hints.mentions, values)
        if follows := before and before.ask and (not own or self._goes_on(turn.ask, hints)):
            # A follow-up that says nothing of its own ("Distex's?") is read with the ask
            # before; one that goes on from it ("and for coupons?", "also note that …"), so
            # read when that is surer than alone; else it is a request of its own. Its own
            # words come first, where a message's words weigh most ("and what's X working on?").
            read = rank(f"{turn.ask} {before.ask}")
            tools = read if not own or surest(read) >= surest(alone) else tools
        asked, again = answered(turn, own)
        knowing, named = asks_to_know(turn.ask), any(hints.mentions.values()) or turn.says_when
        named = named or bool(follows)  # one that goes on from the ask before asks as it did
        back = not turn.says_when and bool(before and dates("", before.values()))
        untimed = not turn.says_when and not (before and turn.times(before.ask))
        for name in tools:  # nothing to know is changed; dates found are not read anew ("then")
            reads_time = _reads_time(by_name.get(name), turn)
            if (knowing and name in hints.changing) or (back and reads_time):
                tools[name] = 0.0
            tools[name] *= UNTIMED if reads_time and untimed else 1.0
            tools[name] += ANSWER * (name in asked or (name in again and tools[name] > 0))
        # Whether it is small talk is read from the message alone; which tool, in context. A
        # question of its own that names no record nor time, whose likeliest tool is a change,
        # asks how the change works ("may a viewer add tasks?").
        first = max(by_name, key=alone.__getitem__, default="") if knowing and not named else ""
        how = sum(alone.get(n, 0.0) for n in hints.changing) if first in hints.changing else 0.0
        talk = {n: p + how * (n == HOW) for n, p in alone.items() if n not in by_name}
        talk = talk if sum(talk.values()) >= 0.5 else {}  # only when likelier than the tools
        weight = sum(tools[n] for n in by_name) or 1.0
        ranked = {**talk, **{n: (1 - sum(talk.values())) * tools[n] / weight for n in by_name}}
        return sorted(ranked.items(), key=lambda item: -item[1])

    def _goes_on(self, text: str, hints: Hints) -> bool:
        """Whether `text` goes on from the ask before: "and …", or read as such (`FOLLOW_UP`)."""
        said = masked(text, hints.mentions, hints.read_as) or "..."
        return bool(GOES_ON.match(text)) or dict(self._intents.rank(said, FOLLOW_UP))["on"] > 0.5


def _about(offer: _Offer) -> str:
    """The tool a question of how something works is about: the one it names most ("a brand")."""
    # of none named, a change of the three preselection ranks best; else none: how it all works
    said, tools = {bare(w)[:4] for w in offer.turn.ask.split()}, [*offer.by_name]
    first = next((n for n in tools[:3] if n in offer.hints.changing), "")
    named = {n: (sum(w[:4] in said for w in n.split("_")), n == first) for n in tools}
    return max((n for n in tools if any(named[n])), key=named.__getitem__, default="")


def _fillable(offer: _Offer, best: str, ranked: Ranked) -> str:
    """The look-up to call: the likeliest one the message fills, when `best` lacks a value."""
    # "Which brands does Acme own?" names no brand to resolve; the brand list answers it. A
    # change that lacks a value is asked about, and so is a look-up no other fills.
    turn, by_name, hints = offer

    def lacks(name: str) -> bool:
        missing = fill(schema := _parameters(by_name[name]), turn, hints.mentions, name).missing
        return bool(set(missing) - set(date_arguments(schema)))

    if best in hints.changing or not lacks(best):
        return best
    reads = [n for n, _ in ranked if n in by_name and n not in hints.changing and n != best]
    return next((n for n in reads if not lacks(n)), best)


def _saying(offer: _Offer, text: str) -> _Offer:
    """The offer for the message `text` in the same conversation."""
    return offer._replace(turn=replace(offer.turn, now=replace(offer.turn.now, ask=text)))


def _reads_time(tool: dict[str, Any] | None, turn: Turn) -> bool:
    """Whether a tool reads a time: a required argument's description gives one ("Hanukkah")."""
    schema = _parameters(tool) if tool else {}
    about = [(schema.get("properties") or {}).get(a, {}) for a in schema.get("required") or []]
    return any(turn.times(str(p.get("description"))) for p in about)


def _parameters(tool: dict[str, Any]) -> dict[str, Any]:
    return dict(tool["function"].get("parameters") or {})
