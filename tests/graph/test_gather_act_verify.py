"""Gather → act → verify (Orion's acceptance criteria 1–5) on the real graph."""

from __future__ import annotations

import json
import logging
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.runtime import Runtime
from sqlalchemy import select

from core.db.models import TeamMember
from core.run_context import RunContext
from nodes.act import Act
from nodes.gather import Gather
from tests.graph.context_turns import requests, run
from tools.agency.models import Brand, Client
from tools.preselection import Offer
from tools.registry import ToolRegistry, default_registry

POLICY = (
    "# Coupon policy\n\nCoupons for Thorinox are capped at fifteen percent and need "
    "approval from the account lead before launch.\n"
)


@pytest.fixture
def context_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "context"
    folder.mkdir()
    (folder / "coupon-policy.md").write_text(POLICY, encoding="utf-8")
    (folder / "parking.md").write_text("# Parking\n\nVisitors park behind the hotel.\n")
    return folder


async def test_phases_run_in_order_grounded_in_thread_and_folder(
    open_runner, write_script, tmp_path: Path, context_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="nodes")
    transcript = tmp_path / "requests.jsonl"
    spec = write_script(
        [
            {"content": "Noted: the Thorinox spring promo starts in March."},
            # Uses the file without citing it: verify sends it back.
            {"content": "Thorinox coupons are capped at fifteen percent and need approval."},
            {
                "content": "Thorinox coupons are capped at fifteen percent and need approval "
                "from the account lead (source: coupon-policy.md)."
            },
        ]
    )
    async with open_runner(model=spec, scripted_transcript=transcript) as runner:
        await run(runner, "The Thorinox spring promo starts in March.", context_dir=context_dir)
        turn = await run(
            runner, "What coupon cap applies to the Thorinox promo?", context_dir=context_dir
        )
        config = {"configurable": {"thread_id": "t"}}
        steps = [
            sorted(task.name for task in snapshot.tasks)
            async for snapshot in runner.graph.aget_state_history(config)
        ]

    # 1. the loop runs guard ‖ gather (one step) → act → verify (and retries act after a
    # failed verify)
    phases = turn.phases()
    assert sorted(phases[:2]) == ["gather", "guard"]
    assert phases[2:] == ["act", "verify", "act", "verify", "finalize"]
    # guard and gather share a step (one checkpoint before both), in each turn
    assert steps.count(["gather", "guard"]) == 2
    assert ["guard"] not in steps and ["gather"] not in steps
    # 2. gather searched the thread history and the context folder
    sources = turn.update_of("gather")["sources"]
    assert {"type": "file", "reference": "coupon-policy.md"}.items() <= sources[0].items()
    assert "parking.md" not in [s["reference"] for s in sources]
    thread = [s for s in sources if s["type"] == "thread"]
    assert thread and "2 earlier messages, 2 on this topic" in thread[0]["excerpt"]
    # 3. act answered with the gathered context in its prompt
    first_try = requests(transcript)[1]
    assert isinstance(first_try[0], SystemMessage)
    assert "capped at fifteen percent" in first_try[0].text
    assert "coupon-policy.md" in first_try[0].text
    # 4. verify checked the answer: the uncited use was sent back, the cited one posted
    assert "without citing it" in requests(transcript)[2][0].text
    assert turn.state["final_text"].endswith("(source: coupon-policy.md).")
    # 5. each phase is observable: its task result streamed, and gather logged its sources
    results = [c for m, c in turn.chunks if m == "tasks" and "result" in c]
    assert all(c["error"] is None for c in results)
    assert any("gather: " in r.getMessage() and "file" in r.getMessage() for r in caplog.records)


async def test_gather_searches_the_workspace(workspace) -> None:
    gather = Gather(default_registry(), workspace)
    state = {
        "messages": [HumanMessage("Set up a coupon for Garlic Press at Thorinox", id="m1")],
        "turn_start_id": "m1",
    }
    update = await gather(state, Runtime(context=RunContext()))  # type: ignore[arg-type]
    types = [s["type"] for s in update["sources"]]
    references = [s["reference"] for s in update["sources"]]
    assert "Thorinox" in references
    assert any(r.startswith("Garlic Press (") for r in references)
    assert "memory" in types and "kb" in types
    assert "Coupon code setup SOP" in references
    assert "Coupon code setup SOP" in update["context_block"]


async def test_gather_finds_a_task_named_by_its_whole_title(workspace) -> None:
    state = {
        "messages": [HumanMessage("who has the q1 ppc budget review?", id="m1")],
        "turn_start_id": "m1",
    }
    update = await Gather(default_registry(), workspace)(state, Runtime(context=RunContext()))  # type: ignore[arg-type]
    tasks = [s for s in update["sources"] if s["type"] == "task"]
    assert [s["reference"] for s in tasks] == ["Q1 PPC budget review"]
    assert "in_progress, assigned to Linus Park, due 2026-12-15" in tasks[0]["excerpt"]
    # Words of a title are not a mention of it: only the whole title names the task.
    state["messages"] = [HumanMessage("any budget review due soon?", id="m1")]
    update = await Gather(default_registry(), workspace)(state, Runtime(context=RunContext()))  # type: ignore[arg-type]
    assert not [s for s in update["sources"] if s["type"] == "task"]


async def test_gather_finds_a_team_member_named_in_full_with_their_roles(workspace) -> None:
    state = {"messages": [HumanMessage("what is linus park on?", id="m1")], "turn_start_id": "m1"}
    update = await Gather(default_registry(), workspace)(state, Runtime(context=RunContext()))  # type: ignore[arg-type]
    people = [s for s in update["sources"] if s["type"] == "team_member"]
    assert [s["reference"] for s in people] == ["Linus Park"]
    assert people[0]["excerpt"].endswith(": ppc specialist on Thorinox")


async def gathered(workspace: Any, message: str, kind: str) -> list[str]:
    """The references of the `kind` sources gather finds for `message` alone."""
    state = {"messages": [HumanMessage(message, id="m1")], "turn_start_id": "m1"}
    update = await Gather(default_registry(), workspace)(state, Runtime(context=RunContext()))  # type: ignore[arg-type]
    return [s["reference"] for s in update["sources"] if s["type"] == kind]


async def test_gather_finds_a_team_member_by_a_first_name_no_one_else_has(workspace) -> None:
    async def named(message: str) -> list[str]:
        return await gathered(workspace, message, "team_member")

    assert await named("what's Omar working on?") == ["Omar Haddad"]
    assert await named("is there a grace period on Distex coupons?") == []  # written as a word
    # A message all in lower case says nothing by its case: a first name there is the person's
    # (so "grace period" in one would name Grace Hopper too).
    assert await named("what's maya got on right now?") == ["Maya Chen"]
    # Nor does one whose only capitals are abbreviations and its first letter.
    assert await named("ada moved off PPC duty in october") == ["Ada Lovelace"]
    assert await named("Does omar still draft each SOP diagram?") == ["Omar Haddad"]
    # Two people with one first name: it names neither.
    async with workspace.session() as session:
        session.add(TeamMember(name="Omar Reyes", name_key="omar reyes", email="or@example.com"))
        await session.commit()
    assert await named("what's Omar working on?") == []


async def test_gather_finds_a_brand_by_a_word_only_its_name_has(workspace) -> None:
    async def named(message: str) -> list[str]:
        return await gathered(workspace, message, "brand")

    assert await named("and the Peeler one?") == ["Thorinox Peelers (Thorinox)"]
    assert await named("who handles cutlery these days") == ["Thorinox Cutlery (Thorinox)"]
    # a word of two brands' names names neither by itself, nor does a word of a client's name
    async with workspace.session() as session:
        distex = (await session.execute(select(Client).where(Client.name == "Distex"))).scalar_one()
        session.add(Brand(client_id=distex.id, name="Distex Peelers", name_key="distex peelers"))
        session.add(Client(name="Cutlery Guild", name_key="cutlery guild"))
        await session.commit()
    assert await named("and the peelers?") == []
    assert await named("who handles cutlery these days") == []


async def test_gather_finds_the_records_of_the_ask_a_question_put_off(workspace) -> None:
    asked = [
        HumanMessage("add a task for Thorinox to refresh the images", id="m1"),
        AIMessage("To create a client task, I need the title: which do you mean?", id="m2"),
    ]
    answer = HumanMessage("by Friday", id="m3")
    state = {"messages": [*asked, answer], "turn_start_id": "m3"}
    update = await Gather(default_registry(), workspace)(state, Runtime(context=RunContext()))  # type: ignore[arg-type]
    references = [s["reference"] for s in update["sources"] if s["type"] == "client"]
    assert references == ["Thorinox"]
    # An answer, not a question: the message is read alone.
    told = [asked[0], AIMessage("1 task: Refresh Garlic Press main images", id="m2"), answer]
    alone = {"messages": told, "turn_start_id": "m3"}
    update = await Gather(default_registry(), workspace)(alone, Runtime(context=RunContext()))  # type: ignore[arg-type]
    assert not [s for s in update["sources"] if s["type"] == "client"]


@pytest.mark.parametrize(
    ("message", "named"),
    [
        ("any Queens left on the 12th?", ["Queen"]),
        ("are both Double Queens taken?", ["Double Queen"]),
        ("two King Suites and a Queen", ["Queen", "King Suite"]),
        ("the queenside view", []),
    ],
)
async def test_gather_finds_the_room_types_a_message_names_plural_or_not(
    workspace, message: str, named: list[str]
) -> None:
    state = {"messages": [HumanMessage(message, id="m1")], "turn_start_id": "m1"}
    update = await Gather(default_registry(), workspace)(state, Runtime(context=RunContext()))  # type: ignore[arg-type]
    assert [s["reference"] for s in update["sources"] if s["type"] == "room_type"] == named


async def test_gather_reads_the_dates_a_message_writes_out() -> None:
    state = {
        "messages": [HumanMessage("any Queens free January 17-19 for two?", id="m1")],
        "turn_start_id": "m1",
    }
    today = Runtime(context=RunContext(today=date(2026, 11, 24)))
    update = await Gather(default_registry())(state, today)  # type: ignore[arg-type]

    [stay] = [s for s in update["sources"] if s["type"] == "dates"]
    assert stay["reference"] == "january 17-19"
    read = json.loads(stay["excerpt"])
    assert (read["check_in"], read["check_out"], read["nights"]) == ("2027-01-17", "2027-01-19", 2)
    assert "[dates in the message] january 17-19:" in update["context_block"]


async def test_context_block_stays_within_its_budget(workspace) -> None:
    state = {
        "messages": [HumanMessage("coupon SOP for Thorinox brands", id="m1")],
        "turn_start_id": "m1",
    }
    small_budget = Runtime(context=RunContext(context_block_tokens=150))
    small = await Gather(default_registry(), workspace)(state, small_budget)  # type: ignore[arg-type]
    large = await Gather(default_registry(), workspace)(state, Runtime(context=RunContext()))  # type: ignore[arg-type]
    assert count_tokens_approximately([HumanMessage(small["context_block"])]) <= 150
    assert 0 < len(small["sources"]) < len(large["sources"])


def test_act_hands_the_model_the_date_reader_s_phrases_on_the_run_s_date() -> None:
    act = Act(default_registry())
    offer = Offer(("list_tasks",), {"list_tasks": 1.0})
    context = RunContext(today=date(2026, 11, 24))
    state: Any = {"messages": [], "sources": []}
    hints = act._hints(offer, state, context)
    text = "tasks due the week after next"
    assert [text[a:b] for a, b in hints.times(text)] == ["week after next"]
    assert hints.times("tasks for Thorinox") == []
    without = ToolRegistry([t for t in default_registry().tools() if t.pack != "calendar"])
    assert Act(without)._hints(offer, state, context).times(text) == ()
