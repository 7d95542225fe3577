"""Slack's feedback buttons (👍 / 👎) under an answer, and what a click on one carries.

An answer that carries the buttons is posted with blocks: its text in mrkdwn sections (the
message's `text` stays the notification's), then a `context_actions` block holding one
`feedback_buttons` element, as Slack's AI apps show them. Each button's value names the run
whose answer it rates and the rating, so a click needs nothing else to be recorded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    ContextActionsBlock,
    FeedbackButtonObject,
    FeedbackButtonsElement,
)

from core.observability.feedback import RATINGS, Rating

FEEDBACK = "agentloop_feedback"
"""The action id of the feedback buttons (one listener handles both)."""
FEEDBACK_BLOCK = "agentloop_feedback_block"


@dataclass(frozen=True)
class ButtonValue:
    """What a click on a feedback button says: the run rated, and how."""

    run_id: str
    rating: Rating


def feedback_block(run_id: str) -> dict[str, Any]:
    """Return the `context_actions` block with the 👍 / 👎 buttons for the answer of `run_id`."""
    buttons = FeedbackButtonsElement(
        action_id=FEEDBACK,
        positive_button=FeedbackButtonObject(
            text="👍",
            accessibility_label="This answer was good",
            value=_value(run_id, "positive"),
        ),
        negative_button=FeedbackButtonObject(
            text="👎",
            accessibility_label="This answer was wrong",
            value=_value(run_id, "negative"),
        ),
    )
    return ContextActionsBlock(block_id=FEEDBACK_BLOCK, elements=[buttons]).to_dict()


def read_click(value: str) -> ButtonValue:
    """Return what a feedback button's value says (ValueError when it is not one of ours)."""
    try:
        data = json.loads(value)
        run_id, rating = str(data["run"]), str(data["rating"])
    except (TypeError, KeyError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a feedback button value: {value[:80]!r}") from exc
    if not run_id or rating not in RATINGS:
        raise ValueError(f"not a feedback button value: {value[:80]!r}")
    return ButtonValue(run_id, rating)


def _value(run_id: str, rating: Rating) -> str:
    return json.dumps({"run": run_id, "rating": rating}, separators=(",", ":"))
