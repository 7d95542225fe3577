"""Where a conversation lives in Slack, and the runner's thread id for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SlackThread:
    """A Slack thread: the workspace, the channel and the ts of the thread's first message."""

    team: str
    channel: str
    thread_ts: str

    @property
    def thread_id(self) -> str:
        """Return the runner's thread id, `team:channel:thread_ts`."""
        return f"{self.team}:{self.channel}:{self.thread_ts}"

    @classmethod
    def parse(cls, thread_id: str) -> SlackThread:
        """Return the thread a `team:channel:thread_ts` id names."""
        team, channel, thread_ts = thread_id.split(":", 2)
        return cls(team, channel, thread_ts)

    @classmethod
    def of_message(cls, team: str, event: dict[str, Any]) -> SlackThread:
        """Return the thread a message event belongs to (a top-level message opens one)."""
        return cls(team, str(event["channel"]), str(event.get("thread_ts") or event["ts"]))
