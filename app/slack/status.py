"""Progress while a turn runs, the answer streamed into a new message, then the progress cleared.

The progress is the assistant status under the composer (`assistant.threads.setStatus`,
with `loading_messages`), as Slack's AI apps show it, in DMs, the assistant pane and channel
threads; where Slack refuses the status it is a placeholder message ("thinking…") edited as
the run's `agent_state` changes (`ChannelStatus` remembers a refusal in channels). The
answer streams into a new message as the model writes it, its tool calls as task lines
(`AnswerStream`); a card, or an answer whose stream could not start, is posted as a
new message. Then the placeholder is deleted or the status cleared.

Progress is best effort: a placeholder or status Slack refuses (a 429 past the retries,
an error) is logged and the turn goes on; only the answer must arrive.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, Literal

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from app.slack.answer_stream import AnswerStream, with_text
from app.slack.formatting import STATUS_LABELS, loading_messages, split, status_text, to_mrkdwn
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
        answer: AnswerStream | None = None,
        on_refused: Callable[[str], None] | None = None,
    ) -> None:
        """Follow one turn's progress in `thread`, starting in `mode`.

        `on_refused`: told Slack's error when the status is refused (a channel thread's
        turn: any refusal, a rate limit too, falls back to the placeholder).
        """
        self._client = client
        self._on_refused = on_refused
        self.answer = answer
        """Where the answer streams (None: it is posted whole at the end)."""
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
                error = str(exc.response.get("error"))
                if self._on_refused is not None:
                    self._on_refused(error)
                elif error == "ratelimited":
                    logger.warning("assistant status rate limited in %s", self._thread.thread_id)
                    return
                # Not an assistant thread (e.g. a DM outside the assistant container), or a
                # channel thread where Slack refuses the status.
                logger.info(
                    "no assistant status in %s (%s): a placeholder instead",
                    self._thread.thread_id,
                    error,
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
        elif self.answer is None:
            return
        elif kind == "chunk":
            self.answer.text(str(event.get("text", "")))
        elif kind == "draft.reset":
            await self.answer.withdraw()
            if event.get("reason") == "rejected":
                self.show(STATUS_LABELS["rewriting"])
        elif kind == "tool.call":
            self.answer.task(str(event["id"]), str(event["name"]), event.get("args"))
        elif kind == "tool.result":
            self.answer.task(str(event["id"]), str(event["name"]), ok=not event.get("is_error"))
        elif kind == "plan_created":
            self.answer.plan(str(event["plan_id"]), [str(s) for s in event.get("steps") or []])
        elif kind in ("step_start", "step_complete"):
            status = "in_progress" if kind == "step_start" else "complete"
            self.answer.step(str(event["plan_id"]), int(event["index"]), "", status)

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
        footer: list[dict[str, Any]] | None = None,
    ) -> None:
        """Leave the answer (streamed, or posted and split when long) or a card, then clear.

        `footer`: blocks under the answer's (last) message, e.g. buttons about the answer.
        """
        await self._stop_editing()
        if blocks is not None:
            if self.answer is not None:
                await self.answer.close()  # its task lines stay, above the card
            # A card keeps the question in its blocks; `text` is the notification's.
            await self.post_in_thread(text[: self._max_chars], blocks)
        elif self.answer is None or not await self.answer.finish(text, footer):
            first, *rest = split(to_mrkdwn(text), self._max_chars) or ["(no reply)"]
            last = {"blocks": with_text(first, footer)} if footer and not rest else {}
            try:
                await self.post_in_thread(first, last.get("blocks"))
            except SlackApiError:
                if self.ts is None:
                    raise
                # Posting is refused (rate limited past the retries): the answer takes the
                # placeholder's place instead, so it is not lost.
                logger.exception("could not post the answer in %s", self._thread.thread_id)
                await self._client.chat_update(
                    channel=self._thread.channel, ts=self.ts, text=first, blocks=last.get("blocks")
                )
                self.ts = None
            for number, chunk in enumerate(rest, start=1):
                end = footer is not None and number == len(rest)
                await self.post_in_thread(chunk, with_text(chunk, footer) if end else None)
        await self.clear()

    async def remove(self) -> None:
        """Clear the progress without posting anything (the turn says nothing)."""
        await self._stop_editing()
        if self.answer is not None:
            await self.answer.withdraw()
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
            loading_messages=loading_messages(label) if label else None,
        )

    async def _stop_editing(self) -> None:
        if self._editor is not None:
            self._editor.cancel()
            await asyncio.gather(self._editor, return_exceptions=True)
