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

from app.db.engine import open_database
from app.settings import Settings
from app.slack.bolt import SlackRuntime, open_slack
from app.slack.settings import SlackSettings
from tests.support.slack_api import MockSlackApi, SlackSender

SECRET = "test-signing-secret"


@dataclass
class SlackHarness:
    """What a Slack test drives and observes."""

    api: MockSlackApi
    sender: SlackSender
    runtime: SlackRuntime
    settings: Settings
    workspace_url: str

    async def tasks(self, title: str) -> int:
        """Count the workspace's tasks with this title."""
        from sqlalchemy import func, select

        from app.db.models import Task

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
def slack_settings(slack_api: MockSlackApi) -> SlackSettings:
    """Slack settings pointing at the mock Web API (no status throttling)."""
    return SlackSettings(
        _env_file=None,
        bot_token="xoxb-test",
        signing_secret=SECRET,
        api_url=slack_api.url,
        status_interval_s=0,
    )


@pytest.fixture
def open_slack_app(
    slack_api: MockSlackApi,
    slack_settings: SlackSettings,
    make_settings: Callable[..., Settings],
    write_script: Callable[[list[dict[str, Any]]], str],
    sqlite_template: Path,
    tmp_path: Path,
) -> Callable[..., Any]:
    """Serve the Bolt app over HTTP on loopback for a scripted model; yield the harness."""

    @asynccontextmanager
    async def opener(
        turns: list[dict[str, Any]], slack: SlackSettings | None = None, **overrides: Any
    ) -> AsyncIterator[SlackHarness]:
        path = tmp_path / "workspace.sqlite"
        if not path.exists():
            shutil.copy(sqlite_template, path)
        values: dict[str, Any] = {
            "model": write_script(turns),
            "database_url": f"sqlite:///{path}",
        }
        values.update(overrides)
        settings = make_settings(**values)
        async with open_slack(settings, slack or slack_settings) as runtime:
            runner = web.AppRunner(runtime.app.web_app(path="/slack/events"))
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            sender = SlackSender(f"http://127.0.0.1:{port}/slack/events", SECRET)
            try:
                yield SlackHarness(slack_api, sender, runtime, settings, values["database_url"])
            finally:
                await runner.cleanup()

    return opener
