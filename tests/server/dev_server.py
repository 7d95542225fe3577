"""What the server tests share: the running dev server, scripted turns, the workspace's tasks."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine, func, select

from core.db.engine import sync_url
from core.db.models import Task
from core.settings import Settings

DONE = "Done: the task is created."
"""What the server's default model answers."""


@dataclass(frozen=True)
class DevServer:
    """A running `langgraph dev`: where it listens and the workspace its graphs use."""

    url: str
    workspace_url: str
    transcript: Path
    """Where the scripted models append every request they receive (JSONL)."""

    def tasks_titled(self, title: str) -> int:
        """Count the workspace's tasks with this title."""
        settings = Settings(_env_file=None, database_url=self.workspace_url)
        engine = create_engine(sync_url(settings))
        try:
            with engine.connect() as conn:
                query = select(func.count()).select_from(Task).where(Task.title == title)
                return conn.execute(query).scalar_one()
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
