"""The real Bolt app served over HTTP on loopback, its Web API pointed at a mock Slack."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from app.slack.runtime import SlackRuntime, open_slack
from checkpoints.savers import setup_checkpointer
from core.db.engine import open_database
from core.settings import Settings
from core.settings_sections import SlackSection
from tests.support.slack_api import MockSlackApi
from tests.support.slack_sender import SlackSender

SECRET = "test-signing-secret"


@dataclass
class SlackHarness:
    """What a Slack test drives and observes."""

    api: MockSlackApi
    sender: SlackSender
    runtime: SlackRuntime
    settings: Settings
    workspace_url: str
    url: str
    """The app's `/slack/events` URL."""

    async def history(self, thread_id: str) -> list[Any]:
        """Return the thread's checkpointed messages (read on the app's turn loop)."""
        return await self.runtime.call(lambda c: c.runner.history(thread_id))

    async def pending(self, thread_id: str) -> Any:
        """Return the thread's pending confirmation request, if any."""
        return await self.runtime.call(lambda c: c.runner.pending(thread_id))

    async def processed(self, event_id: str) -> int:
        """Count the `processed_events` rows of an event id."""
        from sqlalchemy import func, select

        from core.db.models import ProcessedEvent

        db = open_database(self.settings)
        try:
            async with db.session() as session:
                found = await session.scalar(
                    select(func.count())
                    .select_from(ProcessedEvent)
                    .where(ProcessedEvent.event_id == event_id)
                )
        finally:
            await db.dispose()
        return int(found or 0)

    async def runs(self, thread_id: str) -> list[Any]:
        """The thread's `agent_runs` rows, once the app's audit has written what ended."""
        from sqlalchemy import select

        from core.db.models import AgentRun

        async def written(conversations: Any) -> None:
            audit = conversations.runner.driver.audit
            if audit is not None:
                await audit.drain()

        await self.runtime.call(written)
        db = open_database(self.settings)
        try:
            async with db.session() as session:
                found = await session.scalars(
                    select(AgentRun).where(AgentRun.thread_id == thread_id)
                )
                return list(found)
        finally:
            await db.dispose()

    async def tasks(self, title: str) -> int:
        """Count the workspace's tasks with this title."""
        from sqlalchemy import func, select

        from tools.agency.models import Task

        db = open_database(self.settings)
        try:
            async with db.session() as session:
                found = await session.scalar(
                    select(func.count()).select_from(Task).where(Task.title == title)
                )
        finally:
            await db.dispose()
        return int(found or 0)


@pytest.fixture(autouse=True)
def _no_slack_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No developer Slack setting leaks into a test (monkeypatch restores them)."""
    for name in list(os.environ):
        if name.startswith("SLACK_"):
            monkeypatch.delenv(name)


@pytest.fixture
def slack_api() -> Iterator[MockSlackApi]:
    """A mock Slack Web API on loopback."""
    with MockSlackApi() as api:
        yield api


@pytest.fixture
def slack_settings(slack_api: MockSlackApi) -> SlackSection:
    """Slack settings pointing at the mock Web API (no status or stream throttling)."""
    return SlackSection(
        bot_token="xoxb-test",
        signing_secret=SECRET,
        api_url=slack_api.url,
        status_interval_s=0,
        stream_interval_s=0,
    )


@pytest.fixture
def open_slack_app(
    slack_api: MockSlackApi,
    slack_settings: SlackSection,
    make_settings: Callable[..., Settings],
    write_script: Callable[[list[dict[str, Any]]], str],
    sqlite_template: Path,
    tmp_path: Path,
) -> Callable[..., Any]:
    """Serve the Bolt app over HTTP on loopback for a scripted model; yield the harness."""

    @asynccontextmanager
    async def opener(
        turns: list[dict[str, Any]], slack: SlackSection | None = None, **overrides: Any
    ) -> AsyncIterator[SlackHarness]:
        """`database_url` may name a PostgreSQL database: its checkpointer is then PostgreSQL."""
        values: dict[str, Any] = {"model": write_script(turns)}
        values.update(overrides)
        if not values.get("database_url"):
            path = tmp_path / "workspace.sqlite"
            if not path.exists():
                shutil.copy(sqlite_template, path)
            values["database_url"] = f"sqlite:///{path}"
        elif values["database_url"].startswith("postgresql") and "checkpointer" not in overrides:
            values["checkpointer"] = "postgres"
        settings = make_settings(**values)
        if settings.checkpointer_kind() == "postgres":
            await setup_checkpointer(settings)
        async with open_slack(settings, slack or slack_settings) as runtime:
            runner = web.AppRunner(runtime.web_app())
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            url = f"http://127.0.0.1:{port}/slack/events"
            sender = SlackSender(url, SECRET)
            try:
                yield SlackHarness(
                    slack_api, sender, runtime, settings, values["database_url"], url
                )
            finally:
                await runner.cleanup()

    return opener
