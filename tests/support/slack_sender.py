"""Requests to a Slack app as Slack sends them: signed Events API, interactivity and slash
command bodies, and the payloads of mentions, messages and clicks."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
import urllib.parse
import uuid
from typing import Any

import aiohttp

from tests.support.slack_api import BOT_USER, TEAM


def signed_headers(secret: str, body: str | bytes, retry: int | None = None) -> dict[str, str]:
    """Return the headers Slack sends with a request: timestamp, v0 signature, retry count."""
    timestamp = str(int(time.time()))
    raw = body.encode() if isinstance(body, str) else body
    base = f"v0:{timestamp}:".encode() + raw
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
        # Event ids are unique across senders (two workers' senders share one database).
        self._events = itertools.count(1)
        self._prefix = uuid.uuid4().hex[:6].upper()

    async def raw(
        self, body: bytes, headers: dict[str, str], content_type: str = "application/json"
    ) -> tuple[int, str]:
        """Post `body` as is with exactly these headers; return the status and the response."""
        async with (
            aiohttp.ClientSession() as session,
            session.post(
                self.url, data=body, headers={**headers, "Content-Type": content_type}
            ) as response,
        ):
            return response.status, await response.text()

    async def signed(self, body: bytes, content_type: str = "application/json") -> tuple[int, str]:
        """Post `body` as is, correctly signed; return the status and the response."""
        return await self.raw(body, signed_headers(self.secret, body), content_type)

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
            "event_id": event_id or f"Ev{self._prefix}{next(self._events):06d}",
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


def click(user: str, channel: str, card: dict[str, Any], action_id: str) -> dict[str, Any]:
    """Return the `block_actions` payload of a click on a posted card's button.

    `card` is the message as the mock holds it (`MockSlackApi.posted`): ts, text, blocks.
    """
    [buttons] = [b for b in card["blocks"] if b["type"] == "actions"]
    [button] = [e for e in buttons["elements"] if e["action_id"] == action_id]
    return {
        "type": "block_actions",
        "team": {"id": TEAM},
        "user": {"id": user},
        "api_app_id": "A0APP",
        "token": "legacy",
        "trigger_id": "1.2.3",
        "channel": {"id": channel},
        "container": {"type": "message", "message_ts": card["ts"], "channel_id": channel},
        "message": {"ts": card["ts"], "text": card["text"], "blocks": card["blocks"]},
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


def feedback_click(
    user: str, channel: str, message: dict[str, Any], rating: str, action_ts: str | None = None
) -> dict[str, Any]:
    """Return the `block_actions` payload of a click on an answer's 👍 (positive) or 👎.

    `message` is the answer as the mock holds it; `action_ts` names the click (the same for
    a replay of one click, new for another click).
    """
    [block] = [b for b in message["blocks"] if b["type"] == "context_actions"]
    [buttons] = [e for e in block["elements"] if e["type"] == "feedback_buttons"]
    button = buttons["positive_button" if rating == "positive" else "negative_button"]
    return {
        "type": "block_actions",
        "team": {"id": TEAM},
        "user": {"id": user},
        "api_app_id": "A0APP",
        "token": "legacy",
        "trigger_id": "1.2.3",
        "channel": {"id": channel},
        "container": {
            "type": "message",
            "message_ts": message["ts"],
            "channel_id": channel,
            "thread_ts": message["thread_ts"],
        },
        "message": {
            "ts": message["ts"],
            "thread_ts": message["thread_ts"],
            "text": message["text"],
            "blocks": message["blocks"],
        },
        "actions": [
            {
                "type": "feedback_buttons",
                "action_id": buttons["action_id"],
                "block_id": block.get("block_id", ""),
                "value": button["value"],
                "action_ts": action_ts or f"{time.time():.6f}",
            }
        ],
    }
