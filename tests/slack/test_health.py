"""`GET /health`: 200 while the workspace database and the checkpointer answer, 503 when not."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import pytest

from tests.support.tcp_proxy import TcpProxy


async def get_health(events_url: str) -> tuple[int, dict]:
    url = events_url.replace("/slack/events", "/health")
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.json()


async def test_health_is_200_when_everything_answers(open_slack_app, workspace_url: str) -> None:
    async with open_slack_app([], database_url=workspace_url) as slack:
        status, body = await get_health(slack.url)
    assert (status, body) == (200, {"ok": True})


@pytest.fixture
async def proxy(workspace_url: str) -> AsyncIterator[TcpProxy]:
    parts = urlsplit(workspace_url)
    async with TcpProxy(parts.hostname or "127.0.0.1", parts.port or 5432) as server:
        yield server


@pytest.mark.parametrize("workspace_url", ["postgres"], indirect=True)
async def test_health_is_503_with_a_reason_when_the_database_refuses(
    open_slack_app, workspace_url: str, proxy: TcpProxy
) -> None:
    parts = urlsplit(workspace_url)
    through_proxy = urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{proxy.port}"))
    async with open_slack_app([], database_url=through_proxy, checkpoint_wait_s=1) as slack:
        assert (await get_health(slack.url))[0] == 200
        await proxy.down()
        status, body = await get_health(slack.url)
        assert status == 503
        assert body["ok"] is False and body["reason"].startswith("workspace database:")
        assert len(body["reason"]) <= 200
        await proxy.up()
        # Back within moments: a pooled connection the outage broke is discarded on its
        # first use (one lent less than FRESH_S before is lent again unchecked).
        deadline = time.monotonic() + 5
        while (await get_health(slack.url))[0] != 200:
            assert time.monotonic() < deadline, "health never recovered"
            await asyncio.sleep(0.1)
