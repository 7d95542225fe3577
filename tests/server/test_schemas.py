"""What Studio draws its forms from: the schemas `langgraph dev` returns for both graphs."""

from __future__ import annotations

from typing import Any

from langgraph_sdk import get_client

from core.run_context import CONTEXT_TYPES, ROLES
from tests.server.dev_server import DevServer

CALLER_FIELDS = {"user_id", "user_role", "channel", "context_type", "model", "today"}
INTERNAL_FIELDS = {
    "run_id",
    "deadline",
    "approver_roles",
    "max_tool_calls",
    "max_rounds",
    "turn_timeout_s",
    "tool_timeout_s",
    "verify_max_attempts",
    "tool_budget",
    "confirmation_ttl_s",
    "input_guard",
    "context_dir",
    "context_block_tokens",
    "history_turns",
    "context_window",
    "compaction_model",
    "verify_judge",
    "timezone",
}


async def schemas_of(server: DevServer, graph_id: str) -> dict[str, Any]:
    client = get_client(url=server.url)
    [assistant] = await client.assistants.search(
        graph_id=graph_id, metadata={"created_by": "system"}
    )
    return dict(await client.assistants.get_schemas(assistant["assistant_id"]))


def message_kinds(prop: dict[str, Any]) -> set[str]:
    """The message classes a `messages` property accepts."""
    assert prop["type"] == "array"
    return {ref["$ref"].rsplit("/", 1)[-1] for ref in prop["items"]["oneOf"]}


async def test_the_agent_takes_a_message_and_gives_the_answer(dev_server: DevServer) -> None:
    schemas = await schemas_of(dev_server, "agent")

    inputs = schemas["input_schema"]
    assert inputs is not None, "the server could not build the input schema"
    assert set(inputs["properties"]) == {"messages"} and inputs["required"] == ["messages"]
    assert {"HumanMessage", "AIMessage"} <= message_kinds(inputs["properties"]["messages"])

    outputs = schemas["output_schema"]
    assert outputs is not None, "the server could not build the output schema"
    assert set(outputs["properties"]) == {
        "messages",
        "final_text",
        "status",
        "run_id",
        "turn_start_id",
    }
    assert outputs["properties"]["status"]["enum"] == [
        "running",
        "completed",
        "capped",
        "unavailable",
        "failed_verification",
        "blocked",
    ]
    assert all(p.get("description") for p in outputs["properties"].values())


async def test_the_context_form_holds_only_the_callers_fields(dev_server: DevServer) -> None:
    for graph_id in ("agent", "planner"):
        context = (await schemas_of(dev_server, graph_id))["context_schema"]
        fields = context["properties"]
        assert set(fields) == CALLER_FIELDS, graph_id
        assert not INTERNAL_FIELDS & set(fields)
        assert fields["user_role"]["enum"] == list(ROLES)
        assert fields["context_type"]["enum"] == list(CONTEXT_TYPES)
        assert all(field.get("description") for field in fields.values()), graph_id
        defaults = {name: field["default"] for name, field in fields.items()}
        assert defaults == {
            "user_id": "local-user",
            "user_role": "member",
            "channel": "cli",
            "context_type": "general",
            "model": None,
            "today": None,
        }


async def test_the_planner_schemas_are_served(dev_server: DevServer) -> None:
    schemas = await schemas_of(dev_server, "planner")
    inputs, outputs = schemas["input_schema"], schemas["output_schema"]
    assert inputs is not None and outputs is not None
    # Studio's input form holds what a person sends (as the agent's does), not the state.
    assert set(inputs["properties"]) == {"messages"} and inputs["required"] == ["messages"]
    assert inputs["properties"]["messages"].get("description")
    assert set(outputs["properties"]) == {"messages", "plans"}
    assert {"HumanMessage", "AIMessage"} <= message_kinds(inputs["properties"]["messages"])
    # A stored plan's record (a TypedDict inside the state) is part of the schema too.
    plan = outputs["$defs"]["PlanRecord"]
    assert plan["properties"]["execution_mode"]["enum"] == [
        "auto_execute",
        "draft_only",
        "agent_review",
    ]
