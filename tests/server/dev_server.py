"""What the server tests share: the running dev server, scripted turns, the workspace's tasks."""

from __future__ import annotations

import json
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from sqlalchemy import create_engine, select

from core.db.engine import sync_url
from core.db.models import ConfirmationRecord, MutationReceipt, ProposalRecord
from core.settings import Settings
from tools.agency.models import Task

DONE = "Done: the task is created."
"""What the server's default model answers."""
TOKENS = {
    "U0GRACE": "grace-token",
    "U0LINUS": "linus-token",
    "U0ADA": "ada-token",
    "U0MAYA": "maya-token",
    "slack-worker": "worker-token",
}
"""The callers an authenticating server knows (the demo team, and a relay)."""
TEAM = frozenset({"U0ADA", "U0GRACE", "U0LINUS", "U0OMAR", "U0MAYA"})
"""The people the seeded workspace lists (by Slack id)."""
LISTED_MODEL = "openai:gpt-4o-mini"
"""A model the operator of `authed_server` lists for runs to choose."""


@dataclass(frozen=True)
class DevServer:
    """A running `langgraph dev`: where it listens and the workspace its graphs use."""

    url: str
    workspace_url: str
    transcript: Path
    """Where the scripted models append every request they receive (JSONL)."""

    def client(self, user: str | None = None) -> Any:
        """An SDK client, as `user` (sending their token) or, with None, sending none."""
        headers = {"Authorization": f"Bearer {TOKENS[user]}"} if user else None
        return get_client(url=self.url, headers=headers)

    def tasks_titled(self, title: str) -> int:
        """Count the workspace's tasks with this title."""
        return len(self.task_creators(title))

    def task_creators(self, title: str) -> list[str]:
        """Who created each of the workspace's tasks with this title."""
        settings = Settings(_env_file=None, database_url=self.workspace_url)
        engine = create_engine(sync_url(settings))
        try:
            with engine.connect() as conn:
                query = select(Task.created_by).where(Task.title == title).order_by(Task.id)
                return list(conn.execute(query).scalars())
        finally:
            engine.dispose()

    def recorded_people(self) -> set[str]:
        """Every id the workspace records as creating, proposing or deciding on a change."""
        settings = Settings(_env_file=None, database_url=self.workspace_url)
        engine = create_engine(sync_url(settings))
        columns = (
            Task.created_by,
            ProposalRecord.actor,
            ConfirmationRecord.decided_by,
            MutationReceipt.actor,
        )
        try:
            with engine.connect() as conn:
                return {str(v) for c in columns for v in conn.execute(select(c)).scalars() if v}
        finally:
            engine.dispose()

    def model_requests(self) -> list[list[str]]:
        """Every request the server's scripted models received: the human messages in each."""
        if not self.transcript.exists():
            return []
        lines = self.transcript.read_text(encoding="utf-8").splitlines()
        requests = [json.loads(line)["messages"] for line in lines]
        return [[m["data"]["content"] for m in r if m["type"] == "human"] for r in requests]


def create_task(title: str) -> dict[str, object]:
    """A scripted turn that proposes creating a task with this title."""
    args = {"client": "Thorinox", "brand": "Garlic Press", "title": title}
    return {"tool_calls": [{"name": "create_task", "args": args}]}


async def refusal(call: Awaitable[Any], status: int = 403) -> str:
    """Await a request the server must refuse with `status`; return its one-line reason."""
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await call
    response = refused.value.response
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail, detail
    return detail
