"""Progress while a turn runs, then the answer as a new message that notifies.

In a channel the progress is a placeholder message ("thinking…") edited as the run's
`agent_state` changes; in a DM or an assistant thread it is the assistant status under the
composer (`assistant.threads.setStatus`), as Slack's AI apps show it. Either way the answer
(or a card) is posted as a new message — so the notification people get shows the answer,
not "thinking…" — and then the placeholder is deleted or the status cleared.

Progress is best effort: a placeholder or status Slack refuses (a 429 past the retries,
an error) is logged and the turn goes on; only the answer must arrive.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Literal

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from app.slack.feedback_buttons import answer_blocks
from app.slack.formatting import STATUS_LABELS, split, status_text, to_mrkdwn
from app.slack.threads import SlackThread

logger = logging.getLogger(__name__)

Mode = Literal["placeholder", "assistant"]


class LiveStatus:
    """A turn's progress in its thread (a placeholder or the assistant status) and its answer."""

    def __init__(
        self,
        client: AsyncWebClient,
        thread: SlackThread,
        interval_s: float,
        max_chars: int,
        mode: Mode = "placeholder",
    ) -> None:
        self._client = client
        self._thread = thread
        self._interval = interval_s
        self._max_chars = max_chars
        self.mode: Mode = mode
        self.ts: str | None = None
        """The placeholder's ts (placeholder mode, once posted)."""
        self.run_id: str | None = None
        """The run's id, from its `run.started` event (for an apology)."""
        self._shown = ""
        self._wanted = ""
        self._edited_at = 0.0
        self._editor: asyncio.Task[None] | None = None

    async def post(self, label: str = STATUS_LABELS["thinking"]) -> None:
        """Show the first progress line (a placeholder, or the assistant status)."""
        self._shown = self._wanted = label
        self._edited_at = time.monotonic()
        if self.mode == "assistant":
            try:
                await self._set_assistant_status(label)
                return
            except SlackApiError as exc:
                if exc.response.get("error") == "ratelimited":
                    logger.warning("assistant status rate limited in %s", self._thread.thread_id)
                    return
                # Not an assistant thread (e.g. a DM outside the assistant container).
                logger.info(
                    "no assistant status in %s (%s): a placeholder instead",
                    self._thread.thread_id,
                    exc.response.get("error"),
                )
                self.mode = "placeholder"
        try:
            self.ts = await self.post_in_thread(status_text(label))
        except SlackApiError:
            logger.exception("could not post the placeholder in %s", self._thread.thread_id)

    def show(self, label: str) -> None:
        """Ask for the progress to say `label` (changed soon, without waiting)."""
        self._wanted = label
        if self._editor is None or self._editor.done():
            self._editor = asyncio.create_task(self._edit())

    async def __call__(self, event: dict[str, Any]) -> None:
        """Handle one run event (the runner's `on_event`)."""
        kind = event.get("type")
        if kind == "run.started" and self.run_id is None:
            self.run_id = str(event.get("run_id") or "") or None
        elif kind == "agent_state":
            self.show(STATUS_LABELS.get(str(event.get("state")), str(event.get("state"))))

    async def _edit(self) -> None:
        while self._wanted != self._shown:
            wait = self._interval - (time.monotonic() - self._edited_at)
            if wait > 0:
                await asyncio.sleep(wait)
            label = self._wanted
            try:
                if self.mode == "assistant":
                    await self._set_assistant_status(label)
                elif self.ts is not None:
                    await self._client.chat_update(
                        channel=self._thread.channel, ts=self.ts, text=status_text(label)
                    )
            except SlackApiError:
                # Progress is best effort; the answer is what must arrive.
                logger.exception("could not update the status in %s", self._thread.thread_id)
                return
            self._shown, self._edited_at = label, time.monotonic()

    async def finish(
        self,
        text: str,
        blocks: list[dict[str, Any]] | None = None,
        feedback_run: str | None = None,
    ) -> None:
        """Post the answer (split when long) or a card as new messages, then clear the progress.

        `feedback_run`: the run whose answer this is; its last message carries the feedback
        buttons.
        """
        await self._stop_editing()
        if blocks is not None:
            # A card keeps the question in its blocks; `text` is the notification's.
            await self.post_in_thread(text[: self._max_chars], blocks)
        else:
            chunks = split(to_mrkdwn(text), self._max_chars) or ["(no reply)"]
            extras: list[list[dict[str, Any]] | None] = [None] * len(chunks)
            if feedback_run:
                extras[-1] = answer_blocks(chunks[-1], feedback_run)
            try:
                await self.post_in_thread(chunks[0], extras[0])
            except SlackApiError:
                if self.ts is None:
                    raise
                # Posting is refused (rate limited past the retries): the answer takes the
                # placeholder's place instead, so it is not lost.
                logger.exception("could not post the answer in %s", self._thread.thread_id)
                await self._client.chat_update(
                    channel=self._thread.channel,
                    ts=self.ts,
                    text=chunks[0],
                    blocks=extras[0],
                )
                self.ts = None
            for chunk, extra in zip(chunks[1:], extras[1:], strict=True):
                await self.post_in_thread(chunk, extra)
        await self.clear()

    async def remove(self) -> None:
        """Clear the progress without posting anything (the turn says nothing)."""
        await self._stop_editing()
        await self.clear()

    async def clear(self) -> None:
        """Delete the placeholder, or clear the assistant status."""
        try:
            if self.mode == "assistant":
                await self._set_assistant_status("")
            elif self.ts is not None:
                await self._client.chat_delete(channel=self._thread.channel, ts=self.ts)
                self.ts = None
        except SlackApiError:
            logger.exception("could not clear the status in %s", self._thread.thread_id)

    async def post_in_thread(self, text: str, blocks: list[dict[str, Any]] | None = None) -> str:
        """Post one more message in the thread; return its ts."""
        extra: dict[str, Any] = {"blocks": blocks} if blocks is not None else {}
        response = await self._client.chat_postMessage(
            channel=self._thread.channel, thread_ts=self._thread.thread_ts, text=text, **extra
        )
        return str(response["ts"])

    async def _set_assistant_status(self, label: str) -> None:
        await self._client.assistant_threads_setStatus(
            channel_id=self._thread.channel,
            thread_ts=self._thread.thread_ts,
            status=f"is {label}" if label else "",
        )

    async def _stop_editing(self) -> None:
        if self._editor is not None:
            self._editor.cancel()
            await asyncio.gather(self._editor, return_exceptions=True)
