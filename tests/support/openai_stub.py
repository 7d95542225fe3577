"""A scripted OpenAI-compatible chat completions server on loopback, for wire-level tests."""

from __future__ import annotations

import json
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass(frozen=True)
class ToolCall:
    """A tool call the stub returns; `arguments` is the raw JSON string, sent as is."""

    name: str
    arguments: str
    id: str = ""


@dataclass(frozen=True)
class Reply:
    """One scripted answer: text and/or tool calls, or an HTTP error `status`.

    `finish_reason` defaults to "tool_calls" or "stop"; "length" imitates a cut-off answer.
    """

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    status: int = 200
    finish_reason: str | None = None


def text(content: str) -> Reply:
    """A plain assistant answer."""
    return Reply(text=content)


def tools(*calls: ToolCall, content: str | None = None, finish: str | None = None) -> Reply:
    """An assistant answer that calls tools (parallel calls when several)."""
    return Reply(text=content, tool_calls=calls, finish_reason=finish)


def error(status: int) -> Reply:
    """An HTTP error the client sees (500 and 429 are retried by the openai client)."""
    return Reply(status=status)


@dataclass
class Recorded:
    """A request the stub received."""

    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


class OpenAIStub:
    """Serves `POST /v1/chat/completions` from a queue of replies; an async context manager.

    Every request is recorded in `requests`, including those answered with an error. When
    the queue is empty the stub answers 500 with `x-should-retry: false`, so a test that
    scripted too few replies fails instead of hanging in retries.
    """

    def __init__(self, *replies: Reply, port: int = 0) -> None:
        self.replies: deque[Reply] = deque(replies)
        self.requests: list[Recorded] = []
        self._runner: web.AppRunner | None = None
        self._port = port

    def enqueue(self, *replies: Reply) -> None:
        """Append replies to the queue."""
        self.replies.extend(replies)

    @property
    def base_url(self) -> str:
        """The OpenAI base URL of the running stub, e.g. http://127.0.0.1:PORT/v1."""
        return f"http://127.0.0.1:{self._port}/v1"

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies of every request received, in order."""
        return [request.body for request in self.requests]

    async def __aenter__(self) -> OpenAIStub:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        app.on_response_prepare.append(_close_after)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self._port).start()
        self._port = self._runner.addresses[0][1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(Recorded(body, dict(request.headers)))
        n = len(self.requests)
        if not self.replies:
            return _error_response(500, "openai stub: no scripted reply left", retry=False)
        reply = self.replies.popleft()
        if reply.status != 200:
            return _error_response(reply.status, f"openai stub: scripted {reply.status}")
        calls = [
            {
                "id": call.id or f"call_{n}_{i}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for i, call in enumerate(reply.tool_calls)
        ]
        model = body.get("model", "")
        finish = reply.finish_reason or ("tool_calls" if calls else "stop")
        if body.get("stream"):
            usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return await _stream(request, reply, calls, finish, model, n, usage)
        message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
        if calls:
            message["tool_calls"] = calls
        return web.json_response(
            {
                "id": f"chatcmpl-stub{n}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "system_fingerprint": "fp_stub",
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "logprobs": None,
                        "finish_reason": finish,
                    }
                ],
                "usage": _usage(),
            }
        )


async def _close_after(_request: web.Request, response: web.StreamResponse) -> None:
    """Answer with `Connection: close`, so no kept-alive connection outlives its test.

    langchain-openai shares one HTTP client per base URL across the process. When a later
    test's stub gets the same port, a pooled connection from the earlier test's closed event
    loop would otherwise be closed on the new one and raise "Event loop is closed".
    """
    response.force_close()


def _usage() -> dict[str, int]:
    return {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def _error_response(status: int, message: str, *, retry: bool = True) -> web.Response:
    headers = {"retry-after-ms": "10"} if retry else {"x-should-retry": "false"}
    payload = {"error": {"message": message, "type": "server_error", "param": None, "code": None}}
    return web.json_response(payload, status=status, headers=headers)


def _fragments(value: str, size: int = 5) -> list[str]:
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]


async def _stream(
    request: web.Request,
    reply: Reply,
    calls: list[dict[str, Any]],
    finish: str,
    model: str,
    n: int,
    include_usage: bool,
) -> web.StreamResponse:
    """Answer as OpenAI does with `stream: true`: chat.completion.chunk events, then [DONE]."""
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    created = int(time.time())

    async def send(delta: dict[str, Any] | None, reason: str | None = None, **extra: Any) -> None:
        chunk: dict[str, Any] = {
            "id": f"chatcmpl-stub{n}",
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": "fp_stub",
            "choices": []
            if delta is None
            else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}],
        }
        if include_usage:
            chunk["usage"] = None
        chunk.update(extra)
        await response.write(f"data: {json.dumps(chunk)}\n\n".encode())

    await send({"role": "assistant", "content": "", "refusal": None})
    for piece in _fragments(reply.text) if reply.text else []:
        await send({"content": piece})
    for index, call in enumerate(calls):
        head = {"index": index, "id": call["id"], "type": "function"}
        head["function"] = {"name": call["function"]["name"], "arguments": ""}
        await send({"tool_calls": [head]})
        for piece in _fragments(call["function"]["arguments"]):
            await send({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    await send({}, finish)
    if include_usage:
        await send(None, usage=_usage())
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response
