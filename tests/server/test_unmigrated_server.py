"""A server whose workspace `agentloop db upgrade` never ran on (or is missing a table): a
change is refused once, with the way to set it up, never an internal error (langgraph-sdk
against `langgraph dev`, SQLite and PostgreSQL)."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from core.db.engine import sync_url
from core.settings import Settings
from prompts import confirmation
from tests.server.dev_server import DevServer, create_task
from tools.pack_data import upgrade_workspace

TOLD = {"content": "The workspace is not set up yet: run agentloop db upgrade first."}
GRACE = {"user_id": "U0GRACE", "user_role": "member"}


async def test_a_change_on_an_unmigrated_server_is_refused_with_the_upgrade_hint(
    unmigrated_server: DevServer, write_script
) -> None:
    client = unmigrated_server.client()
    # Never migrated: nothing can be recorded, so nothing is proposed; the model is told.
    thread = await client.threads.create()
    out = await client.runs.wait(
        thread["thread_id"],
        "agent",
        input={"messages": [{"type": "human", "content": "make the task"}]},
        context={"model": write_script([create_task("Unmigrated"), TOLD]), **GRACE},
    )
    assert "__error__" not in out, out
    [result] = [m for m in out["messages"] if m["type"] == "tool"]
    assert result["content"] == f"error: {confirmation.workspace_not_migrated()}"
    state = await client.threads.get_state(thread["thread_id"])
    assert state["interrupts"] == [] and state["values"]["status"] == "completed"

    # Migrated since, but the decisions' table is gone when the change is approved.
    settings = Settings(_env_file=None, database_url=unmigrated_server.workspace_url)
    upgrade_workspace(settings)
    thread = await client.threads.create()
    await client.runs.wait(
        thread["thread_id"],
        "agent",
        input={"messages": [{"type": "human", "content": "make the task"}]},
        context={"model": write_script([create_task("Unmigrated")]), **GRACE},
    )
    [interrupt] = (await client.threads.get_state(thread["thread_id"]))["interrupts"]
    engine = create_engine(sync_url(settings))
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE confirmation_records"))
    engine.dispose()
    out = await client.runs.wait(
        thread["thread_id"],
        "agent",
        command={"resume": {interrupt["id"]: {"decision": "approve"}}},
        context=GRACE,
    )
    assert "__error__" not in out, out
    [refused] = (await client.threads.get_state(thread["thread_id"]))["interrupts"]
    assert refused["value"]["error"] == confirmation.workspace_not_migrated()
