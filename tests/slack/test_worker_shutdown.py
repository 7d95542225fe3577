"""SIGTERM stops a Slack worker cleanly, mid-turn and mid-approval; `continue` carries on.

A real `agentloop slack --http` process (and one in Socket Mode, whose socket closes first)
answers a mention (or an Approve click) and is sent
SIGTERM while the turn's model call is under way, longer than the grace period: the worker
tells the thread it had to stop, records the run `interrupted` (none is left `running`) and
exits 0. The approved change is made once. A new worker then carries the turn on when the
asker replies `continue`. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from app.slack import cards
from app.slack.outcome_texts import INTERRUPTED
from checkpoints.savers import setup_checkpointer
from core.db.engine import sync_url
from core.settings import Settings
from tests.slack.conftest import SECRET
from tests.slack.test_workers import ROOT, free_port, start_worker, wait_listening, worker_env
from tests.support.slack_api import MockSlackApi
from tests.support.slack_sender import SlackSender, click, mention, message
from tests.support.task_scripts import CREATE, TITLE

SLOW = 60.0
"""A model call far longer than the grace period: the stop has to interrupt it."""
EXIT_WITHIN_S = 30.0
ANSWER = "Thorinox owns Garlic Press."
DONE = "The task is in Thorinox's list."


class Worker:
    """One `agentloop slack --http` process on the test's workspace and mock Slack."""

    def __init__(self, workspace_url: str, tmp_path: Path, api: MockSlackApi, name: str) -> None:
        self.port = free_port()
        self.log = tmp_path / f"{name}.log"
        self.transcript = tmp_path / f"{name}-requests.jsonl"
        self.script = tmp_path / f"{name}-script.json"
        self.env = worker_env(workspace_url, self.script, tmp_path / "data", api)
        self.env["AGENTLOOP_SHUTDOWN_GRACE_S"] = "0.5"
        self.env["AGENTLOOP_SCRIPTED_TRANSCRIPT"] = str(self.transcript)
        self.sender = SlackSender(f"http://127.0.0.1:{self.port}/slack/events", SECRET)

    async def start(self, turns: list[dict[str, Any]]) -> None:
        self.script.write_text(json.dumps(turns))
        self.process = start_worker(self.port, self.env, self.log)
        await asyncio.to_thread(wait_listening, self.port, self.process, self.log)

    async def model_called(self, calls: int) -> None:
        for _ in range(3000):
            if self.transcript.exists() and len(self.transcript.read_text().splitlines()) >= calls:
                return
            assert self.process.poll() is None, self.log.read_text()
            await asyncio.sleep(0.02)
        raise AssertionError(f"the model was not called {calls} time(s): {self.log.read_text()}")

    async def terminated(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return await asyncio.to_thread(self.process.wait, EXIT_WITHIN_S)

    def stop(self) -> None:
        """Stop the worker as a deployment does (SIGTERM), killing it only if it hangs."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(EXIT_WITHIN_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


def start_socket_mode(env: dict[str, str]) -> subprocess.Popen[str]:
    """Start `agentloop slack` in Socket Mode; its stderr says when it is connected."""
    return subprocess.Popen(
        [sys.executable, "-m", "app.slack"], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
    )


def rows(workspace_url: str, statement: str) -> list[Any]:
    engine = create_engine(sync_url(Settings(_env_file=None, database_url=workspace_url)))
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(statement)))
    finally:
        engine.dispose()


@pytest.fixture
async def checkpoints(workspace_url: str, tmp_path: Path) -> None:
    settings = Settings(_env_file=None, database_url=workspace_url, data_dir=tmp_path / "data")
    await setup_checkpointer(settings)


async def test_sigterm_mid_turn_tells_the_thread_and_continue_carries_on(
    workspace_url: str, tmp_path: Path, checkpoints: None
) -> None:
    with MockSlackApi() as api:
        first = Worker(workspace_url, tmp_path, api, "first")
        await first.start([{"content": "Too late.", "delay_s": SLOW}])
        try:
            status = await first.sender.event(
                mention("C1", "U0GRACE", "who owns Garlic Press?", "900.2", "900.1")
            )
            assert status == 200
            await first.model_called(1)
            assert await first.terminated() == 0, first.log.read_text()
        finally:
            first.stop()
        assert INTERRUPTED in api.answers("C1"), api.answers("C1")
        assert rows(workspace_url, "select status from agent_runs") == [("interrupted",)]

        second = Worker(workspace_url, tmp_path, api, "second")
        await second.start([{"content": ANSWER}])
        try:
            await second.sender.event(message("C1", "U0GRACE", "continue", "900.3", "900.1"))
            await api.wait_for_answer(ANSWER, within=40)
        finally:
            second.stop()
    statuses = sorted(s for (s,) in rows(workspace_url, "select status from agent_runs"))
    assert statuses == ["completed", "interrupted"]


async def test_sigterm_mid_approval_makes_the_change_once_and_continue_finishes_it(
    workspace_url: str, tmp_path: Path, checkpoints: None
) -> None:
    tasks = f"select count(*) from tasks where title = '{TITLE}'"
    with MockSlackApi() as api:
        first = Worker(workspace_url, tmp_path, api, "first")
        await first.start([CREATE, {"content": DONE, "delay_s": SLOW}])
        try:
            await first.sender.event(
                mention("C1", "U0GRACE", "create a task to refresh the images", "910.2", "910.1")
            )
            card = await api.card("C1", "910.1", within=40)
            assert await first.sender.action(click("U0GRACE", "C1", card, cards.APPROVE)) == 200
            await first.model_called(2)  # the change is made; its report is being written
            assert await first.terminated() == 0, first.log.read_text()
        finally:
            first.stop()
        assert rows(workspace_url, tasks) == [(1,)]
        assert INTERRUPTED in api.answers("C1"), api.answers("C1")
        running = "select count(*) from agent_runs where status = 'running'"
        assert rows(workspace_url, running) == [(0,)]

        second = Worker(workspace_url, tmp_path, api, "second")
        await second.start([{"content": DONE}])
        try:
            await second.sender.event(message("C1", "U0GRACE", "continue", "910.3", "910.1"))
            await api.wait_for_answer(DONE, within=40)
        finally:
            second.stop()
    assert rows(workspace_url, tasks) == [(1,)]
    assert rows(workspace_url, running) == [(0,)]


async def test_sigterm_mid_turn_in_socket_mode_closes_the_socket_and_stops_cleanly(
    workspace_url: str, tmp_path: Path, checkpoints: None
) -> None:
    with MockSlackApi() as api:
        worker = Worker(workspace_url, tmp_path, api, "socket")
        worker.script.write_text(json.dumps([{"content": "Too late.", "delay_s": SLOW}]))
        env = {**worker.env, "SLACK_APP_TOKEN": "xapp-test"}
        worker.process = start_socket_mode(env)
        try:
            assert worker.process.stderr is not None
            line = await asyncio.wait_for(asyncio.to_thread(worker.process.stderr.readline), 60)
            assert "connected in Socket Mode" in line, line
            body = worker.sender.event_body(
                mention("C1", "U0GRACE", "who owns Garlic Press?", "920.2", "920.1")
            )
            await asyncio.to_thread(api.push, body)
            await worker.model_called(1)
            assert await worker.terminated() == 0
        finally:
            worker.stop()
        assert INTERRUPTED in api.answers("C1"), api.answers("C1")
        [socket] = api.sockets
        assert socket.closed
    assert rows(workspace_url, "select status from agent_runs") == [("interrupted",)]
