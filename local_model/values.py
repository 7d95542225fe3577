"""The values a call may take, argument by argument: only what the turn holds."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from langchain_core.utils.json_schema import dereference_refs

from local_model.conversation import Exchange, Mentions, Plain, Times, Turn, iso_day, names, says
from local_model.fitting import Fill, fits, labelled, labels
from local_model.grammar import alternatives
from local_model.spans import BACK, CUT, EDGE, FUNCTION_WORDS, JOINING_WORDS, bare, spans

FULL = 2 / 3
"""A text clause is offered when it says this share of the words of its own the fullest says."""
PROSE = 1000  # an argument that may be this long holds prose (a note, a title), not a name
COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
"""Counts said in words ("a room for three"); "one" is left out, as in "the Acme one"."""
_NUMBER = re.compile(rf"(?i)(?<![\w.-])(?:\d+(?:\.\d+)?|{'|'.join(COUNTS)})(?![\w-])")
_CODE = re.compile(r"^\w*(?:_|\d)\w*$")  # a word that reads as an id ("amazon_ca", "B0CGP12345")


def fill(parameters: Mapping[str, Any], turn: Turn, mentions: Mentions, tool: str = "") -> Fill:
    """The values each argument of a call of `tool` with `parameters` may take in `turn`.

    A follow-up that leans on `tool`'s last call, or refers back to any call, keeps its arguments;
    a record it picks out of what `tool` found ("the amazon_us one") gives its fields. A request
    of its own is offered another tool's arguments only where they name a record (a client).
    """
    schema = dereference_refs(dict(parameters))
    required, props = set(schema.get("required") or []), schema.get("properties") or {}
    stay = turn.stated[0] if len(turn.stated) == 1 else {}  # of several, each has its call
    now: dict[str, list[Plain]] = {**{a: [v] for a, v in stay.items()}, **turn.now.values()}
    calls = (prior := turn.before or Exchange("", (), ())).calls
    # of the exchange before's values, those its ask named are meant
    found = {k: _named(prior.ask, vs) or vs for k, vs in prior.values().items()}
    leans = not own_words(turn, mentions, argument_terms(schema))  # names and values only
    back = bool({bare(w) for w in turn.ask.split()} & BACK)  # it refers back ("fix them")
    referred = prior.values(prior.ask, about=False) if back else {}  # the records it picked
    named_before = [(k, v) for k in found for v in found[k] if back and says(prior.ask, str(v))]
    told = ([("name", v) for v in referred.get("name", [])] or named_before) if back else None
    answers = tool in {*prior.asked, *(c.name for c in calls)}  # "open a task" picks no open task
    asked = prior.values(picked_by=turn.ask if answers else "", about=leans or back)
    if not (leans or back):  # a request of its own takes from another tool's call only records
        mine = {k for c in calls if c.name == tool for k in c.args}  # its own call's it keeps
        theirs = {k for c in calls for k, v in c.args.items() if isinstance(v, str)} - mine
        # of another tool's texts, a record ("client") stays and a filter ("assignee") goes
        asked = {k: vs for k, vs in asked.items() if k in mentions or k not in theirs}
    given = [(k, v) for c in calls for k, v in c.args.items()]
    picked = {k: [v for v in vs if (k, v) not in given] for k, vs in asked.items()}
    own_time, dated, said = turn.says_when, set(date_arguments(schema)), turn.said(tool)
    keep = back or bool(dated & {k for c in calls for k in c.args} and not own_time)  # same stay
    again = {k: v for c in calls if keep or (leans and c.name == tool) for k, v in c.args.items()}
    written = [w for w in turn.times(said) if re.search(r"\d", said[slice(*w)])]
    ask = _blank(said, written) if dated else said  # a date, not text
    records = [n for names in mentions.values() for n in names]
    result = Fill()
    for arg, prop in props.items():
        before, options = (found if arg in required else asked), alternatives(prop)
        kinds = {str(a.get("type")) for a in options}
        enum = [v for a in options for v in a.get("enum", [])]
        choices, meant = list[Plain](), list[Plain]()  # meant: said, though not as written
        if enum:
            kept = [] if arg in required else [v for v in before.get(arg, []) if v in enum]
            choices = [v for v in enum if says(said, str(v))] or kept
        elif any(a.get("format") == "date" for a in options):
            earlier = dates(arg, before) if arg in required else before.get(arg, [])
            # a time of its own read apart from its start ("for 3 nights") goes on from the stay
            apart = own_time and arg not in required
            meant = [*dates(arg, {arg: found.get(arg, [])})] if apart else []
            # a filter takes a date a result holds only when the message says a time
            held = dates(arg, now if arg in required or own_time else {arg: now.get(arg, [])})
            choices = [*(held or ([] if own_time else earlier) or meant)]
            meant += held if own_time else []  # its own time is meant ("due next friday")
        elif kinds and kinds <= {"integer", "number"}:
            # a number it says, in words too ("a family of four"); an id only after its name
            meant = _numbers(said, turn) if not arg.endswith("_id") or says(said, arg[:-3]) else []
            got = meant + [v for v in now.get(arg, []) if not isinstance(v, str)]
            choices = [n for n in dict.fromkeys(got or before.get(arg, [])) if fits(n, options)]
        elif kinds == {"string"}:
            about = str(prop.get("description") or "")
            times = [turn.ask[a:b] for a, b in turn.times(turn.ask)] if turn.times(about) else []
            prose = any(a.get("maxLength", 0) >= PROSE for a in options)
            texts = times or _texts(
                arg, about, arg in required, ask, mentions, now, before, told, turn.times, prose
            )
            # a name it does not say is the one its own call before gave ("make that four nights"),
            # and prose too when it refers back and names not the argument ("make it due monday")
            gave = [str(c.args[arg]) for c in calls if c.name == tool and arg in c.args][-1:]
            own = name_spans(said, mentions, turn.times) or _records_of(arg, prop, mentions)
            named = "name" in about.casefold() and not own and (back or answers)
            texts = gave if gave and (named or (prose and back and not says(said, arg))) else texts
            texts = [*texts, *(r for r in records if r not in texts and labels(arg, r, said))]
            empty = [t for t in texts if prose and hollow(t, tool, records)]  # "the note"
            choices = [t for t in texts if fits(t, options) and t not in empty]
            choices = _fullest(choices, tool, records, said) if prose else choices
            # of prose, the clauses about what the thread showed ("the one about X", after notes)
            seen = {bare(w) for v in found.get(arg, []) if prose for w in str(v).split()}
            near = [c for c in choices if seen - JOINING_WORDS & {*map(bare, str(c).split())}]
            choices = near or choices
            # a word alone is no prose: "drop it" means the note the answer before showed, and
            # "actually the 7th" the title the call before gave
            alone = prose and len(" ".join(map(str, choices)).split()) < 2
            showed: list[Plain] = [v for v in found.get(arg, []) if back and fits(v, options)]
            showed = (showed or [*gave] * own_time) if alone else []
            # "same role", "his role": what the record referred to holds under the argument's name
            refs = [f"{w} {arg.split('_')[-1]}" for w in BACK]
            that = [v for v in referred.get(arg, []) if any(says(said, r) for r in refs)]
            choices = that or showed or choices or _swapped(again.get(arg), again, mentions)
        if choices:
            result.choices[arg] = choices
            # said: in words, or as a record named in part ("Linus's", "maya"), or kept
            known = [*_records_of(arg, prop, mentions), *picked.get(arg, []), *meant]
            known += [again[a] for a in [arg] if a in again] + [str(v) for _, v in told or ()]
            if arg not in required and any(says(said, str(c)) or c in known for c in choices):
                result.said.append(arg)
        elif arg in required:
            result.missing.append(arg)
    return labelled(result, said, required, records)


def own_words(turn: Turn, mentions: Mentions, values: Sequence[str]) -> set[str]:
    """The message's words but function words, names, numbers, records, `values` (plurals too)."""
    spoken = name_spans(turn.ask, {}, turn.times)  # a name's words are capitalized, each
    capitalized = [s for s in spoken if all(w[:1].isupper() for w in s.split())]
    said = [*capitalized, *(n for names in mentions.values() for n in names), *values]
    told = {bare(w) for s in said for w in s.replace("_", " ").split()} | FUNCTION_WORDS | {""}
    words = {bare(w) for w in turn.ask.split() if not _NUMBER.fullmatch(w.strip(EDGE))}
    return {w for w in words if w not in told and w.removesuffix("s") not in told}


def _fullest(texts: list[Plain], tool: str, records: Sequence[str], said: str) -> list[Plain]:
    """Of prose, the clauses that say nearly the most words of their own (`FULL`).

    A task's title, not its request ("acme to-do: | email the printer") nor a cut ("the printer");
    the whole message only when no part says anything; before a colon, the request ("one for Jo:").
    """
    plain = JOINING_WORDS | set(tool.split("_")) | {bare(w) for r in records for w in r.split()}
    head, colon, _ = said.strip(EDGE).partition(":")
    plain |= {bare(w) for w in head.split()} if colon else set()

    def own(text: Plain) -> int:
        return len({bare(w) for w in str(text).split()} - plain)

    parts = [t for t in texts if str(t) != said.strip(EDGE) and own(t)]
    most = max(map(own, parts), default=0)
    return [t for t in parts if own(t) >= FULL * most] or texts


def hollow(text: str, tool: str, others: Sequence[str]) -> bool:
    """Whether `text` says only function words, the tool's name or the words of `others`."""
    # of `others`, not one holding it as a part ("Hooks" of "Amazon US - Hooks"); whole, yes
    plain = {bare(w) for o in others if says(o, text) in ([], [(0, len(o))]) for w in o.split()}
    return {bare(w) for w in text.split()} <= plain | FUNCTION_WORDS | set(tool.split("_"))


def argument_terms(parameters: Mapping[str, Any]) -> list[str]:
    """A call's argument names and every value its enum arguments may take ("guests", "done")."""
    props = dereference_refs(dict(parameters)).get("properties") or {}
    values = [str(v) for p in props.values() for a in alternatives(p) for v in a.get("enum", [])]
    return [*props, *values]


def date_arguments(parameters: Mapping[str, Any], *, required_only: bool = False) -> list[str]:
    """The call's date arguments, in declared order (or only its required ones)."""
    schema = dereference_refs(dict(parameters))
    wanted, props = set(schema.get("required") or []), schema.get("properties") or {}
    dated = [a for a, p in props.items() if any(o.get("format") == "date" for o in alternatives(p))]
    return [arg for arg in dated if arg in wanted or not required_only]


def _texts(
    arg: str,
    about: str,
    required: bool,
    ask: str,
    mentions: Mentions,
    now: dict[str, list[Plain]],
    before: dict[str, list[Plain]],
    back: Sequence[tuple[str, Plain]] | None,
    times: Times,
    prose: bool,
) -> list[str]:
    """A string argument's values: a record of its kind, a name, or a span of the message.

    Of prose (a note, a title), only the spans that are clauses (`spans`). `back`, when the
    message refers back ("is he free?"): the values the message before named, by field.
    """
    results = [v for v in now.get(arg, []) if isinstance(v, str)]
    earlier = [v for v in before.get(arg, []) if isinstance(v, str)]
    given = [c.strip(EDGE) for c in about.partition("e.g.")[2].split(";")[0].split(",")]
    if listed := [c for c in given if _CODE.match(c) and says(ask, c)]:
        return listed  # an identifier the description gives, said as words ("ppc specialist")
    if arg in mentions:  # a record it says, else one gather found by a word of it ("the peelers")
        own = [n for n in mentions[arg] if says(ask, n)] or sorted({*mentions[arg]} - {*earlier})
        return own or results or (earlier if len({*earlier}) == 1 else [])  # of several: ask
    described = _described(about, mentions)
    named = [n for kind in described for n in mentions[kind]]
    other = {v for k, v in back or () if k in mentions and k not in described}  # "Acme": a client
    meant = [str(v) for _, v in back or () if described and v not in other]
    if required:  # a record of the kind the one before had (only it when "their"), or any span
        kept = [v for kind in described for v in before.get(kind, []) if isinstance(v, str)]
        # a record named whole ends a clause, a word of its name alone not ("the cutlery reviews")
        cuts = {bare(w) for ns in mentions.values() for n in ns if says(ask, n) for w in n.split()}
        said = spans(ask, JOINING_WORDS | cuts | {""}) if prose else spans(ask)
        spoken = [s for s in said if not _NUMBER.fullmatch(s)]
        message = [s for s in spoken if list(times(s)) != [(0, len(s))]]  # a time alone: no text
        names = name_spans(ask, mentions, times) if "name" in about.casefold() else []
        referred = (kept or meant) if back is not None else []
        return named or referred or [*results, *kept, *(names or message)]
    if described:
        return named or results or earlier or meant
    codes = any(_CODE.match(c) for c in given[:1])  # its first example: "e.g. 'amazon_us'"
    return results or name_spans(ask, mentions, times, codes=codes) or earlier


def _swapped(text: Any, was: Mapping[str, Any], mentions: Mapping[str, Any]) -> list[Plain]:
    """The text the call before took, a record it gave said as the one the message names."""
    for old, new in [(str(was.get(kind, "")), now[0]) for kind, now in mentions.items() if now]:
        for start, end in reversed(says(text, old) if isinstance(text, str) else []):
            text = f"{text[:start]}{new}{text[end:]}"
    return [text] if isinstance(text, str) else []


def _records_of(arg: str, prop: Any, mentions: Mentions) -> list[str]:
    """The records the message names that are of the kind `arg` takes."""
    kinds = [arg] if arg in mentions else _described(str(prop.get("description") or ""), mentions)
    return [n for kind in kinds for n in mentions.get(kind, [])]


def _described(about: str, mentions: Mentions) -> list[str]:
    """The kinds of record an argument's description says it names ("the client's name")."""
    text = about.casefold()
    return [k for k in mentions if "name" in text and k.replace("_", " ") in text]


def name_spans(text: str, mentions: Mentions, times: Times, *, codes: bool = False) -> list[str]:
    """Names: capitalized spans, not a time or record (`codes`: ids too).

    One that opens the message counts only when each word is capitalized and none is a function
    word ("Grace Hopper is", not "Before I email").
    """
    # a record's name is cut out whole ("Thorinox Pans", not "Pans")
    records = [s for ns in mentions.values() for n in ns for s in names(text, n)]
    quiet = _blank(text, [*times(text), *records])
    opening = text.lstrip(EDGE)
    # no span that opens with a function word is a name ("I meant" in "sorry, I meant …")
    found = [s for s in spans(quiet) if bare(s.partition(" ")[0]) not in FUNCTION_WORDS]
    titled = [s for s in found if " " in s and s.istitle() and opening.startswith(s)]
    return [
        span
        for span in found
        if ((span[:1].isupper() or (codes and _CODE.match(span))) and not opening.startswith(span))
        or (span in titled and not {bare(w) for w in span.split()} & FUNCTION_WORDS)
    ]


def _named(text: str, values: list[Plain]) -> list[Plain]:
    """The values `text` says, but one it says only inside another ("Queen" in "Double Queen")."""
    said = {str(v) for v in values if says(text, str(v))}
    inside = {v for v in said for other in said if other != v and says(other, v)}
    return [v for v in values if str(v) in said - inside]


def _numbers(said: str, turn: Turn) -> list[Plain]:
    """Numbers `said` holds, outside its times and the words the turn's calls took."""
    text = _blank(said, list(turn.times(said)))
    for value in [v for c in turn.now.calls for v in c.args.values() if isinstance(v, str) and v]:
        text = text.replace(value, f" {CUT} ")
    found = [COUNTS.get(n.casefold(), n) for n in _NUMBER.findall(text)]
    return [n if isinstance(n, int) else float(n) if "." in n else int(n) for n in found]


def dates(arg: str, values: Mapping[str, list[Plain]]) -> list[str]:
    """ISO dates under the argument's own name, else those the values hold (a night: its day)."""
    every = {n: [str(v) for v in vs if iso_day(str(v))] for n, vs in values.items()}
    held = every.get(arg) or list(dict.fromkeys(v for vs in every.values() for v in vs))
    after = [str(date.fromisoformat(held[0]) + timedelta(days=1))] if held else []
    return held[:1] if arg not in every and held[1:] == after else held  # "due friday": Friday


def _blank(text: str, where: list[tuple[int, int]]) -> str:
    """`text` with the parts at `where` cut out (runs of words do not cross a cut)."""
    for start, end in sorted(set(where), reverse=True):  # a name two records share: once
        text = f"{text[:start]} {CUT} {text[end:]}"
    return text
