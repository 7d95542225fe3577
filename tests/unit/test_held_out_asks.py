"""The held-out sets stay held out: nothing the local model reads, nor the tests, copies it.

A benchmark that is tuned to stops measuring. No held-out ask or `after` message, nor any
run of four consecutive words of one (words of the workspace's own record names aside), may
appear in the tools' example asks, descriptions or argument descriptions, in any file under
local_model/ (texts.toml, the small-talk classifier's data, included), tools/ or prompts/,
in tests/, or in the tuning set. And no tool's example ask is a sentence of either set.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from bench.ask_sets import HELD_OUT, SetName, load
from tools.agency import demo_data
from tools.hospitality import demo_data as hotel_data
from tools.registry import default_registry

ROOT = Path(__file__).resolve().parents[2]
READ_FOLDERS = ("local_model", "tools", "prompts", "tests")
"""Every file the model or its classifier loads lives in these folders, and the tests too."""
TUNING = ROOT / "bench" / "asks" / "tuning.yaml"
RUN = 4
_WORD = re.compile(r"[\w'%-]+")
_POSSESSIVE = re.compile(r"'s$")


def words(text: str) -> list[str]:
    return [w.casefold().strip("'-") for w in _WORD.findall(text) if w.strip("'-")]


def record_names() -> list[tuple[str, ...]]:
    """The demo workspace's record names as words: clients, brands, people, rooms, guests and
    task titles."""
    names = [c["name"] for c in demo_data.CLIENTS]
    names += [b["name"] for b in demo_data.BRANDS] + [m["name"] for m in demo_data.TEAM]
    names += [t["title"] for t in demo_data.TASKS]
    names += [r["room_type"] for r in hotel_data.ROOMS]
    names += [b["guest_name"] for b in hotel_data.BOOKINGS]
    return sorted({tuple(words(name)) for name in names}, key=len, reverse=True)


def runs(sentence: str, names: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The sentence's runs of RUN words that hold no word of a record name it says whole."""
    said = [_POSSESSIVE.sub("", w) for w in words(sentence)]
    named = [False] * len(said)
    for name in names:
        for start in range(len(said) - len(name) + 1):
            if tuple(said[start : start + len(name)]) == name:
                named[start : start + len(name)] = [True] * len(name)
    found: list[tuple[str, ...]] = []
    segment: list[str] = []
    for word, is_name in zip(said, named, strict=True):
        if is_name:
            segment = []
            continue
        segment.append(word)
        if len(segment) >= RUN:
            found.append(tuple(segment[-RUN:]))
    return found


def read_files() -> Iterable[Path]:
    """The text files of the folders the model reads, and of tests/."""
    for folder in READ_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                yield path


def corpus_texts() -> Iterable[tuple[str, str]]:
    """(where, text) for everything a held-out set must not be copied into."""
    for tool in default_registry().tools():
        for ask in tool.examples:
            yield f"{tool.name} asks", ask
        yield f"{tool.name} description", tool.description
        yield f"{tool.name} arguments", str(tool.args_schema.model_json_schema())
    for path in [*read_files(), TUNING]:
        try:
            yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue


def held_out_sentences() -> list[str]:
    """Every held-out ask and every earlier message of its thread."""
    asks = [ask for name in HELD_OUT for ask in load(name)]
    return list(dict.fromkeys([a.text for a in asks] + [m for a in asks for m in a.after]))


def ngrams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


@pytest.fixture(scope="module")
def corpus() -> list[tuple[str, list[str]]]:
    return [(where, words(text)) for where, text in corpus_texts()]


def test_the_corpus_holds_the_models_data_the_tools_and_the_tests() -> None:
    read = {str(path.relative_to(ROOT)) for path in read_files()}
    assert "local_model/texts.toml" in read
    assert "tests/unit/test_held_out_asks.py" in read
    assert any(p.startswith("tools/agency/") and p.endswith(".yaml") for p in read)


@pytest.mark.parametrize("name", HELD_OUT)
def test_each_held_out_set_is_big_enough_and_covers_every_tool_and_kind(name: SetName) -> None:
    held_out = load(name)
    kinds = [ask.kind for ask in held_out]
    assert len(held_out) >= 120
    assert kinds.count("small_talk") >= 10
    assert kinds.count("follow_up") >= 10
    assert all(ask.after for ask in held_out if ask.kind == "follow_up")
    assert kinds.count("ask_to_know") >= 10
    assert sum(ask.clarify for ask in held_out) >= 5
    offered = {t.name for t in default_registry().tools()} - {"load_prior_skill_result"}
    for tool in offered:
        phrasings = [a for a in held_out if a.kind == "tool" and a.tools[:1] == (tool,)]
        assert len(phrasings) >= 3, f"{tool} has {len(phrasings)} held-out phrasings"
    assert len(load("tuning")) >= 530


def test_no_held_out_sentence_or_run_of_four_words_is_copied(
    corpus: list[tuple[str, list[str]]],
) -> None:
    known = record_names()
    indexed = [(where, ngrams(tokens, RUN)) for where, tokens in corpus]
    copies = []
    # A failure names the held-out sentence by its number and shows only the words already
    # found elsewhere: the message must not show a held-out ask.
    for number, sentence in enumerate(held_out_sentences(), start=1):
        for run in runs(sentence, known):
            copies += [
                f"held-out sentence {number}: {' '.join(run)!r} in {w}"
                for w, grams in indexed
                if run in grams
            ]
        whole = tuple(words(sentence))
        if len(whole) < RUN:
            copies += [
                f"held-out sentence {number}: all of it in {where}"
                for where, tokens in corpus
                if whole in ngrams(tokens, len(whole))
            ]
    assert not copies, "held-out asks copied:\n" + "\n".join(copies)


def test_no_tool_example_is_a_benchmark_sentence() -> None:
    sentences = {" ".join(words(a.text)) for name in ("tuning", *HELD_OUT) for a in load(name)}
    copied = [
        f"{tool.name}: {ask!r}"
        for tool in default_registry().tools()
        for ask in tool.examples
        if " ".join(words(ask)) in sentences
    ]
    assert not copied, "tool examples that are benchmark sentences:\n" + "\n".join(copied)


def test_only_the_workspaces_record_names_said_whole_end_a_run() -> None:
    known = record_names()
    assert {("distex",), ("garlic", "press"), ("ada", "lovelace"), ("rivka", "stein")} <= set(known)
    assert ("fill", "in", "all", "the") in runs("fill in all the missing brand mappings", known)
    assert runs("who owns Thorinox Peelers now?", known) == []
    assert runs("is Ada Lovelace's task done", known) == []
    assert ("a", "task", "for", "2026") in runs("open a task for 2026 Acme", known)
    assert ("move", "it", "to", "the") in runs("move it to the new Acme", known)
    assert ("the", "garlic", "and", "the") in runs("the garlic and the press", known)
