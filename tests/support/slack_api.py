"""A mock Slack Web API on loopback, and signed requests to a Bolt app as Slack sends them.

`MockSlackApi` answers the Web API methods the app calls (`auth.test`, `chat.*`,
`conversations.replies`) and records every call; it runs its own event loop in a thread,
so in-process apps and worker subprocesses can both reach it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

TEAM = "T0TEAM"
BOT_USER = "U0BOT"


@dataclass
class ApiCall:
    """One Web API call the app made."""

    method: str
    args: dict[str, Any]
    at: float = field(default_factory=time.monotonic)


class MockSlackApi:
    """A Slack Web API stand-in; `url` is the base URL to give the app's client."""

    def __init__(self) -> None:
        self.calls: list[ApiCall] = []
        self.replies: dict[tuple[str, str], list[dict[str, Any]]] = {}
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
        runner = web.AppRunner(app)
        self._loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(runner.cleanup())

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            if request.content_type == "application/json":
                args.update(await request.json())
            else:
                args.update(dict(await request.post()))
        for key in ("blocks", "attachments"):
            if isinstance(args.get(key), str):
                args[key] = json.loads(args[key])
        with self._lock:
            self.calls.append(ApiCall(method, args))
            answer = self._answer(method, args)
        return web.json_response(answer)

    def _answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "auth.test":
            return {"ok": True, "user_id": BOT_USER, "bot_id": "B0BOT", "team_id": TEAM}
        if method == "chat.postMessage":
            ts = f"1800000000.{next(self._ts):06d}"
            return {"ok": True, "channel": args.get("channel"), "ts": ts}
        if method in ("chat.update", "chat.delete"):
            return {"ok": True, "channel": args.get("channel"), "ts": args.get("ts")}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"1800000000.{next(self._ts):06d}"}
        if method == "conversations.replies":
            key = (str(args.get("channel")), str(args.get("ts")))
            return {"ok": True, "messages": self.replies.get(key, []), "has_more": False}
        return {"ok": False, "error": "unknown_method"}

    def made(self, method: str | None = None, **match: Any) -> list[ApiCall]:
        """Return the calls of `method` whose arguments include `match`."""
        with self._lock:
            calls = list(self.calls)
        return [
            c
            for c in calls
            if (method is None or c.method == method)
            and all(c.args.get(k) == v for k, v in match.items())
        ]

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


def signed_headers(secret: str, body: str, retry: int | None = None) -> dict[str, str]:
    """Return the headers Slack sends with a request: timestamp, v0 signature, retry count."""
    timestamp = str(int(time.time()))
    base = f"v0:{timestamp}:{body}".encode()
    signature = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    headers = {"X-Slack-Request-Timestamp": timestamp, "X-Slack-Signature": signature}
    if retry is not None:
        headers["X-Slack-Retry-Num"] = str(retry)
        headers["X-Slack-Retry-Reason"] = "http_timeout"
    return headers


class SlackSender:
    """Sends signed Events API, interactivity and slash-command requests to an app URL."""

    def __init__(self, url: str, secret: str) -> None:
        self.url = url
        self.secret = secret
        self._events = itertools.count(1)

    async def _post(self, body: str, content_type: str, headers: dict[str, str]) -> int:
        async with (
            aiohttp.ClientSession() as session,
            session.post(
                self.url, data=body, headers={**headers, "Content-Type": content_type}
            ) as response,
        ):
            await response.read()
            return response.status

    def event_body(self, event: dict[str, Any], event_id: str | None = None) -> dict[str, Any]:
        """Return an `event_callback` envelope around `event`."""
        return {
            "token": "legacy",
            "team_id": TEAM,
            "api_app_id": "A0APP",
            "type": "event_callback",
            "event_id": event_id or f"Ev{next(self._events):08d}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}],
            "event": event,
        }

    async def event(
        self,
        event: dict[str, Any],
        *,
        event_id: str | None = None,
        retry: int | None = None,
        secret: str | None = None,
    ) -> int:
        """Deliver one event; return the HTTP status."""
        body = json.dumps(self.event_body(event, event_id))
        headers = signed_headers(secret or self.secret, body, retry)
        return await self._post(body, "application/json", headers)

    async def action(self, payload: dict[str, Any]) -> int:
        """Deliver an interactivity payload (a button click); return the HTTP status."""
        body = urllib.parse.urlencode({"payload": json.dumps(payload)})
        return await self._post(
            body, "application/x-www-form-urlencoded", signed_headers(self.secret, body)
        )

    async def command(self, fields: dict[str, str]) -> tuple[int, str]:
        """Deliver a slash command; return the HTTP status and the response body."""
        body = urllib.parse.urlencode(fields)
        headers = {
            **signed_headers(self.secret, body),
            "Content-Type": "application/x-www-form-urlencoded",
        }
        async with (
            aiohttp.ClientSession() as session,
            session.post(self.url, data=body, headers=headers) as response,
        ):
            return response.status, await response.text()


def mention(channel: str, user: str, text: str, ts: str, thread_ts: str | None = None) -> dict:
    """Return an `app_mention` event."""
    event = {
        "type": "app_mention",
        "user": user,
        "text": f"<@{BOT_USER}> {text}",
        "channel": channel,
        "ts": ts,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def message(
    channel: str,
    user: str,
    text: str,
    ts: str,
    thread_ts: str | None = None,
    channel_type: str = "channel",
) -> dict:
    """Return a `message` event (a DM with channel_type `im`)."""
    event = {
        "type": "message",
        "user": user,
        "text": text,
        "channel": channel,
        "channel_type": channel_type,
        "ts": ts,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def click(user: str, channel: str, card: ApiCall, action_id: str) -> dict[str, Any]:
    """Return the `block_actions` payload of a click on a card's button."""
    [buttons] = [b for b in card.args["blocks"] if b["type"] == "actions"]
    [button] = [e for e in buttons["elements"] if e["action_id"] == action_id]
    return {
        "type": "block_actions",
        "team": {"id": TEAM},
        "user": {"id": user},
        "api_app_id": "A0APP",
        "token": "legacy",
        "trigger_id": "1.2.3",
        "channel": {"id": channel},
        "container": {"type": "message", "message_ts": card.args["ts"], "channel_id": channel},
        "message": {
            "ts": card.args["ts"],
            "text": card.args["text"],
            "blocks": card.args["blocks"],
        },
        "actions": [
            {
                "type": "button",
                "action_id": action_id,
                "block_id": buttons["block_id"],
                "value": button["value"],
                "action_ts": str(time.time()),
            }
        ],
    }
