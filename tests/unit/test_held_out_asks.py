"""The held-out asks stay held out: nothing the local model or the ranking reads copies them.

A benchmark that is tuned to stops measuring. No held-out sentence, nor any run of four
consecutive words of one (words of entity names aside), may appear in the tools' example
asks, descriptions or argument descriptions, in prompts/, or in the local model's code. And
no tool's example ask is a sentence of either benchmark set.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from bench.ask_sets import load
from tools.agency import demo_data
from tools.hospitality import demo_data as hotel_data
from tools.registry import default_registry

ROOT = Path(__file__).resolve().parents[2]
LOCAL_MODEL_CODE = ROOT / "local_model"
RUN = 4
_WORD = re.compile(r"[\w'%-]+")


def words(text: str) -> list[str]:
    return [w.casefold().strip("'-") for w in _WORD.findall(text) if w.strip("'-")]


def entity_words() -> set[str]:
    """Words of the demo workspace's names: clients, brands, people, rooms."""
    names = [c["name"] for c in demo_data.CLIENTS]
    names += [b["name"] for b in demo_data.BRANDS] + [m["name"] for m in demo_data.TEAM]
    names += [r["room_type"] for r in hotel_data.ROOMS]
    return {w for name in names for w in words(name)}


def runs(sentence: str, known: set[str]) -> list[tuple[str, ...]]:
    """The sentence's runs of RUN words that hold no entity name.

    An entity is a workspace name, a capitalized word past the first, or a word with a
    digit or underscore (dates, amounts, marketplaces).
    """
    found: list[tuple[str, ...]] = []
    segment: list[str] = []
    raw = [w for w in _WORD.findall(sentence) if w.strip("'-")]
    for index, word in enumerate(raw):
        lowered = word.casefold().strip("'-")
        entity = (
            lowered in known
            or (index > 0 and word[:1].isupper())
            or any(c.isdigit() or c == "_" for c in word)
        )
        if entity:
            segment = []
            continue
        segment.append(lowered)
        if len(segment) >= RUN:
            found.append(tuple(segment[-RUN:]))
    return found


def corpus_texts() -> Iterable[tuple[str, str]]:
    """(where, text) for everything the held-out asks must not be copied into."""
    for tool in default_registry().tools():
        for ask in tool.asks:
            yield f"{tool.name} asks", ask
        yield f"{tool.name} description", tool.description
        yield f"{tool.name} arguments", str(tool.args_schema.model_json_schema())
    for folder in (ROOT / "prompts", LOCAL_MODEL_CODE):
        for path in sorted(folder.rglob("*")):
            if path.suffix in {".md", ".py", ".txt", ".yaml"} and path.is_file():
                yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")


def ngrams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


@pytest.fixture(scope="module")
def corpus() -> list[tuple[str, list[str]]]:
    return [(where, words(text)) for where, text in corpus_texts()]


def test_the_sets_are_big_enough_and_the_held_out_set_covers_every_kind() -> None:
    held_out = load("held_out")
    kinds = [ask.kind for ask in held_out]
    assert len(held_out) >= 60
    assert kinds.count("small_talk") >= 10
    assert kinds.count("follow_up") >= 10
    assert kinds.count("ask_to_know") >= 10
    offered = {t.name for t in default_registry().tools()} - {"load_prior_skill_result"}
    for name in offered:
        phrasings = [a for a in held_out if a.kind == "tool" and a.tools[:1] == (name,)]
        assert len(phrasings) >= 3, f"{name} has {len(phrasings)} held-out phrasings"
    assert len(load("tuning")) >= 30


def test_no_held_out_sentence_or_run_of_four_words_is_copied(
    corpus: list[tuple[str, list[str]]],
) -> None:
    known = entity_words()
    indexed = [(where, ngrams(tokens, RUN)) for where, tokens in corpus]
    copies = []
    for ask in load("held_out"):
        for run in runs(ask.text, known):
            copies += [
                f"{ask.text!r}: {' '.join(run)!r} in {w}" for w, grams in indexed if run in grams
            ]
        whole = tuple(words(ask.text))
        if len(whole) < RUN:
            copies += [
                f"{ask.text!r} in {where}"
                for where, tokens in corpus
                if whole in ngrams(tokens, len(whole))
            ]
    assert not copies, "held-out asks copied:\n" + "\n".join(copies)


def test_no_tool_example_is_a_benchmark_sentence() -> None:
    sentences = {" ".join(words(a.text)) for name in ("tuning", "held_out") for a in load(name)}
    copied = [
        f"{tool.name}: {ask!r}"
        for tool in default_registry().tools()
        for ask in tool.asks
        if " ".join(words(ask)) in sentences
    ]
    assert not copied, "tool examples that are benchmark sentences:\n" + "\n".join(copied)


def test_the_check_finds_a_copied_run() -> None:
    known = entity_words()
    assert ("fill", "in", "all", "the") in runs("fill in all the missing brand mappings", known)
    assert runs("who owns Thorinox Peelers now?", known) == []
