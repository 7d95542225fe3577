"""The mock Slack Web API's chat streaming: `chat.startStream` / `appendStream` / `stopStream`.

A streamed message is kept like a posted one (so `conversations.replies` and deletes see
it), with its markdown text, its task lines by id, and a frame per call: the text and tasks
a person saw after each one, to assert what the stream showed step by step.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

STREAM_METHODS = frozenset({"chat.startStream", "chat.appendStream", "chat.stopStream"})


def answer_stream(
    method: str,
    args: dict[str, Any],
    posted: dict[tuple[str, str], dict[str, Any]],
    new_ts: Callable[[], str],
    bot: tuple[str, str],
) -> dict[str, Any]:
    """Answer one streaming call against the messages posted so far (`posted`, changed)."""
    channel = str(args.get("channel"))
    if method == "chat.startStream":
        if channel.startswith("C") and not (
            args.get("recipient_team_id") and args.get("recipient_user_id")
        ):
            return {"ok": False, "error": "missing_recipient_user_id"}
        ts = new_ts()
        posted[(channel, ts)] = {
            "type": "message",
            "user": bot[0],
            "bot_id": bot[1],
            "text": "",
            "blocks": [],
            "ts": ts,
            "thread_ts": args.get("thread_ts") or ts,
            "streaming": True,
            "tasks": {},
            "frames": [],
            "recipient_user_id": args.get("recipient_user_id"),
        }
        _apply(posted[(channel, ts)], args)
        return {"ok": True, "channel": channel, "ts": ts}
    message = posted.get((channel, str(args.get("ts"))))
    if message is None:
        return {"ok": False, "error": "message_not_found"}
    if not message.get("streaming"):
        return {"ok": False, "error": "message_not_in_streaming_state"}
    _apply(message, args)
    if method == "chat.stopStream":
        message["streaming"] = False
        message["blocks"] = args.get("blocks") or []
    return {"ok": True, "channel": channel, "ts": message["ts"]}


def _apply(message: dict[str, Any], args: dict[str, Any]) -> None:
    message["text"] += str(args.get("markdown_text") or "")
    for chunk in args.get("chunks") or []:
        if chunk.get("type") == "markdown_text":
            message["text"] += chunk["text"]
        elif chunk.get("type") == "task_update":
            message["tasks"][chunk["id"]] = {"title": chunk["title"], "status": chunk["status"]}
    tasks = {key: dict(task) for key, task in message["tasks"].items()}
    message["frames"].append({"text": message["text"], "tasks": tasks})


class _Calls(Protocol):
    """What `StreamedMessages` reads of the mock: its calls and the messages left."""

    posted: dict[tuple[str, str], dict[str, Any]]
    calls: list[Any]
    _lock: threading.Lock

    def answers(self, channel: str | None = None) -> list[str]: ...

    def streamed(self, channel: str | None = None) -> list[dict[str, Any]]: ...

    def made(self, method: str | None = None, **match: Any) -> list[Any]: ...

    def message_at(self, channel: str, ts: str) -> dict[str, Any] | None: ...


class StreamedMessages:
    """The mock's views of what a person sees: answers posted or streamed, in order."""

    def answers(self: _Calls, channel: str | None = None) -> list[str]:
        """Return the text of every message the app posted or streamed, in order.

        Progress placeholders are left out, and so are streamed drafts the app withdrew
        (deleted); a streamed message counts with its text as it is now.
        """
        found = []
        for c in self.made():
            if channel is not None and c.args.get("channel") != channel:
                continue
            if c.method == "chat.postMessage":
                found.append(str(c.args.get("text", "")))
            elif c.method == "chat.startStream":
                streamed = self.message_at(str(c.args.get("channel")), c.ts)
                if streamed is not None:
                    found.append(streamed["text"])
        return [text for text in found if not text.startswith(":hourglass")]

    def streamed(self: _Calls, channel: str | None = None) -> list[dict[str, Any]]:
        """Return the messages the app streamed and did not delete (copies), in order."""
        with self._lock:
            found = [
                dict(m)
                for (c, _), m in self.posted.items()
                if "frames" in m and (channel is None or c == channel)
            ]
        return sorted(found, key=lambda m: float(m["ts"]))

    def statuses(self: _Calls, channel: str | None = None) -> list[str]:
        """Return the assistant statuses shown under the composer (cleared ones left out)."""
        return [
            str(c.args["status"])
            for c in self.made("assistant.threads.setStatus")
            if c.args.get("status") and (channel is None or c.args.get("channel_id") == channel)
        ]

    async def wait_for_answer(self: _Calls, text: str, within: float = 20.0) -> list[str]:
        """Wait until a message posted or streamed (and finished) shows `text`; return answers."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            shown = self.answers()
            streaming = [m for m in self.streamed() if m.get("streaming")]
            if text in shown and not any(m["text"] == text for m in streaming):
                return shown
            await asyncio.sleep(0.02)
        raise AssertionError(f"no answer {text!r} within {within}s: {self.calls}")
