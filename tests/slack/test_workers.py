"""Two HTTP worker processes on one Postgres serialize a thread: no overlap, no fork."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from app.slack.formatting import QUEUED
from app.slack.outcome_texts import NOTHING_RUNNING
from app.slack.stopping import STOPPED
from checkpoints.savers import open_checkpointer, setup_checkpointer
from core.settings import Settings
from tests.slack.conftest import SECRET
from tests.support.slack_api import MockSlackApi
from tests.support.slack_sender import SlackSender, mention, message

pytestmark = pytest.mark.postgres
SET_STATUS = "assistant.threads.setStatus"
ROOT = Path(__file__).resolve().parents[2]
ANSWER = "Garlic Press belongs to Thorinox."
THREAD = "T0TEAM:C1:900.1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_worker(port: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "app.slack", "--http", "--host", "127.0.0.1"]
    return subprocess.Popen(
        [*command, "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def stop_workers(workers: list[subprocess.Popen[bytes]]) -> None:
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.wait(10)


def worker_env(
    workspace_url: str, script: Path, data_dir: Path, api: MockSlackApi
) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("AGENTLOOP_", "SLACK_"))},
        "DATABASE_URL": workspace_url,
        "AGENTLOOP_MODEL": f"scripted:{script}",
        "AGENTLOOP_DATA_DIR": str(data_dir),
        "SLACK_BOT_TOKEN": "xoxb-test",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": api.url,
        "SLACK_STATUS_INTERVAL_S": "0",
    }


def wait_listening(port: int, worker: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise AssertionError(f"worker exited: {log.read_text()}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"worker not listening: {log.read_text()}")


@pytest.mark.parametrize("workspace_url", ["postgres"], indirect=True)
async def test_two_workers_answer_one_threads_messages_in_turn(
    workspace_url: str, tmp_path: Path
) -> None:
    settings = Settings(_env_file=None, database_url=workspace_url, data_dir=tmp_path / "data")
    await setup_checkpointer(settings)
    script = tmp_path / "script.json"
    # Each process replays its script from the start: one slow answer per worker.
    script.write_text(json.dumps([{"content": ANSWER, "delay_s": 1.0}]))
    with MockSlackApi() as api:
        env = worker_env(workspace_url, script, tmp_path / "data", api)
        ports = [free_port(), free_port()]
        logs = [tmp_path / "worker-a.log", tmp_path / "worker-b.log"]
        workers = [start_worker(p, env, log) for p, log in zip(ports, logs, strict=True)]
        try:
            for port, worker, log in zip(ports, workers, logs, strict=True):
                await asyncio.to_thread(wait_listening, port, worker, log)
            a, b = (SlackSender(f"http://127.0.0.1:{p}/slack/events", SECRET) for p in ports)
            statuses = await asyncio.gather(
                a.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "900.2", "900.1")),
                b.event(
                    mention("C1", "U0LINUS", "does Thorinox own Garlic Press?", "900.3", "900.1")
                ),
            )
            assert statuses == [200, 200]
            answers = await api.wait_for("chat.stopStream", within=40, count=2)
            clears = await api.wait_for(SET_STATUS, within=10, count=2, status="")
        finally:
            stop_workers(workers)
    [waited] = api.made(SET_STATUS, thread_ts="900.1", status=f"is {QUEUED}")
    first, second = answers
    # One message found the thread busy in the other process and waited its turn, while
    # the first was being answered…
    assert waited.at < first.at
    assert api.answers() == [ANSWER, ANSWER]
    # …the thread's status was cleared last, after its own answer…
    assert clears[-1].at > second.at
    assert second.at - first.at >= 0.9  # …which came from its own (1 s) model call.

    async with open_checkpointer(settings) as saver:
        config = {"configurable": {"thread_id": THREAD}}
        checkpoints = [c async for c in saver.alist(config)]
        latest = await saver.aget_tuple(config)
    ids = {c.config["configurable"]["checkpoint_id"] for c in checkpoints}
    parents = [
        c.parent_config["configurable"]["checkpoint_id"] for c in checkpoints if c.parent_config
    ]
    # One chain: every checkpoint but the first has a parent, and no parent has two children.
    assert len(parents) == len(checkpoints) - 1
    assert len(set(parents)) == len(parents)
    assert set(parents) <= ids
    assert latest is not None
    messages = latest.checkpoint["channel_values"]["messages"]
    assert [m.type for m in messages] == ["human", "ai", "human", "ai"]
    assert {messages[0].text, messages[2].text} == {
        "who owns Garlic Press?",
        "does Thorinox own Garlic Press?",
    }


@pytest.mark.parametrize("workspace_url", ["postgres"], indirect=True)
async def test_a_stop_received_by_one_worker_cancels_the_turn_running_on_the_other(
    workspace_url: str, tmp_path: Path
) -> None:
    settings = Settings(_env_file=None, database_url=workspace_url, data_dir=tmp_path / "data")
    await setup_checkpointer(settings)
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": "never sent", "delay_s": 20}] * 2))
    with MockSlackApi() as api:
        env = worker_env(workspace_url, script, tmp_path / "data", api)
        ports = [free_port(), free_port()]
        logs = [tmp_path / "worker-a.log", tmp_path / "worker-b.log"]
        workers = [start_worker(p, env, log) for p, log in zip(ports, logs, strict=True)]
        try:
            for port, worker, log in zip(ports, workers, logs, strict=True):
                await asyncio.to_thread(wait_listening, port, worker, log)
            a, b = (SlackSender(f"http://127.0.0.1:{p}/slack/events", SECRET) for p in ports)
            await a.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "910.1"))
            await api.wait_for(SET_STATUS, within=20, thread_ts="910.1")
            await asyncio.sleep(1.0)  # the turn is in its (20 s) model call on worker A
            # "stop" in the thread reaches worker B, which knows the thread from the database.
            await b.event(message("C1", "U0GRACE", "stop", "910.2", "910.1"))
            [stopped] = await api.wait_for("chat.postMessage", within=10, text=STOPPED)
            assert stopped.args["thread_ts"] == "910.1"
            assert not api.made("chat.postMessage", text=NOTHING_RUNNING)

            # /agentloop stop in the channel, received by B, stops a turn running on A.
            await a.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "920.1"))
            await api.wait_for(SET_STATUS, within=20, thread_ts="920.1")
            await asyncio.sleep(1.0)
            fields = {
                "command": "/agentloop",
                "text": "stop",
                "team_id": "T0TEAM",
                "channel_id": "C1",
                "user_id": "U0GRACE",
                "trigger_id": "1.2.3",
            }
            status, body = await b.command(fields)
            assert status == 200 and "Stopped 1 running turn" in body, body
            await api.wait_for("chat.postMessage", within=10, text=STOPPED, thread_ts="920.1")
        finally:
            stop_workers(workers)
    assert not api.made("chat.postMessage", text="never sent")


@pytest.mark.parametrize("workspace_url", ["postgres"], indirect=True)
async def test_two_clicks_on_one_card_reaching_two_workers_edit_it_once(
    workspace_url: str, tmp_path: Path
) -> None:
    from app.slack import cards
    from tests.slack.test_approvals import ASK, CREATE, DONE, TITLE
    from tests.support.slack_sender import click

    settings = Settings(_env_file=None, database_url=workspace_url, data_dir=tmp_path / "data")
    await setup_checkpointer(settings)
    # Worker A proposes the change; whichever worker's click decides it answers with DONE.
    scripts = [tmp_path / "a.json", tmp_path / "b.json"]
    scripts[0].write_text(json.dumps([CREATE, DONE]))
    scripts[1].write_text(json.dumps([DONE]))
    with MockSlackApi() as api:
        ports = [free_port(), free_port()]
        logs = [tmp_path / "worker-a.log", tmp_path / "worker-b.log"]
        workers = [
            start_worker(port, worker_env(workspace_url, script, tmp_path / "data", api), log)
            for port, script, log in zip(ports, scripts, logs, strict=True)
        ]
        try:
            for port, worker, log in zip(ports, workers, logs, strict=True):
                await asyncio.to_thread(wait_listening, port, worker, log)
            a, b = (SlackSender(f"http://127.0.0.1:{p}/slack/events", SECRET) for p in ports)
            await a.event(mention("C1", "U0GRACE", ASK, "930.1"))
            card = await api.card("C1", "930.1", within=40)
            # A double click, or two screens: the same click reaches both workers at once.
            payload = click("U0GRACE", "C1", card, cards.APPROVE)
            assert await asyncio.gather(a.action(payload), b.action(payload)) == [200, 200]
            await api.wait_for_answer(DONE["content"], within=40)
            [refusal] = await api.wait_for("chat.postEphemeral", within=20, user="U0GRACE")
        finally:
            stop_workers(workers)
    assert "no longer waiting" in refusal.args["text"]
    assert len(api.made("chat.update", ts=card["ts"])) == 1
    assert api.answers().count(DONE["content"]) == 1
    decided = api.message_at("C1", card["ts"])
    assert decided is not None and "Approved by <@U0GRACE>" in decided["text"]
    async with await psycopg.AsyncConnection.connect(workspace_url) as conn:
        cursor = await conn.execute("select count(*) from tasks where title = %s", (TITLE,))
        assert await cursor.fetchone() == (1,)
