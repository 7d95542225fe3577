"""Two processes drive one thread at once: the second waits its turn and nothing is lost.

Two processes approving the same change at once is
tests/integration/test_confirm_cli.py::test_two_processes_approving_at_once_create_one_task.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from core.settings import Settings
from graph.runner import Runner
from tests.faults.conftest import ON_POSTGRES, Query
from tests.support.cli import ROOT, ask_json

THREAD = "t-two-processes"


def spawn_ask(message: str, model: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", "ask", message, "--thread", THREAD, "--json"],
        cwd=ROOT,
        env={**os.environ, **env, "AGENTLOOP_MODEL": model},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def conversation(workspace_url: str) -> list[tuple[str, str]]:
    settings = Settings(_env_file=None, database_url=workspace_url)
    async with Runner.open(settings) as runner:
        messages = await runner.history(THREAD)
    return [
        ("user" if isinstance(m, HumanMessage) else "assistant", m.text)
        for m in messages
        if isinstance(m, HumanMessage | AIMessage)
    ]


@ON_POSTGRES
async def test_two_asks_on_one_thread_run_one_after_the_other(
    workspace_url: str,
    cli_env: dict[str, str],
    query: Query,
    write_script: Callable[[list[dict[str, Any]]], str],
) -> None:
    model = write_script([{"content": "Noted zero."}])
    first = ask_json("note zero", "--thread", THREAD, "--model", model, env=cli_env)
    assert first["status"] == "completed", first

    # Each run holds the model for a second, long enough for the other process to arrive.
    racers = [
        spawn_ask(
            f"note {name}", write_script([{"content": f"Noted {name}.", "delay_s": 1}]), cli_env
        )
        for name in ("one", "two")
    ]
    outputs = [racer.communicate(timeout=120) for racer in racers]
    results = [json.loads(stdout) for stdout, _ in outputs]
    assert [(r["status"], r["text"]) for r in results] == [
        ("completed", "Noted one."),
        ("completed", "Noted two."),
    ], outputs

    runs = query(
        "select input_text, started_at, finished_at from agent_runs "
        f"where thread_id = '{THREAD}' and input_text like 'note %' order by started_at"
    )
    zero, earlier, later = runs
    assert zero.input_text == "note zero"
    assert later.started_at >= earlier.finished_at, "the two runs overlapped"

    # One checkpoint chain: both messages, each followed by its own answer, in run order.
    expected = [("user", "note zero"), ("assistant", "Noted zero.")]
    for run in (earlier, later):
        name = run.input_text.removeprefix("note ")
        expected += [("user", f"note {name}"), ("assistant", f"Noted {name}.")]
    assert await conversation(workspace_url) == expected
