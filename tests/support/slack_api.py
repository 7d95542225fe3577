"""A mock Slack Web API on loopback (requests to the app: `tests.support.slack_sender`).

`MockSlackApi` answers the Web API methods the app calls (`auth.test`, `chat.*` with the
chat streaming methods, `conversations.replies`, `assistant.threads.*`,
`apps.connections.open`), keeps the messages posted or streamed so `conversations.replies`
returns them, and records every call; it can
refuse tokens and answer chosen calls with HTTP 429 and a Retry-After. It runs its own
event loop in a thread, so in-process apps and worker subprocesses can both reach it; it
also serves Socket Mode connections and, run as a program, in a process of its own.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from tests.support.slack_streams import STREAM_METHODS, StreamedMessages, answer_stream

TEAM = "T0TEAM"
BOT_USER = "U0BOT"
BOT_ID = "B0BOT"


@dataclass
class ApiCall:
    """One Web API call the app made."""

    method: str
    args: dict[str, Any]
    at: float = field(default_factory=time.monotonic)
    status: int = 200
    """The HTTP status the mock answered (429 for a rate-limited call)."""
    token: str = ""
    ts: str = ""
    """The ts of the message the call posted or started streaming."""


class MockSlackApi(StreamedMessages):
    """A Slack Web API stand-in; `url` is the base URL to give the app's client."""

    def __init__(self) -> None:
        self.calls: list[ApiCall] = []
        self.replies: dict[tuple[str, str], list[dict[str, Any]]] = {}
        """Messages of a thread (channel, thread_ts) posted by others, for the replies."""
        self.posted: dict[tuple[str, str], dict[str, Any]] = {}
        """Messages the app posted and did not delete, by (channel, ts)."""
        self.refused_tokens: set[str] = set()
        self._limits: dict[str, list[int]] = {}
        self.sockets: list[web.WebSocketResponse] = []
        """Socket Mode connections (`apps.connections.open` hands out their URL)."""
        self.socket_acks: list[dict[str, Any]] = []
        self.errors: dict[str, str] = {}
        """Methods answering `{"ok": false, "error": …}` (e.g. not an assistant thread)."""
        self._ts = itertools.count(1)
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        """The base URL of the Web API (`…/api/`)."""
        return f"http://127.0.0.1:{self.port}/api/"

    def __enter__(self) -> MockSlackApi:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._handle)
        app.router.add_get("/calls", self._calls)
        app.router.add_get("/socket", self._socket)
        runner = web.AppRunner(app)
        self._loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(runner.cleanup())

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        """A Socket Mode connection: hello, then envelopes from `push`; acks are recorded."""
        socket = web.WebSocketResponse(autoping=True)
        await socket.prepare(request)
        await socket.send_json({"type": "hello", "num_connections": 1})
        self.sockets.append(socket)
        async for frame in socket:
            if frame.type == aiohttp.WSMsgType.TEXT:
                with self._lock:
                    self.socket_acks.append(json.loads(frame.data))
        return socket

    def push(self, body: dict[str, Any]) -> str:
        """Deliver an Events API body over every Socket Mode connection; return its envelope id."""
        envelope_id = uuid.uuid4().hex
        envelope = {
            "envelope_id": envelope_id,
            "type": "events_api",
            "payload": body,
            "accepts_response_payload": False,
            "retry_attempt": 0,
            "retry_reason": "",
        }
        for socket in list(self.sockets):
            asyncio.run_coroutine_threadsafe(socket.send_json(envelope), self._loop).result(10)
        return envelope_id

    async def _calls(self, request: web.Request) -> web.Response:
        """Every call so far, for a process that did not start the mock (`RemoteSlackApi`)."""
        with self._lock:
            calls = [{"method": c.method, "args": c.args, "status": c.status} for c in self.calls]
        return web.json_response(calls)

    def rate_limit(self, method: str, times: int = 1, retry_after: int = 0) -> None:
        """Answer the next `times` calls of `method` with HTTP 429 and this Retry-After."""
        with self._lock:
            self._limits[method] = [times, retry_after]

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            if request.content_type == "application/json":
                args.update(await request.json())
            else:
                args.update(dict(await request.post()))
        for key in ("blocks", "attachments", "prompts", "chunks", "loading_messages"):
            if isinstance(args.get(key), str):
                args[key] = json.loads(args[key])
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        token = token or str(args.get("token") or args.get("app_token") or "")
        with self._lock:
            limit = self._limits.get(method)
            if limit and limit[0] > 0:
                limit[0] -= 1
                self.calls.append(ApiCall(method, args, status=429, token=token))
                return web.json_response(
                    {"ok": False, "error": "ratelimited"},
                    status=429,
                    headers={"Retry-After": str(limit[1])},
                )
            call = ApiCall(method, args, token=token)
            self.calls.append(call)
            answer = self._answer(method, args, token)
            call.ts = str(answer.get("ts", "")) if method != "chat.update" else ""
        return web.json_response(answer)

    def _answer(self, method: str, args: dict[str, Any], token: str) -> dict[str, Any]:
        if token in self.refused_tokens:
            return {"ok": False, "error": "invalid_auth"}
        if method in self.errors:
            return {"ok": False, "error": self.errors[method]}
        if method == "auth.test":
            return {"ok": True, "user_id": BOT_USER, "bot_id": BOT_ID, "team_id": TEAM}
        if method == "apps.connections.open":
            return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/socket"}
        if method in STREAM_METHODS:
            new_ts = lambda: f"1800000000.{next(self._ts):06d}"  # noqa: E731
            return answer_stream(method, args, self.posted, new_ts, (BOT_USER, BOT_ID))
        if method == "chat.postMessage":
            ts = f"1800000000.{next(self._ts):06d}"
            channel = str(args.get("channel"))
            self.posted[(channel, ts)] = {
                "type": "message",
                "user": BOT_USER,
                "bot_id": BOT_ID,
                "text": args.get("text", ""),
                "blocks": args.get("blocks") or [],
                "ts": ts,
                "thread_ts": args.get("thread_ts") or ts,
            }
            return {"ok": True, "channel": channel, "ts": ts}
        if method == "chat.update":
            message = self.posted.get((str(args.get("channel")), str(args.get("ts"))))
            if message is not None:
                message.update(text=args.get("text", ""), blocks=args.get("blocks") or [])
            return {"ok": True, "channel": args.get("channel"), "ts": args.get("ts")}
        if method == "chat.delete":
            self.posted.pop((str(args.get("channel")), str(args.get("ts"))), None)
            return {"ok": True, "channel": args.get("channel"), "ts": args.get("ts")}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"1800000000.{next(self._ts):06d}"}
        if method == "conversations.replies":
            channel, thread_ts = str(args.get("channel")), str(args.get("ts"))
            mine = [
                dict(m)
                for (c, _), m in self.posted.items()
                if c == channel and m["thread_ts"] == thread_ts
            ]
            found = sorted(
                [*self.replies.get((channel, thread_ts), []), *mine], key=lambda m: float(m["ts"])
            )
            found = [m for m in found if _within(m["ts"], args)]
            limit = int(args.get("limit") or 0) or len(found)
            return {"ok": True, "messages": found[:limit], "has_more": len(found) > limit}
        if method.startswith("assistant.threads."):
            return {"ok": True}
        return {"ok": False, "error": "unknown_method"}

    def made(self, method: str | None = None, **match: Any) -> list[ApiCall]:
        """Return the answered (not rate-limited) calls of `method` with arguments `match`."""
        return [c for c in self.attempts(method, **match) if c.status == 200]

    def attempts(self, method: str | None = None, **match: Any) -> list[ApiCall]:
        """Return every call of `method` whose arguments include `match`, 429s included."""
        with self._lock:
            calls = list(self.calls)
        return [
            c
            for c in calls
            if (method is None or c.method == method)
            and all(c.args.get(k) == v for k, v in match.items())
        ]

    async def card(self, channel: str, thread_ts: str, within: float = 20.0) -> dict[str, Any]:
        """Wait for a message with live buttons in the thread; return it as posted (a copy)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            with self._lock:
                found = [
                    dict(m)
                    for (c, _), m in self.posted.items()
                    if c == channel
                    and m["thread_ts"] == thread_ts
                    and any(b.get("type") == "actions" for b in m["blocks"])
                ]
            if found:
                return found[-1]
            await asyncio.sleep(0.02)
        raise AssertionError(f"no card in {channel} {thread_ts} within {within}s: {self.calls}")

    def message_at(self, channel: str, ts: str) -> dict[str, Any] | None:
        """Return the posted message at (channel, ts) as it is now (None once deleted)."""
        with self._lock:
            found = self.posted.get((channel, ts))
            return dict(found) if found is not None else None

    async def wait_for(
        self, method: str, within: float = 20.0, count: int = 1, **match: Any
    ) -> list[ApiCall]:
        """Wait until `count` matching calls were made; return them."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            found = self.made(method, **match)
            if len(found) >= count:
                return found
            await asyncio.sleep(0.02)
        raise AssertionError(f"no {count}× {method} {match} within {within}s: {self.calls}")

    def texts(self, channel: str | None = None) -> list[str]:
        """Return the text of every message posted or updated, in order."""
        return [
            str(c.args.get("text", ""))
            for c in self.made()
            if c.method in ("chat.postMessage", "chat.update")
            and (channel is None or c.args.get("channel") == channel)
        ]


if __name__ == "__main__":
    # The mock in a process of its own: print the port, serve until stdin closes.
    with MockSlackApi() as served:
        print(served.port, flush=True)
        sys.stdin.read()


def _within(ts: str, args: dict[str, Any]) -> bool:
    """Whether a message at `ts` lies between `oldest` and `latest` (ends by `inclusive`)."""
    inclusive = str(args.get("inclusive", "")).lower() in ("1", "true")
    at = float(ts)
    oldest, latest = args.get("oldest"), args.get("latest")
    if oldest is not None and (at < float(oldest) or (at == float(oldest) and not inclusive)):
        return False
    return latest is None or at < float(latest) or (at == float(latest) and inclusive)
