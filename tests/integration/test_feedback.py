"""Feedback on answers: one vote per person per run in the workspace, and a Langfuse score."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import func, select

from core.db.models import AgentRun, Feedback
from core.observability import queries
from core.observability.feedback import (
    SCORE_NAME,
    UnknownRunError,
    Vote,
    record_feedback,
    score_id,
)
from core.observability.tracing import Tracing, trace_id_for
from tests.support.otlp_receiver import OtlpReceiver, tracing_to

OFF = Tracing(None)


async def a_run(db: Any, thread: str = "t-fb", output: str = "Thorinox has 2 brands.") -> str:
    """Write a finished run as the audit does; return its id."""
    run_id = str(uuid.uuid4())
    async with db.session() as session:
        session.add(
            AgentRun(
                id=run_id,
                thread_id=thread,
                user_id="U0GRACE",
                trace_id=trace_id_for(run_id),
                status="completed",
                input_text="how many brands has Thorinox?",
                output_text=output,
            )
        )
        await session.commit()
    return run_id


async def votes(db: Any, run_id: str) -> list[Feedback]:
    async with db.session() as session:
        found = await session.scalars(select(Feedback).where(Feedback.run_id == run_id))
        return list(found)


async def test_the_latest_vote_of_a_person_on_an_answer_wins(workspace) -> None:
    run_id = await a_run(workspace)
    first = await record_feedback(
        workspace, OFF, Vote(run_id, "U0GRACE", "negative", "wrong count", "slack")
    )
    assert first.run_id == run_id and first.trace_id == trace_id_for(run_id)
    assert not first.scored  # tracing off: recorded all the same
    # The same click again, then a change of mind: still one row, the latest vote.
    await record_feedback(workspace, OFF, Vote(run_id, "U0GRACE", "negative", "wrong count"))
    await record_feedback(workspace, OFF, Vote(run_id[:13], "U0GRACE", "positive", None, "cli"))
    [vote] = await votes(workspace, run_id)
    assert (vote.person, vote.rating, vote.comment, vote.channel) == (
        "U0GRACE",
        "positive",
        None,
        "cli",
    )
    # Another person's vote is their own.
    await record_feedback(workspace, OFF, Vote(run_id, "U0LINUS", "negative", "too vague"))
    assert sorted((v.person, v.rating) for v in await votes(workspace, run_id)) == [
        ("U0GRACE", "positive"),
        ("U0LINUS", "negative"),
    ]


async def test_a_vote_on_no_run_writes_nothing(workspace) -> None:
    with pytest.raises(UnknownRunError):
        await record_feedback(workspace, OFF, Vote("no-such-run", "U0GRACE", "negative"))
    async with workspace.session() as session:
        assert await session.scalar(select(func.count()).select_from(Feedback)) == 0


async def test_runs_are_listed_and_shown_with_their_votes(workspace) -> None:
    liked = await a_run(workspace, "t-liked")
    disliked = await a_run(workspace, "t-disliked")
    silent = await a_run(workspace, "t-silent")
    await record_feedback(workspace, OFF, Vote(liked, "U0GRACE", "positive"))
    await record_feedback(workspace, OFF, Vote(disliked, "U0GRACE", "negative", "wrong client"))
    negative = await queries.list_runs(workspace, feedback="negative")
    positive = await queries.list_runs(workspace, feedback="positive")
    assert [r.id for r in negative] == [disliked] and [r.id for r in positive] == [liked]
    assert {r.id for r in await queries.list_runs(workspace)} >= {liked, disliked, silent}
    detail = await queries.show_run(workspace, disliked)
    assert detail is not None
    [shown] = queries.detail_json(detail)["feedback"]
    assert shown["person"] == "U0GRACE" and shown["rating"] == "negative"
    assert shown["comment"] == "wrong client"
    assert set(await queries.votes_for(workspace, [liked, disliked, silent])) == {liked, disliked}


async def test_a_vote_is_a_score_on_the_runs_trace(workspace) -> None:
    run_id = await a_run(workspace)
    with OtlpReceiver() as receiver:
        tracing = tracing_to(receiver.base_url)
        await record_feedback(workspace, tracing, Vote(run_id, "U0GRACE", "negative", "wrong"))
        recorded = await record_feedback(
            workspace, tracing, Vote(run_id, "U0GRACE", "positive", "fine after all")
        )
        await tracing.flush()
    assert recorded.scored
    scores = receiver.scores
    assert [s["id"] for s in scores] == [score_id(run_id, "U0GRACE")] * 2
    first, latest = scores
    assert latest["traceId"] == trace_id_for(run_id) and latest["name"] == SCORE_NAME
    assert (first["value"], latest["value"]) == (0, 1)
    assert latest["dataType"] == "BOOLEAN" and latest["comment"] == "fine after all"
    assert latest["metadata"] == {"run_id": run_id, "person": "U0GRACE", "channel": ""}
