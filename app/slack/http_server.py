"""The HTTP front of the Slack app: `/slack/events` (verified, then Bolt) and `/health`.

Bolt's own aiohttp adapter parses the body before it verifies the signature, so a JSON
array, `payload=not-json` or bytes that are not UTF-8 end in HTTP 500. Here the signature
is checked on the raw bytes first (401 when missing or wrong, whatever the body), then the
body must parse as Bolt will read it (400 otherwise), and only then does Bolt dispatch it.

An Events API delivery is acknowledged as soon as it is read: its answer is an empty 200
whatever the listeners do, so Bolt dispatches it on the turn loop (`defer`), after the
acknowledgement. Clicks and slash commands, whose answer Bolt's listener writes (`ack`),
are dispatched here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from aiohttp import web
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.request.internals import parse_body

from app.slack.signing import signature_problem

logger = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/health"
HealthCheck = Callable[[], Awaitable[str | None]]
Defer = Callable[[Coroutine[Any, Any, Any]], object]


def web_app(
    app: AsyncApp,
    signing_secret: str,
    health: HealthCheck,
    defer: Defer,
    path: str = EVENTS_PATH,
) -> web.Application:
    """Return the aiohttp application serving Slack's requests on `path` and `/health`."""

    async def events(request: web.Request) -> web.Response:
        raw = await request.read()
        problem = signature_problem(
            signing_secret,
            raw,
            request.headers.get("X-Slack-Request-Timestamp"),
            request.headers.get("X-Slack-Signature"),
            time.time(),
        )
        if problem is not None:
            return _error(401, f"invalid request signature: {problem}")
        try:
            text = raw.decode("utf-8")
            body = parse_body(text, request.content_type)
        except (UnicodeDecodeError, ValueError) as exc:
            return _error(400, f"unreadable body: {type(exc).__name__}")
        if not isinstance(body, dict):
            return _error(400, "the body is not a JSON object or a form")
        event = body.get("event")
        is_event = body.get("type") == "event_callback"
        if is_event and not (isinstance(event, dict) and isinstance(event.get("type"), str)):
            return _error(400, "an event_callback without an event")
        if is_event:
            defer(_dispatch(app, text, request.query_string, _headers(request)))
            return web.Response(status=200)
        try:
            bolt_request = AsyncBoltRequest(
                body=text, query=request.query_string, headers=_headers(request)
            )
            response = await app.async_dispatch(bolt_request)
        except (AttributeError, KeyError, IndexError, TypeError, ValueError):
            # Signed, parsed, but not shaped like any Slack payload (Bolt read past its end).
            logger.warning("a signed request Bolt could not read", exc_info=True)
            return _error(400, "not a Slack payload")
        if response.status >= 500:
            logger.error("Bolt answered %s to a signed request: %s", response.status, body)
            return _error(400, "not a Slack payload")
        default_type = "application/json" if response.body.startswith("{") else "text/plain"
        content_type = response.headers.pop("content-type", [default_type])[0]
        return web.Response(
            status=response.status,
            body=response.body,
            headers=response.first_headers_without_set_cookie(),
            content_type=content_type.split(";")[0],
        )

    async def health_check(_: web.Request) -> web.Response:
        problem = await health()
        if problem is not None:
            return web.json_response({"ok": False, "reason": problem}, status=503)
        return web.json_response({"ok": True})

    application = web.Application()
    application.router.add_post(path, events)
    application.router.add_get(HEALTH_PATH, health_check)
    return application


async def _dispatch(
    app: AsyncApp, body: str, query: str, headers: dict[str, str | Sequence[str]]
) -> None:
    """Dispatch an acknowledged event (on the turn loop); what Bolt answers goes nowhere."""
    request = AsyncBoltRequest(body=body, query=query, headers=headers)
    response = await app.async_dispatch(request)
    if response.status >= 500:
        logger.error("Bolt answered %s to an event: %s", response.status, body)


def _headers(request: web.Request) -> dict[str, str | Sequence[str]]:
    headers: dict[str, str | Sequence[str]] = {}
    for name, value in request.headers.items():
        headers[name.lower()] = [*headers.get(name.lower(), []), value]
    return headers


def _error(status: int, reason: str) -> web.Response:
    payload: dict[str, Any] = {"ok": False, "error": reason}
    return web.json_response(payload, status=status)
