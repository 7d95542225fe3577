"""verify: checks the draft answer; a failed draft goes back to act with feedback, up to N tries."""

from __future__ import annotations

import re
from collections.abc import Callable

from langchain_core.messages import AIMessage, RemoveMessage
from langgraph.runtime import Runtime

from graph import events
from graph.context import Context
from graph.state import AgentState, VerifyUpdate

Rule = tuple[str, Callable[[str], bool]]

# Each rule: (feedback the model can act on, predicate that finds the problem).
RULES: list[Rule] = [
    (
        "The answer was empty: write a reply to the user's message.",
        lambda text: not text.strip(),
    ),
    (
        "It uses **double asterisks**; Slack bold is *single asterisks*.",
        lambda text: re.search(r"\*\*[^*\n]+\*\*", text) is not None,
    ),
    (
        "It uses # markdown headings, which Slack does not render; use a *bold* line instead.",
        lambda text: re.search(r"^\s{0,3}#{1,6}\s", text, re.MULTILINE) is not None,
    ),
    (
        "It uses [text](url) links; Slack links are written <url|text>.",
        lambda text: re.search(r"\[[^\]\n]+\]\((https?|mailto):[^)\s]+\)", text) is not None,
    ),
    (
        "It contains tool-call markup; call tools through the tool interface and write the "
        "reply as plain text.",
        lambda text: re.search(r"</?(tool_call|function_call|tool_use|invoke)\b", text) is not None,
    ),
]


def check(text: str) -> list[str]:
    """Return the feedback of every rule the text breaks (empty when it passes)."""
    return [feedback for feedback, broken in RULES if broken(text)]


async def verify(state: AgentState, runtime: Runtime[Context]) -> VerifyUpdate:
    """Pass the draft, or drop it and record feedback (the last attempt ends the turn)."""
    runtime.stream_writer(events.agent_state("verifying"))
    draft = state["messages"][-1]
    assert isinstance(draft, AIMessage), "verify runs only after a final AI message"
    issues = check(draft.text)
    if not issues:
        return {"feedback": []}
    attempt = state.get("attempt", 0) + 1
    update: VerifyUpdate = {
        "messages": [RemoveMessage(id=draft.id or "")],
        "attempt": attempt,
        "feedback": issues,
    }
    if attempt >= runtime.context.verify_max_attempts:
        update["status"] = "failed_verification"
    return update
