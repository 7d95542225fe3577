"""👍 / 👎 under every answer: a click is the clicker's one vote, and a score on the trace."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from sqlalchemy import select

from app.slack.feedback_buttons import FEEDBACK
from app.slack.feedback_votes import NOT_A_MEMBER, THANKS
from core.db.engine import open_database
from core.db.models import Feedback
from core.observability.feedback import SCORE_NAME, score_id
from core.settings_sections import LangfuseSection
from tests.support.otlp_receiver import OtlpReceiver
from tests.support.slack_sender import feedback_click, mention, message

LOOKUP = {"tool_calls": [{"name": "list_tasks", "args": {"client": "Thorinox", "status": "open"}}]}
ANSWER = {
    "content": "One open Thorinox task: Refresh Garlic Press main images (Omar Haddad, due "
    "2026-12-04)."
}
THREAD = "T0TEAM:C1:300.1"


def answer_message(api: Any, text: str) -> dict[str, Any]:
    [found] = [m for m in api.posted.values() if m["text"] == text]
    return dict(found)


async def votes_of(settings: Any) -> list[tuple[str, str]]:
    db = open_database(settings)
    try:
        async with db.session() as session:
            rows = await session.scalars(select(Feedback).order_by(Feedback.person))
            return [(v.person, v.rating) for v in rows]
    finally:
        await db.dispose()


async def test_an_answer_carries_feedback_buttons_and_clicks_are_votes(
    open_slack_app, slack_settings, workspace_url: str
) -> None:
    with OtlpReceiver() as receiver:
        # A fresh key: Langfuse keeps one client per public key for the process.
        langfuse = LangfuseSection(
            public_key=f"pk-lf-{uuid.uuid4().hex}",
            secret_key="sk-lf-test",
            base_url=receiver.base_url,
        )
        async with open_slack_app(
            [LOOKUP, ANSWER], database_url=workspace_url, LANGFUSE=langfuse
        ) as slack:
            await slack.sender.event(
                mention("C1", "U0GRACE", "what's still open for Thorinox?", "300.1")
            )
            await slack.api.wait_for_answer(ANSWER["content"])
            answer = answer_message(slack.api, ANSWER["content"])

            # What a person sees: the answer (streamed), then 👍 / 👎 under it.
            *_, actions = answer["blocks"]
            [buttons] = actions["elements"]
            assert actions["type"] == "context_actions"
            assert buttons["type"] == "feedback_buttons" and buttons["action_id"] == FEEDBACK
            assert buttons["positive_button"]["text"]["text"] == "👍"
            assert buttons["negative_button"]["text"]["text"] == "👎"

            # A double click, at once (before the audit's next batch is written), then a
            # replay of it later.
            thumbs_down = feedback_click("U0GRACE", "C1", answer, "negative", "1800000001.000100")
            statuses = await asyncio.gather(
                slack.sender.action(thumbs_down), slack.sender.action(thumbs_down)
            )
            assert statuses == [200, 200]
            await slack.api.wait_for("chat.postEphemeral", user="U0GRACE")
            [run] = await slack.runs(THREAD)
            assert await slack.sender.action(thumbs_down) == 200
            # Someone the workspace does not list is told so, only them; nothing is written.
            nobody = feedback_click("U0NOBODY", "C1", answer, "negative")
            assert await slack.sender.action(nobody) == 200
            [refusal] = await slack.api.wait_for("chat.postEphemeral", user="U0NOBODY")
            assert refusal.args["text"] == NOT_A_MEMBER
            await slack.runtime.turns.settle(10)
            [thanks] = slack.api.made("chat.postEphemeral", user="U0GRACE")
            assert thanks.args["text"] == THANKS["negative"]
            assert thanks.args["thread_ts"] == "300.1"
            assert await votes_of(slack.settings) == [("U0GRACE", "negative")]

            # A change of mind is a new click: still one vote, the latest.
            thumbs_up = feedback_click("U0GRACE", "C1", answer, "positive")
            assert await slack.sender.action(thumbs_up) == 200
            await slack.api.wait_for("chat.postEphemeral", user="U0GRACE", count=2)
            assert await votes_of(slack.settings) == [("U0GRACE", "positive")]
            await slack.runtime.call(lambda c: c.runner.driver.tracing.flush())
    assert [s["value"] for s in receiver.scores] == [0, 1]
    for score in receiver.scores:
        assert score["id"] == score_id(run.id, "U0GRACE") and score["name"] == SCORE_NAME
        assert score["traceId"] == run.trace_id
        assert score["metadata"]["channel"] == "slack"


async def test_a_long_answer_has_the_buttons_under_its_last_message_in_a_dm(
    open_slack_app, slack_settings
) -> None:
    paragraphs = [f"Paragraph {n}: " + "the open tasks, one by one. " * 6 for n in range(3)]
    long_answer = {"content": "\n\n".join(paragraphs)}
    short = slack_settings.model_copy(update={"max_message_chars": 200})
    async with open_slack_app([long_answer], slack=short) as slack:
        await slack.sender.event(message("D1", "U0GRACE", "hello", "400.1", channel_type="im"))
        for _ in range(1000):  # the turn starts after the event is acknowledged: wait for it
            if len(slack.api.answers("D1")) == len(paragraphs):
                break
            await asyncio.sleep(0.02)
        await slack.runtime.turns.settle(10)  # then for its last posts (the buttons)
        messages = [answer_message(slack.api, text) for text in slack.api.answers("D1")]
    assert [m["text"].split(":")[0] for m in messages] == [f"Paragraph {n}" for n in range(3)]
    *first, last = messages
    assert not any(b["type"] == "context_actions" for m in first for b in m["blocks"])
    assert last["blocks"][-1]["type"] == "context_actions"
