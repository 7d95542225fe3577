"""A long thread with large tool results: requests stay valid and under the window, compaction
runs (memory flush first, then the summary) and later requests carry the summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage, messages_from_dict
from langchain_core.messages.utils import count_tokens_approximately
from pydantic import BaseModel
from sqlalchemy import select

from core.db.engine import open_database
from core.settings import EXTRACTIVE, Settings
from history.pipeline import SUMMARY_HEADER, pairing_problems
from prompts import compaction as prompts
from tests.graph.context_turns import run
from tools.agency.models import ClientMemoryNote
from tools.declaration import ToolContext, declare
from tools.memory import notes as memory
from tools.registry import ToolRegistry

TURNS = 60
WINDOW = 6_000
RESULT_CHARS = 3_800


class ReportArgs(BaseModel):
    """Arguments of the report tool."""

    n: int


@declare(pack="test", kind="read_only")
async def big_report(args: ReportArgs, ctx: ToolContext) -> dict[str, object]:
    """Return a large report (just under the retention threshold, so it stays inline)."""
    return {"n": args.n, "rows": f"row-{args.n} " * (RESULT_CHARS // (7 + len(str(args.n))))}


def main_script() -> list[dict[str, object]]:
    turns: list[dict[str, object]] = []
    for n in range(TURNS):
        turns.append({"tool_calls": [{"name": "big_report", "args": {"n": n}}]})
        turns.append({"content": f"Report {n} is ready: all rows are in."})
    return turns


def compaction_script() -> list[dict[str, object]]:
    flush_call = {
        "name": "remember_client_note",
        "args": {"client": "Thorinox", "note": "Reports go out on Mondays.", "confidence": 0.9},
    }
    first = [{"tool_calls": [flush_call]}, {"content": "NO_REPLY"}, {"content": "Summary 1."}]
    later = [
        t for k in range(2, 40) for t in ({"content": "NO_REPLY"}, {"content": f"Summary {k}."})
    ]
    return first + later


async def ask_for_reports(runner: Any, turns: int, compaction_model: str) -> dict[str, Any]:
    """Ask for reports 0 to `turns` - 1 in one thread; return the state after the last."""
    state: dict[str, Any] = {}
    for n in range(turns):
        turn = await run(
            runner, f"Show me report {n}", context_window=WINDOW, compaction_model=compaction_model
        )
        state = turn.state
        assert state["final_text"] == f"Report {n} is ready: all rows are in."
    return state


async def test_sixty_turns_stay_valid_bounded_and_compacted(
    open_runner, write_script, workspace_url: str, tmp_path: Path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    registry = ToolRegistry([big_report, *memory.TOOLS])
    compaction_spec = write_script(compaction_script())
    async with open_runner(
        registry,
        model=write_script(main_script()),
        scripted_transcript=transcript,
        database_url=workspace_url,
    ) as runner:
        state = await ask_for_reports(runner, TURNS, compaction_spec)
        compactor = runner.models.resolve(compaction_spec)

    schemas = registry.openai_schemas()
    entries = [json.loads(line) for line in transcript.read_text().splitlines()]
    main_requests: list[list] = []
    flushes = []
    for entry in entries:
        request = messages_from_dict(entry["messages"])
        if request[0].text in (prompts.flush_system(), prompts.summary_system()):
            flushes.append(entry)
            continue
        main_requests.append(request)
    assert len(main_requests) == 2 * TURNS

    # Every request is valid chat history and fits the window, tools included.
    tokens = []
    for request in main_requests:
        assert isinstance(request[0], SystemMessage)
        assert pairing_problems(request[1:]) == []
        tokens.append(count_tokens_approximately(request, tools=schemas))
    assert max(tokens) <= WINDOW

    # Compaction ran several times: flush first (the memory tool only), then the summary.
    compactions = state["compactions"]
    assert compactions >= 3
    assert compactor.unused() == len(compaction_script()) - (3 + 2 * (compactions - 1))
    assert flushes[0]["tools"] == ["remember_client_note"]
    assert messages_from_dict(flushes[0]["messages"])[0].text == prompts.flush_system()
    assert messages_from_dict(flushes[2]["messages"])[0].text == prompts.summary_system()
    assert state["summary"] == f"Summary {compactions}."
    # Later requests carry the summary at the top, and the history left in state is short.
    last = main_requests[-1]
    assert isinstance(last[1], HumanMessage) and last[1].text.startswith(SUMMARY_HEADER)
    assert len(state["messages"]) <= 50
    # The curve is flat: the second half of the thread costs no more than the first.
    assert max(tokens[TURNS:]) <= max(tokens[:TURNS]) * 1.1

    # The flushed note was stored once, in the workspace.
    db = open_database(Settings(_env_file=None, database_url=workspace_url))
    try:
        async with db.session() as session:
            notes = (
                await session.scalars(
                    select(ClientMemoryNote).where(
                        ClientMemoryNote.note == "Reports go out on Mondays."
                    )
                )
            ).all()
    finally:
        await db.dispose()
    assert len(notes) == 1 and notes[0].author == "U1"


async def test_without_a_compaction_model_the_summary_lists_the_asks_and_no_notes_are_flushed(
    open_runner, write_script, workspace_url: str, tmp_path: Path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    registry = ToolRegistry([big_report, *memory.TOOLS])
    turns = 20
    async with open_runner(
        registry,
        model=write_script(main_script()[: 2 * turns]),
        scripted_transcript=transcript,
        database_url=workspace_url,
    ) as runner:
        state = await ask_for_reports(runner, turns, EXTRACTIVE)

    # Every model call was the turn's own: none went to a flush or a summary.
    requests = [messages_from_dict(json.loads(line)["messages"]) for line in transcript.open()]
    assert len(requests) == 2 * turns
    assert all(request[0].text != prompts.flush_system() for request in requests)
    assert state["compactions"] >= 2
    summary = state["summary"].splitlines()
    assert summary[0] == "Earlier in this thread:"
    assert summary[-1].startswith("- Asked: Show me report ")
    assert "(looked up: big_report) Answered: Report " in summary[-1]
    last = requests[-1]
    assert isinstance(last[1], HumanMessage) and last[1].text.startswith(SUMMARY_HEADER)
    assert "Earlier in this thread:" in last[1].text
