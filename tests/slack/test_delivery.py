"""Slack's retries start no second run; unsigned requests are refused; stop cancels a turn."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from app.slack.stopping import STOPPED
from tests.support.slack_sender import mention, message

ANSWER = {"content": "Garlic Press belongs to Thorinox.", "delay_s": 0.3}
SET_STATUS = "assistant.threads.setStatus"


async def test_a_retried_event_starts_one_run(
    open_slack_app, workspace_url: str, tmp_path: Path
) -> None:
    """Slack's retries (same event id, X-Slack-Retry-Num 1 and 2) while the run is going."""
    transcript = tmp_path / "model-calls.jsonl"
    async with open_slack_app(
        [ANSWER], database_url=workspace_url, scripted_transcript=transcript
    ) as slack:
        event = mention("C1", "U0GRACE", "who owns Garlic Press?", "100.1")
        assert await slack.sender.event(event, event_id="Ev0RETRY") == 200
        assert await slack.sender.event(event, event_id="Ev0RETRY", retry=1) == 200
        assert await slack.sender.event(event, event_id="Ev0RETRY", retry=2) == 200
        await slack.api.wait_for_answer(ANSWER["content"])
        await asyncio.sleep(0.5)
        history = await slack.history("T0TEAM:C1:100.1")
        rows = await slack.processed("Ev0RETRY")
    # One turn: its status shown, then cleared once.
    assert len(slack.api.made(SET_STATUS, thread_ts="100.1", status="")) == 1
    assert slack.api.answers() == [ANSWER["content"]]
    assert [m.type for m in history] == ["human", "ai"]
    assert len(transcript.read_text().splitlines()) == 1  # one model call
    assert rows == 1


async def test_an_expired_event_id_may_run_again(
    open_slack_app, slack_settings, workspace_url: str
) -> None:
    turns = [
        {"content": "Garlic Press belongs to Thorinox."},
        {"content": "Garlic Press still belongs to Thorinox."},
    ]
    async with open_slack_app(turns, slack=slack_settings, database_url=workspace_url) as slack:
        event = mention("C1", "U0GRACE", "who owns Garlic Press?", "150.1")
        await slack.sender.event(event, event_id="Ev0OLD")
        await slack.api.wait_for_answer(turns[0]["content"])
        # The ledger's clock moves past the id's TTL: the same id is a new delivery.
        ttl = timedelta(seconds=slack_settings.processed_event_ttl_s + 1)

        async def later(conversations: Any) -> None:
            conversations.ledger.clock = lambda: datetime.now(UTC) + ttl

        await slack.runtime.call(later)
        await slack.sender.event(event, event_id="Ev0OLD", retry=1)
        await slack.api.wait_for_answer(turns[1]["content"])


async def test_a_bad_signature_is_refused_with_401(open_slack_app) -> None:
    answer = {"content": "Garlic Press belongs to Thorinox."}
    async with open_slack_app([answer]) as slack:
        forged = mention("C1", "U0GRACE", "who owns Garlic Press?", "200.1")
        assert await slack.sender.event(forged, secret="not-the-secret", event_id="Ev0BAD") == 401
        # Events reach the turn loop in the order they arrive: once a signed event sent
        # after the forged one is answered, the forged one would have been claimed.
        signed = mention("C1", "U0GRACE", "who owns Garlic Press?", "201.1")
        assert await slack.sender.event(signed, event_id="Ev0GOOD") == 200
        await slack.api.wait_for_answer(answer["content"])
        assert await slack.processed("Ev0GOOD") == 1
        assert await slack.processed("Ev0BAD") == 0
    assert slack.api.answers() == [answer["content"]]
    threads = {c.args.get("thread_ts") for c in slack.api.made(SET_STATUS)}
    assert threads == {"201.1"}


async def test_stop_in_the_thread_cancels_the_turn_and_the_next_one_works(open_slack_app) -> None:
    turns = [
        {"content": "never sent", "delay_s": 2},
        {"content": "Garlic Press belongs to Thorinox."},
    ]
    async with open_slack_app(turns) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "300.1"))
        await slack.api.wait_for(SET_STATUS)
        await asyncio.sleep(0.2)
        await slack.sender.event(message("C1", "U0GRACE", "stop", "300.2", "300.1"))
        await slack.api.wait_for_answer(STOPPED, within=5)
        config = {"configurable": {"thread_id": "T0TEAM:C1:300.1"}}
        snapshot = await slack.runtime.call(lambda c: c.runner.graph.aget_state(config))
        assert snapshot.next == ()
        await slack.sender.event(
            message("C1", "U0GRACE", "who owns Garlic Press?", "300.3", "300.1")
        )
        await slack.api.wait_for_answer(turns[1]["content"])
        history = await slack.history("T0TEAM:C1:300.1")
    assert [m.type for m in history] == ["human", "ai", "human", "ai"]
    assert history[1].text == STOPPED


async def test_the_stop_command_cancels_the_channels_running_turn(open_slack_app) -> None:
    async with open_slack_app([{"content": "never sent", "delay_s": 2}]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "400.1"))
        await slack.api.wait_for(SET_STATUS)
        await asyncio.sleep(0.2)
        fields = {
            "command": "/agentloop",
            "text": "stop",
            "team_id": "T0TEAM",
            "channel_id": "C1",
            "user_id": "U0GRACE",
            "trigger_id": "1.2.3",
        }
        status, body = await slack.sender.command(fields)
        assert status == 200 and "Stopped 1 running turn" in body
        await slack.api.wait_for_answer(STOPPED, within=5)
        status, body = await slack.sender.command(fields)
        assert "Nothing is running" in body


async def test_a_second_message_waits_for_the_first_and_is_answered_after_it(
    open_slack_app,
) -> None:
    turns = [
        {"content": "First: Garlic Press belongs to Thorinox.", "delay_s": 0.5},
        {"content": "Second: Distex has a Garlic Press brand too."},
    ]
    async with open_slack_app(turns) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "500.1"))
        await slack.api.wait_for(SET_STATUS)
        await slack.sender.event(
            message("C1", "U0LINUS", "and does Distex have Garlic Press?", "500.2", "500.1")
        )
        await slack.api.wait_for_answer(turns[1]["content"])
        history = await slack.history("T0TEAM:C1:500.1")
    # The first answer's message came first (messages are in the order Slack made them).
    assert [m["text"] for m in slack.api.streamed("C1")] == [t["content"] for t in turns]
    assert any("waiting for the previous message" in t for t in slack.api.statuses("C1"))
    assert [m.text for m in history] == [
        "who owns Garlic Press?",
        turns[0]["content"],
        "and does Distex have Garlic Press?",
        turns[1]["content"],
    ]
