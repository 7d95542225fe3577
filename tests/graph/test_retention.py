"""Large results stay compact in the conversation and come back whole on demand."""

from __future__ import annotations

import json

from langchain_core.messages import ToolMessage
from pydantic import BaseModel

from graph.runner import TurnRequest
from tools import meta
from tools.declaration import ToolContext, declare
from tools.registry import ToolRegistry


class ReportArgs(BaseModel):
    rows: int


@declare(pack="test", kind="read_only")
async def big_report(args: ReportArgs, ctx: ToolContext) -> dict[str, object]:
    """A report with many rows."""
    return {"title": "Sales", "rows": [{"sku": f"SKU-{i}", "units": i} for i in range(args.rows)]}


async def test_large_result_is_summarized_and_rehydrated(open_runner, write_script, workspace_url):
    spec = write_script(
        [
            {"tool_calls": [{"name": "big_report", "args": {"rows": 400}}]},
            {"tool_calls": [{"name": "load_prior_skill_result", "args": {"result_id": 1}}]},
            {"content": "SKU-399 sold 399 units."},
        ]
    )
    registry = ToolRegistry([big_report, *meta.TOOLS])
    async with open_runner(registry, model=spec, database_url=workspace_url) as runner:
        result = await runner.run_turn(TurnRequest(thread_id="t-big", user_id="u", message="go"))
        history = await runner.history("t-big")
    assert result.status == "completed"
    summarized, rehydrated = [m for m in history if isinstance(m, ToolMessage)]
    kept = json.loads(summarized.text)
    assert kept["result_id"] == 1
    assert len(summarized.text) < 2_500
    assert kept["summary"]["rows"][-1] == "… 397 more (of 400)"
    full = json.loads(rehydrated.text)
    assert full["tool"] == "big_report" and len(full["result"]["rows"]) == 400


async def test_other_threads_cannot_load_a_result(open_runner, write_script, workspace_url):
    spec = write_script(
        [
            {"tool_calls": [{"name": "big_report", "args": {"rows": 400}}]},
            {"content": "Stored."},
            {"tool_calls": [{"name": "load_prior_skill_result", "args": {"result_id": 1}}]},
            {"content": "I can't see that result here."},
        ]
    )
    registry = ToolRegistry([big_report, *meta.TOOLS])
    async with open_runner(registry, model=spec, database_url=workspace_url) as runner:
        await runner.run_turn(TurnRequest(thread_id="owner", user_id="u", message="go"))
        other = await runner.run_turn(TurnRequest(thread_id="other", user_id="u", message="go"))
    assert other.tool_calls[0].status == "error"
    assert "no stored result 1 in this conversation" in other.tool_calls[0].result


async def test_small_results_are_left_alone(open_runner, write_script, workspace_url):
    spec = write_script(
        [{"tool_calls": [{"name": "big_report", "args": {"rows": 3}}]}, {"content": "Three rows."}]
    )
    async with open_runner(
        ToolRegistry([big_report]), model=spec, database_url=workspace_url
    ) as runner:
        result = await runner.run_turn(TurnRequest(thread_id="t", user_id="u", message="go"))
    assert len(result.tool_calls[0].result["rows"]) == 3
