"""Reading a reply typed to a proposed change: clear phrases directly, others by the model.

The model's reading is one short call, within its own limit and the invocation's deadline.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any, Literal

from langchain_core.messages import HumanMessage, SystemMessage

from core.models import ModelResolver
from core.models.hints import ToolHints, bind_offered
from core.run_context import RunContext
from core.state import ConfirmationRequest
from prompts import confirmation
from tools.reply_intent import clear_intent

logger = logging.getLogger(__name__)

CLASSIFY_TIMEOUT_S = 30.0


class ReplyReader:
    """Turns what a resume carries (a decision, or a typed reply) into a decision value."""

    def __init__(self, models: ModelResolver) -> None:
        self._models = models

    async def read(
        self, raw: Any, request: ConfirmationRequest, ctx: RunContext, deadline: float
    ) -> Any:
        """Turn a typed reply into a decision value; anything else is a decision already."""
        reply = reply_of(raw)
        if reply is None:
            return raw
        intent = clear_intent(reply) or await self._classify(request, reply, ctx, deadline)
        when = (
            {"decided_at": raw["decided_at"]}
            if isinstance(raw, Mapping) and "decided_at" in raw
            else {}
        )
        if intent == "approve":
            return {"decision": "approve", **when}
        if intent == "reject":
            return {"decision": "reject", "reason": reply, **when}
        if intent == "unrelated":
            return {"decision": "dismiss", "message": reply, **when}
        return None  # unreadable: refused with the way to answer

    async def _classify(
        self, request: ConfirmationRequest, reply: str, ctx: RunContext, deadline: float
    ) -> Literal["approve", "reject", "unrelated"] | None:
        """Ask the model what an unclear reply means; None when it cannot say in time.

        In time: within its own limit and the invocation's deadline. The meanings are
        offered as tools and one must be called; a model that answers in text instead is
        read by its first word. Anything but approve or reject is unrelated.
        """
        descriptions = [p["description"] for p in request.get("proposals", [])]
        prompt = [
            SystemMessage(content=confirmation.classify_system(descriptions)),
            HumanMessage(content=reply),
        ]
        model = bind_offered(
            self._models.resolve(ctx.model),
            confirmation.meaning_tools(),
            ToolHints(examples=confirmation.meaning_examples()),
            tool_choice="required",
        )
        try:
            timeout = max(min(CLASSIFY_TIMEOUT_S, deadline - time.time()), 0.001)
            answer = await asyncio.wait_for(model.ainvoke(prompt), timeout=timeout)
        except TimeoutError:
            logger.warning("confirm: the reply classifier timed out")
            return None
        if answer.tool_calls:
            verdict = answer.tool_calls[0]["name"]
        else:
            words = answer.text.strip().lower().split(maxsplit=1)
            verdict = words[0].strip(".,!\"'") if words else ""
        if verdict == "approve":
            return "approve"
        if verdict == "reject":
            return "reject"
        return "unrelated"


def reply_of(raw: Any) -> str | None:
    """The text of a reply typed to the proposals (None: the value is a decision already)."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, Mapping) and set(raw) <= {"reply", "decided_at"} and "reply" in raw:
        return str(raw["reply"])
    return None
