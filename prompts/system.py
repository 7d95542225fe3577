"""The act node's system prompt, assembled from sections."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path

from core.run_context import CONTEXT_TYPES

_HERE = Path(__file__).parent


@cache
def section(name: str) -> str:
    """Return the text of a prompt section file (`prompts/<name>.md`)."""
    return (_HERE / f"{name}.md").read_text(encoding="utf-8").strip()


@dataclass(frozen=True)
class SystemPromptInputs:
    """Everything the system prompt depends on for one model call."""

    today: date
    timezone: str
    user_id: str
    channel: str
    context_block: str
    feedback: tuple[str, ...]
    attempt: int
    max_attempts: int
    has_tools: bool
    context_type: str = "general"


def context_guidance(context_type: str) -> str:
    """Return the guidance and required behaviours of a context type (`prompts/context_types`)."""
    if context_type not in CONTEXT_TYPES:
        raise ValueError(f"unknown context type {context_type!r}; expected one of {CONTEXT_TYPES}")
    return section(f"context_types/{context_type}")


def render(inputs: SystemPromptInputs) -> str:
    """Render the system prompt: identity, tools, safety, time, formatting, context, feedback."""
    parts = [section("identity")]
    if inputs.has_tools:
        parts.append(section("tools"))
    else:
        parts.append("You have no tools in this conversation; answer from what you know.")
    parts.append(section("safety"))
    parts.append(context_guidance(inputs.context_type))
    parts.append(
        f"Today is {inputs.today:%A, %Y-%m-%d} ({inputs.timezone}). "
        f"You are talking with user {inputs.user_id} on {inputs.channel}."
    )
    parts.append(section("slack_formatting"))
    if inputs.context_block:
        parts.append(f"Context gathered for this message:\n{inputs.context_block}")
    if inputs.feedback:
        issues = "\n".join(f"- {item}" for item in inputs.feedback)
        parts.append(
            f"Your previous answer was not sent (attempt {inputs.attempt} of "
            f"{inputs.max_attempts}). Fix these problems and answer again:\n{issues}"
        )
    return "\n\n".join(parts)
