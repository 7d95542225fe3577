"""The scripted model replays its file in order and fails loudly past its end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from core.models import ModelConfigError, ModelResolver, build_chat_model
from core.models.scripted import ScriptedChatModel, ScriptExhaustedError
from core.settings import Settings


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(data))
    return path


async def test_replays_in_order_and_records(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        [
            {"tool_calls": [{"name": "f", "args": {"x": 1}}]},
            {"content": "done", "tool_calls": [{"name": "g", "args": '{"y": 2}'}]},
        ],
    )
    transcript = tmp_path / "t.jsonl"
    model = ScriptedChatModel.from_file(path, transcript=transcript)
    bound = model.bind_tools([{"type": "function", "function": {"name": "f"}}])
    first = await bound.ainvoke([HumanMessage("a")])
    assert first.tool_calls[0]["name"] == "f" and first.tool_calls[0]["args"] == {"x": 1}
    assert first.tool_calls[0]["id"]
    second = await bound.ainvoke([HumanMessage("b")])
    assert second.content == "done" and second.tool_calls[0]["args"] == {"y": 2}
    assert model.unused() == 0
    with pytest.raises(ScriptExhaustedError, match="has 2 turn\\(s\\) but was called a 3rd time"):
        await bound.ainvoke([HumanMessage("c")])
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert [entry["tools"] for entry in lines] == [["f"], ["f"], ["f"]]
    assert lines[1]["messages"][0]["data"]["content"] == "b"


async def test_malformed_args_become_invalid_tool_calls(tmp_path: Path) -> None:
    model = ScriptedChatModel.from_file(
        write(tmp_path, [{"tool_calls": [{"name": "f", "args": '{"x": '}]}])
    )
    message = await model.ainvoke([HumanMessage("a")])
    assert message.tool_calls == []
    [bad] = message.invalid_tool_calls
    assert bad["name"] == "f" and bad["args"] == '{"x": ' and "malformed JSON" in bad["error"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not valid JSON"),
        ('{"content": "x"}', "must hold a JSON list"),
        ('[{"text": "x"}]', "has an invalid turn"),
    ],
)
def test_bad_script_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ModelConfigError, match=message):
        build_chat_model(f"scripted:{path}", Settings(_env_file=None))


def test_model_specs(tmp_path: Path) -> None:
    settings = Settings(_env_file=None)
    with pytest.raises(ModelConfigError, match="needs a file"):
        build_chat_model("scripted:", settings)
    with pytest.raises(ModelConfigError, match="unknown model 'claude'"):
        build_chat_model("claude", settings)
    with pytest.raises(ModelConfigError, match="needs a model name"):
        build_chat_model("openai:", Settings(_env_file=None, openai_api_key="sk-test"))


def test_resolver_builds_each_spec_once(tmp_path: Path) -> None:
    path = write(tmp_path, [{"content": "x"}])
    resolver = ModelResolver(Settings(_env_file=None, model=f"scripted:{path}"))
    assert resolver.resolve(None) is resolver.resolve(f"scripted:{path}")
