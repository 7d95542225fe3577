"""A 1 MB message: read up to the guard's limit, answered in well under 10 s, kept whole.

Decision: a pasted log or document is not refused. The model reads its first 32,768
characters with a note that the rest was cut (`nodes/guard.py`), so it can say so; the
thread keeps what the model read, so every later turn stays bounded too; the audit keeps the
message as sent (`agent_runs.input_text`), so nothing the person sent is lost.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from checkpoints.savers import setup_checkpointer
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from nodes.guard import MAX_MESSAGE_CHARS
from tests.faults.conftest import Query
from tests.support.cli import ROOT

ONE_MB = 1024 * 1024
THREAD = "t-large"
LINE = "2026-11-22T04:00:00Z worker-3 INFO order 18342 shipped, Garlic Press restock pending\n"
BIG = (LINE * (ONE_MB // len(LINE) + 1))[:ONE_MB]
# Well above the truncated message (~33,000 characters) and its prompt; far below 1 MB.
REQUEST_BOUND = 64 * 1024


def requests_sent(transcript: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in transcript.read_text().splitlines()]


def user_texts(request: dict[str, Any]) -> list[str]:
    return [m["data"]["content"] for m in request["messages"] if m["type"] == "human"]


async def test_a_1mb_message_is_answered_bounded_and_kept_whole(
    workspace_url: str,
    make_settings: Callable[..., Settings],
    write_script: Callable[[list[dict[str, Any]]], str],
    query: Query,
    tmp_path: Path,
) -> None:
    transcript = tmp_path / "requests.jsonl"
    settings = make_settings(
        database_url=workspace_url,
        checkpointer=None,  # SQLite or Postgres, as the workspace
        model=write_script([{"content": "The log shows order 18342."}, {"content": "Yes."}]),
        scripted_transcript=transcript,
    )
    await setup_checkpointer(settings)
    async with Runner.open(settings) as runner:
        result = await runner.run_turn(TurnRequest(THREAD, "U1", BIG))
        later = await runner.run_turn(TurnRequest(THREAD, "U1", "anything else"))
        history = await runner.history(THREAD)

    assert (result.status, result.text) == ("completed", "The log shows order 18342.")
    assert (later.status, later.text) == ("completed", "Yes.")
    first, second = requests_sent(transcript)
    [read] = user_texts(first)
    assert read.startswith(BIG[:MAX_MESSAGE_CHARS])
    assert f"{ONE_MB:,} characters long and was truncated" in read
    # Neither this turn nor the next sends the megabyte again.
    assert len(json.dumps(first)) < REQUEST_BOUND
    assert len(json.dumps(second)) < REQUEST_BOUND
    assert user_texts(second) == [read, "anything else"]
    assert [m.text for m in history if isinstance(m, HumanMessage)] == [read, "anything else"]
    # The audit has the message as it was sent.
    [(kept,)] = query(f"select input_text from agent_runs where input_text like '{LINE[:20]}%'")
    assert kept == BIG


@pytest.mark.parametrize("workspace_url", ["sqlite"], indirect=True)
def test_a_1mb_message_through_the_cli_on_standard_input(
    workspace_url: str,
    cli_env: dict[str, str],
    write_script: Callable[[list[dict[str, Any]]], str],
    query: Query,
) -> None:
    model = write_script([{"content": "The log shows order 18342."}])
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "ask", "-", "--thread", THREAD, "--json"],
        cwd=ROOT,
        env={**os.environ, **cli_env, "AGENTLOOP_MODEL": model},
        input=BIG,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert (answer["status"], answer["text"]) == ("completed", "The log shows order 18342.")
    [(length, status)] = query("select length(input_text), status from agent_runs")
    assert (length, status) == (ONE_MB, "completed")
