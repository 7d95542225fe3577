"""The live status of a turn: a placeholder posted at once, edited as `agent_state` changes.

Edits run beside the turn (the runner never waits on Slack) and are spaced out by the
configured interval, the latest state winning; `finish` replaces the placeholder with the
answer once the last edit has landed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from app.slack.formatting import STATUS_LABELS, split, status_text, to_mrkdwn
from app.slack.threads import SlackThread

logger = logging.getLogger(__name__)


class LiveStatus:
    """One placeholder message in a thread that becomes the turn's answer."""

    def __init__(
        self,
        client: AsyncWebClient,
        thread: SlackThread,
        interval_s: float,
        max_chars: int,
    ) -> None:
        self._client = client
        self._thread = thread
        self._interval = interval_s
        self._max_chars = max_chars
        self.ts: str | None = None
        self._shown = ""
        self._wanted = ""
        self._edited_at = 0.0
        self._editor: asyncio.Task[None] | None = None

    async def post(self, label: str = STATUS_LABELS["thinking"]) -> None:
        """Post the placeholder in the thread."""
        self._shown = self._wanted = status_text(label)
        response = await self._client.chat_postMessage(
            channel=self._thread.channel, thread_ts=self._thread.thread_ts, text=self._shown
        )
        self.ts = str(response["ts"])
        self._edited_at = time.monotonic()

    def show(self, label: str) -> None:
        """Ask for the status line to say `label` (edited soon, without waiting)."""
        self._wanted = status_text(label)
        if self._editor is None or self._editor.done():
            self._editor = asyncio.create_task(self._edit())

    async def __call__(self, event: dict[str, Any]) -> None:
        """Handle one run event (the runner's `on_event`)."""
        if event.get("type") == "agent_state":
            self.show(STATUS_LABELS.get(str(event.get("state")), str(event.get("state"))))

    async def _edit(self) -> None:
        while self.ts is not None and self._wanted != self._shown:
            wait = self._interval - (time.monotonic() - self._edited_at)
            if wait > 0:
                await asyncio.sleep(wait)
            text = self._wanted
            try:
                await self._client.chat_update(channel=self._thread.channel, ts=self.ts, text=text)
            except SlackApiError:
                # A status line is best effort; the answer is what must arrive.
                logger.exception("could not update the status in %s", self._thread.thread_id)
                return
            self._shown, self._edited_at = text, time.monotonic()

    async def finish(self, text: str, blocks: list[dict[str, Any]] | None = None) -> None:
        """Replace the placeholder with the answer (split when long) or a card."""
        if self._editor is not None:
            self._editor.cancel()
            await asyncio.gather(self._editor, return_exceptions=True)
        chunks = split(to_mrkdwn(text), self._max_chars) or ["(no reply)"]
        first, rest = chunks[0], chunks[1:]
        if blocks is not None:
            # A card keeps the question in its own first block; the rest follows it.
            first, rest = text[: self._max_chars], []
        if self.ts is None:
            await self.post_in_thread(first, blocks)
        else:
            extra: dict[str, Any] = {"blocks": blocks} if blocks is not None else {}
            await self._client.chat_update(
                channel=self._thread.channel, ts=self.ts, text=first, **extra
            )
        for chunk in rest:
            await self.post_in_thread(chunk)

    async def remove(self) -> None:
        """Delete the placeholder (the turn posts nothing)."""
        if self._editor is not None:
            self._editor.cancel()
            await asyncio.gather(self._editor, return_exceptions=True)
        if self.ts is not None:
            await self._client.chat_delete(channel=self._thread.channel, ts=self.ts)
            self.ts = None

    async def post_in_thread(self, text: str, blocks: list[dict[str, Any]] | None = None) -> str:
        """Post one more message in the thread; return its ts."""
        extra: dict[str, Any] = {"blocks": blocks} if blocks is not None else {}
        response = await self._client.chat_postMessage(
            channel=self._thread.channel, thread_ts=self._thread.thread_ts, text=text, **extra
        )
        return str(response["ts"])
