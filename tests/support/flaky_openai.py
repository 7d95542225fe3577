"""The OpenAI stub with faults ahead of its scripted replies: stalls and error statuses.

A fault answers one request, in order, before the scripted replies resume: `Stall` holds the
request past the client's timeout, `Refuse` answers an HTTP error with or without a
`Retry-After` header (without one, the client's own exponential backoff decides the wait).
Arrival times are kept so a test can measure the waits between attempts.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass

from aiohttp import web

from tests.support.openai_stub import OpenAIStub, Recorded, Reply


@dataclass(frozen=True)
class Stall:
    """Hold the request for `seconds` (longer than the client waits), then answer 504."""

    seconds: float


@dataclass(frozen=True)
class Refuse:
    """Answer HTTP `status`; `retry_after_s` is sent as Retry-After when given."""

    status: int
    retry_after_s: float | None = None


Fault = Stall | Refuse


class FlakyOpenAIStub(OpenAIStub):
    """`OpenAIStub` whose next requests meet the queued faults first."""

    def __init__(self, *replies: Reply) -> None:
        super().__init__(*replies)
        self.faults: deque[Fault] = deque()
        self.arrivals: list[float] = []

    def fail_next(self, *faults: Fault) -> None:
        """Queue faults for the next requests, in order."""
        self.faults.extend(faults)

    @property
    def gaps(self) -> list[float]:
        """Seconds between consecutive requests."""
        return [b - a for a, b in zip(self.arrivals, self.arrivals[1:], strict=False)]

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.arrivals.append(time.monotonic())
        if not self.faults:
            return await super()._handle(request)
        fault = self.faults.popleft()
        self.requests.append(Recorded(await request.json(), dict(request.headers)))
        if isinstance(fault, Stall):
            await asyncio.sleep(fault.seconds)
            return _error(504, "openai stub: stalled", {})
        headers = {} if fault.retry_after_s is None else {"retry-after": f"{fault.retry_after_s:g}"}
        return _error(fault.status, f"openai stub: scripted {fault.status}", headers)


def _error(status: int, message: str, headers: dict[str, str]) -> web.Response:
    payload = {"error": {"message": message, "type": "server_error", "param": None, "code": None}}
    return web.json_response(payload, status=status, headers=headers)
