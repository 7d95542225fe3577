"""One turn's answer streamed into one Slack message, its tool calls and plan steps as tasks.

Built on slack_sdk's `chat_stream` (`chat.startStream` / `appendStream` / `stopStream`).
The first words go out at once (a task line before them does not hold them back), later
ones at most every `stream_interval_s`. The message
only ever ends as the turn's final text: a draft the checks send back is withdrawn (its
message deleted), a final text that differs from what streamed replaces it, and a long
answer streams up to the message limit and continues in new messages. When a stream call is
refused (a 429 past the retries), nothing more is streamed and `finish` delivers the whole
answer once: in the streamed message when it exists, otherwise by the caller's plain post.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.models.messages.chunk import (
    Chunk,
    MarkdownTextChunk,
    PlanUpdateChunk,
    TaskUpdateChunk,
)
from slack_sdk.web.async_chat_stream import AsyncChatStream
from slack_sdk.web.async_client import AsyncWebClient

from app.slack.formatting import split, to_mrkdwn
from app.slack.threads import SlackThread

logger = logging.getLogger(__name__)
SECTION_CHARS = 3000
"""Slack's limit on a section block's text."""

TASK_DONE = {True: "complete", False: "error"}


def task_title(name: str, args: Any) -> str:
    """A task's line: the tool and the first thing it was asked about."""
    first = next(iter(args.values()), None) if isinstance(args, dict) and args else None
    shown = str(first) if isinstance(first, str | int | float) else ""
    return f"{name}: {shown[:60]}" if shown else name


class AnswerStream:
    """Streams a turn's text and tool calls into one message; `finish` settles it."""

    def __init__(
        self,
        client: AsyncWebClient,
        thread: SlackThread,
        recipient_user: str,
        interval_s: float,
        max_chars: int,
    ) -> None:
        self._client = client
        self._thread = thread
        self._recipient = recipient_user
        self._interval = interval_s
        self._max_chars = max_chars
        self._stream: AsyncChatStream | None = None
        self._pending: list[Chunk] = []
        self._sent_at = 0.0
        self._sender: asyncio.Task[None] | None = None
        self._appending = False
        """An append is on its way to Slack (what `finish` waits for)."""
        self.shown = ""
        """The text streamed into the message so far (sent, not only queued)."""
        self._queued = ""
        self._tasks: dict[str, str] = {}
        self.refused = False
        """A stream call was refused: nothing more streams; `finish` replaces the message."""

    @property
    def ts(self) -> str | None:
        """The streamed message's ts, once Slack started it."""
        return self._stream.ts if self._stream is not None else None

    def text(self, piece: str) -> None:
        """Queue a fragment of the draft (the part past the message limit waits for `finish`)."""
        room = self._max_chars - len(self._queued)
        if room <= 0 or not piece:
            return
        piece = piece[:room]
        self._queued += piece
        self._queue(MarkdownTextChunk(text=piece))

    def task(self, call_id: str, name: str, args: Any = None, ok: bool | None = None) -> None:
        """Queue a tool call's task line: running (`ok` None), then complete or failed."""
        title = self._tasks.setdefault(call_id, task_title(name, args))
        status = "in_progress" if ok is None else TASK_DONE[ok]
        self._queue(TaskUpdateChunk(id=call_id, title=title, status=status))

    def plan(self, plan_id: str, steps: list[str]) -> None:
        """Queue a plan: its title, then each step as a task line, pending until it starts."""
        self._queue(PlanUpdateChunk(title=f"Plan: {len(steps)} step(s)"))
        for index, step in enumerate(steps, start=1):
            self.step(plan_id, index, step, "pending")

    def step(self, plan_id: str, index: int, title: str, status: str) -> None:
        """Queue a plan step's line (`pending`, `in_progress`, `complete`)."""
        key = f"{plan_id}:{index}"
        shown = self._tasks.setdefault(key, f"{index}. {title}"[:120])
        self._queue(TaskUpdateChunk(id=key, title=shown, status=status))

    async def close(self) -> None:
        """End the stream as it is (its task lines stay): a card or nothing follows it."""
        await self._stop_sending()
        if self._stream is None or self._stream.ts is None or self.refused:
            return
        try:
            await self._stream.stop()
        except (SlackApiError, SlackRequestError):
            logger.info("could not end the stream in %s", self._thread.thread_id)

    async def withdraw(self) -> None:
        """Take the draft back: nothing queued is sent, a started message is deleted."""
        await self._stop_sending()
        self._queued = ""
        stream, self._stream, self.shown, self._tasks = self._stream, None, "", {}
        if stream is None or stream.ts is None:
            return
        try:
            if not self.refused:
                await stream.stop()
        except (SlackApiError, SlackRequestError):
            logger.info("could not stop a withdrawn stream in %s", self._thread.thread_id)
        try:
            await self._client.chat_delete(channel=self._thread.channel, ts=stream.ts)
        except SlackApiError:
            logger.exception("could not delete a withdrawn draft in %s", self._thread.thread_id)

    async def finish(self, text: str, footer: list[dict[str, Any]] | None = None) -> bool:
        """Leave the final `text` (with `footer` blocks under it); False: nothing streamed.

        On False the caller posts the answer itself (no message of this stream exists).
        """
        began = bool(self._queued)
        await self._stop_sending()
        if not text.strip():
            await self.withdraw()
            return True
        if self._stream is None and began and not self.refused:
            self._streamer()  # its words were queued, not yet sent: they start it now
        if self._stream is None or (self._stream.ts is None and self.refused):
            return False
        first, *rest = split(text, self._max_chars)
        try:
            # The footer goes under the answer's last message.
            settled = await self._settle(first, None if rest else footer)
        except SlackApiError:
            # Not even replaced: the half-streamed message goes, the caller posts the answer.
            logger.exception("could not leave the answer in %s's stream", self._thread.thread_id)
            await self.withdraw()
            return False
        if not settled:
            return False
        for number, piece in enumerate(rest, start=1):
            last = footer is not None and number == len(rest)
            extra: dict[str, Any] = {"blocks": with_text(piece, footer)} if last else {}
            await self._client.chat_postMessage(
                channel=self._thread.channel,
                thread_ts=self._thread.thread_ts,
                text=to_mrkdwn(piece),
                **extra,
            )
        return True

    async def _settle(self, first: str, footer: list[dict[str, Any]] | None) -> bool:
        """End the message as `first`: the rest of the text appended, or the text replaced.

        False: the message never started (the caller posts the answer instead).
        """
        assert self._stream is not None
        if not self.refused and first.startswith(self.shown):
            try:
                await self._stream.stop(markdown_text=first[len(self.shown) :], blocks=footer)
                self.shown = first
                return True
            except SlackApiError:
                logger.exception("could not end the stream in %s", self._thread.thread_id)
                self.refused = True
                if self._stream.ts is None:
                    return False
        elif not self.refused:
            try:
                await self._stream.stop(blocks=footer)
            except SlackApiError:
                logger.info("could not end the stream in %s", self._thread.thread_id)
        # The message streamed something else (or stopped half-way): it becomes the answer.
        extra: dict[str, Any] = {"blocks": with_text(first, footer)} if footer else {}
        await self._client.chat_update(
            channel=self._thread.channel, ts=str(self._stream.ts), text=to_mrkdwn(first), **extra
        )
        self.shown = first
        return True

    def _queue(self, chunk: Chunk) -> None:
        if self.refused:
            return
        self._pending.append(chunk)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send())

    async def _send(self) -> None:
        while self._pending and not self.refused:
            wait = self._interval - (time.monotonic() - self._sent_at)
            # Only words already shown pace the next ones: the first words never wait on a
            # task line or on blank text sent before them.
            if self.shown.strip() and wait > 0:
                await asyncio.sleep(wait)
            chunks, self._pending = _merged(self._pending), []
            try:
                self._appending = True
                await self._streamer().append(chunks=chunks)
            except (SlackApiError, SlackRequestError):
                # The answer still arrives whole: `finish` puts it in place.
                logger.exception("streaming stopped in %s", self._thread.thread_id)
                self.refused = True
                return
            finally:
                self._appending = False
            self.shown += "".join(c.text for c in chunks if isinstance(c, MarkdownTextChunk))
            self._sent_at = time.monotonic()

    def _streamer(self) -> AsyncChatStream:
        if self._stream is None:
            self._stream = AsyncChatStream(
                self._client,
                logger=logger,
                channel=self._thread.channel,
                thread_ts=self._thread.thread_ts,
                recipient_team_id=self._thread.team,
                recipient_user_id=self._recipient,
                task_display_mode="timeline",
                buffer_size=1,
            )
        return self._stream

    async def _stop_sending(self) -> None:
        """Let what is being sent arrive; drop what is only queued (the caller settles it)."""
        if self._sender is not None and not self._sender.done():
            self._pending = []
            if not self._appending:  # only waiting for the interval: nothing is on its way
                self._sender.cancel()
            await asyncio.gather(self._sender, return_exceptions=True)
        self._pending = []
        self._queued = self.shown


def _merged(chunks: list[Chunk]) -> list[Chunk]:
    """Consecutive text fragments as one chunk (fewer, larger appends)."""
    merged: list[Chunk] = []
    for chunk in chunks:
        if (
            isinstance(chunk, MarkdownTextChunk)
            and merged
            and isinstance(merged[-1], MarkdownTextChunk)
        ):
            merged[-1] = MarkdownTextChunk(text=merged[-1].text + chunk.text)
        else:
            merged.append(chunk)
    return merged


def with_text(text: str, footer: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Blocks replace a message's text on screen: the text goes first, as sections.

    A section holds at most 3,000 characters, fewer than a message: a long text takes several.
    """
    parts = split(to_mrkdwn(text), SECTION_CHARS) or [" "]
    sections = [{"type": "section", "text": {"type": "mrkdwn", "text": part}} for part in parts]
    return [*sections, *(footer or [])]
