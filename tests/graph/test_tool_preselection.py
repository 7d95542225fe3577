"""Tool preselection through the graph: what each model call is offered, and the audit of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import select

from core.db.models import AgentRun
from graph.runner import TurnRequest
from tools.declaration import Tool, ToolContext, declare
from tools.registry import ToolRegistry, default_registry

HOLIDAY_CALL = {"tool_calls": [{"name": "resolve_holiday", "args": {"holiday_name": "Hanukkah"}}]}
ANSWER = {"content": "Hanukkah starts at sundown on 2026-12-04."}


class FillerArgs(BaseModel):
    """Arguments of a filler tool."""

    region: str = ""


def filler_tools(count: int) -> list[Tool]:
    """Tools about other things (warehouse reports), each with its own name and asks."""
    tools = []
    for number in range(count):

        async def report(args: FillerArgs, ctx: ToolContext) -> dict[str, Any]:
            return {"rows": []}

        report.__name__ = f"warehouse_report_{number}"
        report.__doc__ = f"Report stock levels of warehouse {number} by shelf and pallet."
        tools.append(
            declare(
                pack="filler",
                kind="read_only",
                # "year" is in every filler's asks: the query matches all 200 tools.
                asks=[f"stock levels this year in warehouse {number}", "pallet counts by shelf"],
            )(report)
        )
    return tools


def offered(transcript: Path) -> list[list[str]]:
    """The tools each model call was bound with, in order."""
    lines = transcript.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["tools"] for line in lines]


async def test_a_large_registry_offers_the_budget_with_the_right_tool_first(
    open_runner, write_script, tmp_path: Path
) -> None:
    registry = ToolRegistry([*default_registry().tools(), *filler_tools(179)])
    assert len(registry) == 200
    transcript = tmp_path / "requests.jsonl"
    spec = write_script([HOLIDAY_CALL, ANSWER])
    async with open_runner(registry, model=spec, scripted_transcript=transcript) as runner:
        result = await runner.run_turn(
            TurnRequest("t1", "U1", "When is Hanukkah this year?", today="2026-11-24")
        )
    assert result.status == "completed" and result.tool_calls[0].name == "resolve_holiday"
    first, second = offered(transcript)
    assert len(first) == 32 and first[0] == "resolve_holiday"
    assert sum(name.startswith("warehouse_report") for name in first) >= 30
    # The tool the turn called stays offered, first, on the next call.
    assert second[0] == "resolve_holiday" and len(second) == 32


@pytest.mark.filterwarnings("error::RuntimeWarning")
async def test_an_empty_registry_offers_no_tools(open_runner, write_script, tmp_path: Path) -> None:
    """An empty registry is one given, not a missing one (the default's 21 tools)."""
    transcript = tmp_path / "requests.jsonl"
    async with open_runner(
        ToolRegistry(), model=write_script([ANSWER]), scripted_transcript=transcript
    ) as runner:
        assert runner.registry.names() == []
        result = await runner.run_turn(TurnRequest("t1", "U1", "thanks!"))
    assert result.status == "completed"
    assert offered(transcript) == [[]]


async def test_a_small_registry_offers_every_tool(
    open_runner, write_script, tmp_path: Path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    spec = write_script([ANSWER])
    async with open_runner(
        default_registry(), model=spec, scripted_transcript=transcript
    ) as runner:
        await runner.run_turn(TurnRequest("t1", "U1", "thanks!"))
    [tools] = offered(transcript)
    assert sorted(tools) == default_registry().names()


def on_budget_three(open_runner: Any, spec: Path, transcript: Path, database_url: str) -> Any:
    """A runner over the whole registry whose model is offered at most three tools a call."""
    return open_runner(
        default_registry(),
        model=spec,
        scripted_transcript=transcript,
        tool_budget=3,
        database_url=database_url,
    )


async def offers_of_two_turns(
    open_runner: Any, spec: Path, transcript: Path, database_url: str, first: str, then: str
) -> list[list[str]]:
    """The tools each model call was offered over two turns in one thread, on budget three."""
    async with on_budget_three(open_runner, spec, transcript, database_url) as runner:
        await runner.run_turn(TurnRequest("t1", "U1", first, today="2026-11-24"))
        await runner.run_turn(TurnRequest("t1", "U1", then, today="2026-11-24"))
    return offered(transcript)


def assert_date_reader_and_lookup_first(offer: list[str], expected: list[str] | None) -> None:
    """The offer opens with `expected`; with None, not with the date reader and room search."""
    if expected is None:
        assert offer[:2] != ["resolve_date_hint", "get_availability"]
    else:
        assert offer[:2] == expected


async def test_a_small_budget_offers_only_matching_tools_and_keeps_the_called_one(
    open_runner, write_script, tmp_path: Path, workspace, workspace_url
) -> None:
    transcript = tmp_path / "requests.jsonl"
    spec = write_script([HOLIDAY_CALL, ANSWER, ANSWER])
    async with on_budget_three(open_runner, spec, transcript, workspace_url) as runner:
        await runner.run_turn(
            TurnRequest("t1", "U1", "When is Hanukkah this year?", today="2026-11-24")
        )
        await runner.run_turn(TurnRequest("t2", "U1", "thanks!"))
    first, second, small_talk = offered(transcript)
    assert first[0] == "resolve_holiday" and len(first) <= 3
    assert second[0] == "resolve_holiday"
    assert small_talk == []  # nothing matches: the model is offered no stranger to call
    # The audit answers "why didn't it call X": each call's offered tools are on the run row.
    async with workspace.session() as session:
        [run] = await session.scalars(select(AgentRun).where(AgentRun.thread_id == "t1"))
    act_calls = [call for call in run.usage if call["node"] == "act"]
    assert [call["tools"] for call in act_calls] == [first, second]


class ReportArgs(BaseModel):
    """Arguments of big_report."""

    rows: int


@declare(pack="test", kind="read_only")
async def big_report(args: ReportArgs, ctx: ToolContext) -> dict[str, Any]:
    """A big report with many rows."""
    return {"rows": [{"sku": f"SKU-{i}", "units": i} for i in range(args.rows)]}


async def test_the_result_loader_is_offered_last_and_only_beside_a_stored_result(
    open_runner, write_script, tmp_path: Path, workspace_url
) -> None:
    transcript = tmp_path / "requests.jsonl"
    report = {"tool_calls": [{"name": "big_report", "args": {"rows": 400}}]}
    spec = write_script(
        [report, {"content": "400 rows."}, HOLIDAY_CALL, ANSWER, HOLIDAY_CALL, ANSWER]
    )
    registry = ToolRegistry([*default_registry().tools(), big_report])
    async with open_runner(
        registry,
        model=spec,
        scripted_transcript=transcript,
        tool_budget=3,
        database_url=workspace_url,
    ) as runner:
        stored = await runner.run_turn(TurnRequest("t1", "U1", "the big report please"))
        ask = "When is Hanukkah this year?"
        await runner.run_turn(TurnRequest("t1", "U1", ask, today="2026-11-24"))
        await runner.run_turn(TurnRequest("t2", "U1", ask, today="2026-11-24"))
    assert "result_id" in (stored.tool_calls[0].result or {})
    _, summarized, holiday, _, elsewhere, _ = offered(transcript)
    # The turn that holds the result_id may load it in full: the loader is offered last.
    assert summarized[0] == "big_report" and summarized[-1] == "load_prior_skill_result"
    # A later ask is offered its own tool first, the loader still last.
    assert holiday[0] == "resolve_holiday" and holiday[-1] == "load_prior_skill_result"
    assert "load_prior_skill_result" not in elsewhere  # no stored result in this thread
