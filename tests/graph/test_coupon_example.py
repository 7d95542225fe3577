"""AgencyClaw's example: "create a coupon code for Garlic Press for Thorinox"."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from graph.runner import TurnRequest
from tools.registry import default_registry

MESSAGE = "create a coupon code for Garlic Press for Thorinox"


async def test_one_wave_grounds_the_request_then_create_task_is_proposed(
    open_runner, write_script, workspace_url
) -> None:
    spec = write_script(
        [
            {
                "tool_calls": [
                    {
                        "name": "resolve_brand",
                        "args": {"brand": "Garlic Press", "client": "Thorinox"},
                    },
                    {"name": "search_kb", "args": {"query": "coupon code", "kind": "sop"}},
                ]
            },
            {
                "tool_calls": [
                    {
                        "name": "create_task",
                        "args": {
                            "client": "Thorinox",
                            "brand": "Garlic Press",
                            "title": "Create a coupon code for Garlic Press",
                        },
                    }
                ]
            },
            {"content": "I drafted the task; which ASINs should the coupon cover?"},
        ]
    )
    events: list[dict] = []
    async with open_runner(default_registry(), model=spec, database_url=workspace_url) as runner:
        result = await runner.run_turn(
            TurnRequest(thread_id="coupon", user_id="U0GRACE", message=MESSAGE),
            on_event=events.append,
        )
        history = await runner.history("coupon")
        approved = await runner.resume(
            TurnRequest(thread_id="coupon", user_id="U0GRACE", message=""), {"decision": "approve"}
        )
    brand, kb, task = result.tool_calls
    # The first wave ran both lookups together and they returned the grounding.
    first_wave = next(m for m in history if isinstance(m, AIMessage) and m.tool_calls)
    assert [c["name"] for c in first_wave.tool_calls] == ["resolve_brand", "search_kb"]
    assert brand.status == "ok" and brand.result["status"] == "found"
    assert brand.result["client"]["name"] == "Thorinox"
    assert brand.result["destination"]["mapped"] is True
    assert kb.status == "ok"
    assert kb.result["results"][0]["title"] == "Coupon code setup SOP"
    # The model's next step proposes create_task; it is a mutation, so it waits for approval.
    assert task.name == "create_task" and task.status == "pending_confirmation"
    assert result.status == "needs_confirmation"
    assert "Create a coupon code for Garlic Press" in result.text
    assert [e["state"] for e in events if e["type"] == "agent_state"][-1] == "waiting_on_user"
    # Approved, the task is drafted from the SOP and the model asks for the missing ASINs.
    assert approved.status == "completed"
    [*_, created] = approved.tool_calls
    assert created.status == "ok" and created.result["status"] == "created"
    assert created.result["draft"]["sop"]["title"] == "Coupon code setup SOP"
    assert approved.text == "I drafted the task; which ASINs should the coupon cover?"


async def test_a_viewer_is_refused_a_mutation_whatever_the_model_asks(
    open_runner, write_script, workspace_url
) -> None:
    spec = write_script(
        [
            {"tool_calls": [{"name": "create_brand", "args": {"client": "Distex", "name": "X"}}]},
            {"content": "You don't have permission to create brands."},
        ]
    )
    async with open_runner(default_registry(), model=spec, database_url=workspace_url) as runner:
        result = await runner.run_turn(
            TurnRequest(thread_id="v", user_id="U0MAYA", user_role="viewer", message="add brand X")
        )
    [call] = result.tool_calls
    assert call.status == "refused"
    assert "role 'viewer' may not use create_brand" in call.result
