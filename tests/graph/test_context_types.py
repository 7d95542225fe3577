"""Each context type puts its own guidance and required behaviours into the system prompt."""

from __future__ import annotations

import json
import re

import pytest

from core.run_context import CONTEXT_TYPES
from graph.runner import TurnRequest
from tests.support.cli import agentloop

REQUIRED = {
    "general": "Escalate to create_plan only when the request is clearly multi-step.",
    "client": "The client named in the conversation is the default scope",
    "task": "Surface blockers",
    "task_create": "The turn must end with a proposed create_task",
    "audit": "Propose fixes; never apply them without being asked.",
}


@pytest.mark.parametrize("context_type", CONTEXT_TYPES)
async def test_the_system_prompt_carries_the_context_type(
    context_type, open_runner, write_script, tmp_path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    spec = write_script([{"content": "Sure."}])
    async with open_runner(model=spec, scripted_transcript=transcript) as runner:
        result = await runner.run_turn(
            TurnRequest(thread_id="c", user_id="u", message="hello", context_type=context_type)
        )
    assert result.status == "completed"
    [request] = [json.loads(line) for line in transcript.read_text().splitlines()]
    system = request["messages"][0]["data"]["content"]
    assert f"Context: {context_type} —" in system
    assert REQUIRED[context_type] in system
    others = [f"Context: {other} —" for other in CONTEXT_TYPES if other != context_type]
    assert not [marker for marker in others if marker in system]


def test_the_cli_refuses_an_unknown_context_type() -> None:
    proc = agentloop("ask", "hi", "--thread", "t", "--context-type", "sales")
    assert proc.returncode == 2
    # The parser's message, in a box that wraps it: compare its words.
    words = " ".join(re.sub(r"[│╭╮╰╯─]", " ", proc.stderr).split())
    allowed = ", ".join(repr(name) for name in CONTEXT_TYPES)
    assert (
        f"Invalid value for '--context-type': Value error, 'sales' is not one of {allowed}" in words
    )
