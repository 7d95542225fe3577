"""What the server tests share: the running dev server, scripted turns, the workspace's tasks."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import create_engine, func, select

from app.db.engine import sync_url
from app.db.models import Task
from app.settings import Settings

DONE = "Done: the task is created."
"""What the server's default model answers."""


@dataclass(frozen=True)
class DevServer:
    """A running `langgraph dev`: where it listens and the workspace its graphs use."""

    url: str
    workspace_url: str

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


def create_task(title: str) -> dict[str, object]:
    """A scripted turn that proposes creating a task with this title."""
    args = {"client": "Thorinox", "brand": "Garlic Press", "title": title}
    return {"tool_calls": [{"name": "create_task", "args": args}]}
