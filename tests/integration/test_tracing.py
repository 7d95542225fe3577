"""Langfuse tracing through the real SDK, exported over OTLP/HTTP to a receiver on loopback."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from core.models import ModelResolver
from core.observability.masking import MASK
from core.observability.tracing import trace_id_for
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from tests.support.cli import agentloop, ask_json
from tests.support.openai_stub import OpenAIStub, ToolCall, text, tools
from tests.support.otlp_receiver import OtlpReceiver, ReceivedSpan, tracing_to
from tools.calendar import dates as calendar
from tools.registry import ToolRegistry

PHASES = ["phase-guard", "phase-gather", "phase-act", "phase-tools", "phase-verify"]
SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz123456"


def one(receiver: OtlpReceiver, name: str) -> ReceivedSpan:
    [span] = receiver.named(name)
    return span


async def test_a_turn_is_one_trace_with_a_span_per_phase(
    receiver: OtlpReceiver, make_settings: Callable[..., Settings]
) -> None:
    call = ToolCall("resolve_holiday", json.dumps({"holiday_name": "christmas"}))
    async with OpenAIStub(tools(call), text("Christmas is on 2025-12-25.")) as stub:
        settings = make_settings(
            model="openai:gpt-4o-mini", openai_base_url=stub.base_url, model_max_retries=0
        )
        registry = ToolRegistry([calendar.resolve_holiday])
        tracing = tracing_to(receiver.base_url, mask_fields="holiday_name")
        async with Runner.open(settings, registry, ModelResolver(settings), tracing) as runner:
            request = TurnRequest(
                thread_id="t-trace",
                user_id="U0GRACE",
                message=f"When is Christmas? my key is {SECRET}",
                today="2025-06-01",
            )
            result = await runner.run_turn(request)
    assert result.status == "completed"

    root = one(receiver, "agent-turn")
    trace_id = trace_id_for(result.run_id)
    assert {span.trace_id for span in receiver.spans} == {trace_id}
    assert root.attributes["session.id"] == "t-trace"
    assert root.attributes["user.id"] == "U0GRACE"
    assert root.json_attr("langfuse.observation.output")["final_text"] == result.text

    for name in [*PHASES, "phase-finalize"]:
        assert {s.parent_span_id for s in receiver.named(name)} == {root.span_id}, name
    assert len(receiver.named("phase-act")) == 2
    gather = one(receiver, "phase-gather")
    assert gather.json_attr("langfuse.observation.input")["user_input"].startswith("When is")
    verify = one(receiver, "phase-verify")
    assert verify.json_attr("langfuse.observation.input")["draft_chars"] == len(result.text)
    # the draft passed on its first attempt: verify writes nothing (no feedback to clear)
    assert verify.json_attr("langfuse.observation.output") == {}

    tools_span = one(receiver, "phase-tools")
    tool = one(receiver, "tool-resolve_holiday")
    assert tool.parent_span_id == tools_span.span_id
    assert tool.attributes["langfuse.observation.type"] == "tool"
    assert tool.json_attr("langfuse.observation.output")["start"] == "2025-12-25"
    assert tool.json_attr("langfuse.observation.input") == {"holiday_name": MASK}
    assert tools_span.start_ns <= tool.start_ns <= tool.end_ns <= tools_span.end_ns

    acts = {s.span_id for s in receiver.named("phase-act")}
    generations = [
        s for s in receiver.spans if s.attributes.get("langfuse.observation.type") == "generation"
    ]
    assert len(generations) == 2 and {g.parent_span_id for g in generations} == acts
    for generation in generations:
        usage = generation.json_attr("langfuse.observation.usage_details")
        assert usage["input"] == 11 and usage["output"] == 7
        assert generation.attributes["langfuse.observation.model.name"] == "gpt-4o-mini"

    everything = json.dumps([s.attributes for s in receiver.spans])
    assert SECRET not in everything and MASK in everything
    assert not [s for s in receiver.spans if s.name.startswith("route_")]


def test_a_confirmation_resumed_in_a_new_process_joins_the_trace(
    receiver: OtlpReceiver, workspace_url: str, tmp_path: Path, write_script
) -> None:
    env = {
        "DATABASE_URL": workspace_url,
        "AGENTLOOP_DATA_DIR": str(tmp_path / "data"),
        "LANGFUSE_PUBLIC_KEY": f"pk-lf-{uuid.uuid4().hex}",
        "LANGFUSE_SECRET_KEY": "sk-lf-test",
        "LANGFUSE_BASE_URL": receiver.base_url,
    }
    upgrade = agentloop("db", "upgrade", env=env)
    assert upgrade.returncode == 0, upgrade.stderr
    create = {
        "tool_calls": [
            {
                "name": "create_task",
                "args": {"client": "Thorinox", "brand": "Garlic Press", "title": "Refresh images"},
            }
        ]
    }
    model = write_script([create])
    asked = ask_json(
        "make the task", "--thread", "t-res", "--user", "U0GRACE", "--model", model, env=env
    )
    assert asked["status"] == "needs_confirmation", asked
    resume_env = {**env, "AGENTLOOP_MODEL": write_script([{"content": "Done: created."}])}
    proc = agentloop(
        "resume", "--thread", "t-res", "--approve", "--user", "U0GRACE", "--json", env=resume_env
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["run_id"] == asked["run_id"]

    trace_id = trace_id_for(asked["run_id"])
    turn, resumed = one(receiver, "agent-turn"), one(receiver, "agent-resume")
    assert turn.trace_id == resumed.trace_id == trace_id
    assert resumed.attributes["session.id"] == "t-res"
    assert resumed.attributes["user.id"] == "U0GRACE"
    by_parent = {
        root.span_id: {s.name for s in receiver.spans if s.parent_span_id == root.span_id}
        for root in (turn, resumed)
    }
    assert {"phase-guard", "phase-gather", "phase-act", "phase-confirm"} <= by_parent[turn.span_id]
    assert "phase-tools" not in by_parent[turn.span_id]
    assert {"phase-confirm", "phase-tools", "phase-act", "phase-verify"} <= by_parent[
        resumed.span_id
    ]
    tool = one(receiver, "tool-create_task")
    assert tool.trace_id == trace_id
    assert json.loads(tool.attributes["langfuse.observation.output"])
    assert {s.trace_id for s in receiver.spans} == {trace_id}


async def test_traced_text_is_not_scanned_for_media(
    receiver: OtlpReceiver,
    make_settings: Callable[..., Settings],
    write_script,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The SDK would turn a message that is a base64 data URI into a media reference and
    # upload it; the agent traces text, so by default it is kept as written, unsent.
    monkeypatch.delenv("LANGFUSE_MEDIA_UPLOAD_ENABLED", raising=False)
    uri = "data:image/png;base64,iVBORw0KGgoAAQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYn"
    settings = make_settings(model=write_script([{"content": "Noted."}]))
    async with Runner.open(settings, tracing=tracing_to(receiver.base_url)) as runner:
        result = await runner.run_turn(TurnRequest("t-media", "U1", uri))
    assert result.status == "completed"
    gather = one(receiver, "phase-gather")
    assert gather.json_attr("langfuse.observation.input")["user_input"] == uri
    assert "langfuseMedia" not in json.dumps([s.attributes for s in receiver.spans])


async def test_spans_carry_the_times_the_agent_ran_them(
    receiver: OtlpReceiver, make_settings: Callable[..., Settings], write_script
) -> None:
    settings = make_settings(model=write_script([{"content": "One."}]))
    tracing = tracing_to(receiver.base_url)
    async with Runner.open(settings, tracing=tracing) as runner:
        started = time.time_ns()
        result = await runner.run_turn(TurnRequest("t-clock", "U1", "first"))
        finished = time.time_ns()
    spans = [s for s in receiver.spans if s.trace_id == trace_id_for(result.run_id)]
    assert {"agent-turn", "phase-act", "phase-finalize"} <= {s.name for s in spans}
    for span in spans:
        assert started <= span.start_ns <= span.end_ns <= finished, span.name
    # Every span names the thread and the asker, not only the root.
    assert {(s.attributes.get("session.id"), s.attributes.get("user.id")) for s in spans} == {
        ("t-clock", "U1")
    }


@pytest.mark.parametrize("workspace_url", ["sqlite"], indirect=True)
async def test_planted_secrets_reach_no_span(
    receiver: OtlpReceiver, make_settings: Callable[..., Settings], workspace_url: str
) -> None:
    from tools.agency import mutations

    key = "sk-live-abcdefghijklmnopqrstuvwxyz0123"
    details = f"rotate the feed; the API key is {key}, password=hunter2"
    call = ToolCall(
        "create_task",
        json.dumps({"client": "Thorinox", "title": "Rotate feed credentials", "details": details}),
    )
    async with OpenAIStub(tools(call)) as stub:
        settings = make_settings(
            model="openai:gpt-4o-mini",
            openai_base_url=stub.base_url,
            model_max_retries=0,
            database_url=workspace_url,
        )
        registry = ToolRegistry(mutations.TOOLS)
        tracing = tracing_to(receiver.base_url)
        async with Runner.open(settings, registry, ModelResolver(settings), tracing) as runner:
            request = TurnRequest(
                "t-secrets", "U0GRACE", f"Create that task. my password=hunter2 token: {key}"
            )
            result = await runner.run_turn(request)
    assert result.status == "needs_confirmation"

    confirm = one(receiver, "phase-confirm")
    assert "paused" in str(confirm.attributes.get("langfuse.observation.status_message"))
    everything = json.dumps([s.attributes for s in receiver.spans])
    assert key not in everything and "hunter2" not in everything
    assert "Rotate feed credentials" in everything  # the rest of the call is still traced


@pytest.mark.parametrize("workspace_url", ["sqlite"], indirect=True)
async def test_the_planners_nodes_nest_under_its_phase(
    receiver: OtlpReceiver,
    make_settings: Callable[..., Settings],
    write_script,
    workspace_url: str,
) -> None:
    from tools.registry import default_registry

    plan = {
        "tool_calls": [
            {"name": "create_plan", "id": "call_plan", "args": {"objective": "Check Garlic Press"}}
        ]
    }
    draft = {"content": json.dumps({"steps": ["Check Garlic Press's brand mapping"]})}
    look = {
        "tool_calls": [
            {"name": "resolve_brand", "id": "call_look", "args": {"brand": "Garlic Press"}}
        ]
    }
    replies = [plan, draft, look, {"content": "Thorinox owns it."}, {"content": "Thorinox."}]
    settings = make_settings(model=write_script(replies), database_url=workspace_url)
    tracing = tracing_to(receiver.base_url)
    async with Runner.open(settings, default_registry(), ModelResolver(settings), tracing) as r:
        result = await r.run_turn(TurnRequest("t-plan", "U0GRACE", "check Garlic Press"))
    assert result.status == "completed", result.text
    by_id = {s.span_id: s for s in receiver.spans}

    def path(span: ReceivedSpan) -> list[str]:
        names = [span.name]
        while span.parent_span_id in by_id:
            span = by_id[span.parent_span_id]
            names.append(span.name)
        return names[::-1]

    paths = {tuple(path(s)) for s in receiver.spans}
    planner = ("agent-turn", "phase-planner")
    for node in ("start", "draft", "step", "tools", "finish"):
        assert (*planner, node) in paths, node
    assert (*planner, "draft", "ScriptedChatModel") in paths
    assert (*planner, "tools", "tool-resolve_brand") in paths
