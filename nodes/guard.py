"""guard: opens a turn (fresh counters, deadline, run id) and screens the incoming message.

Screening: the six injection patterns (off/log/warn/block), null bytes stripped, messages over
32,768 characters truncated with a note to the model, a blank message answered directly.
"""

from __future__ import annotations

import time
import uuid

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from app.context import injection
from graph.context import Context
from graph.state import AgentState, GuardUpdate
from prompts import replies

MAX_MESSAGE_CHARS = 32_768
TRUNCATION_NOTE = (
    "\n\n[Note to the assistant: this message was {original:,} characters long and was "
    "truncated to the first {limit:,}. Say so if the missing part might matter.]"
)


async def guard(state: AgentState, runtime: Runtime[Context]) -> GuardUpdate:
    """Start a turn: reset per-turn counters, set the watchdog deadline, clean the message."""
    ctx = runtime.context
    last = state["messages"][-1]
    update: GuardUpdate = {
        "run_id": ctx.run_id or str(uuid.uuid4()),
        "turn_start_id": last.id or "",
        "deadline": time.time() + ctx.turn_timeout_s,
        "rounds": 0,
        "tool_calls_used": 0,
        "attempt": 0,
        "feedback": [],
        "cap": None,
        "status": "running",
        "final_text": "",
        "decisions": {},
        "issues": [],
    }
    if not isinstance(last, HumanMessage):
        return update
    text = last.text
    screening = injection.screen(text, ctx.input_guard)
    if screening.blocked:
        # Block mode: the message never reaches the model.
        reply = replies.injection_refused(screening.patterns)
        update["messages"] = [AIMessage(content=reply)]
        update["final_text"] = reply
        update["status"] = "blocked"
        return update
    cleaned = text.replace("\x00", "")
    if len(cleaned) > MAX_MESSAGE_CHARS:
        cleaned = cleaned[:MAX_MESSAGE_CHARS] + TRUNCATION_NOTE.format(
            original=len(cleaned), limit=MAX_MESSAGE_CHARS
        )
    if not cleaned.strip():
        reply = replies.clarify_blank()
        update["messages"] = [AIMessage(content=reply)]
        update["final_text"] = reply
        update["status"] = "completed"
        return update
    if cleaned != text:
        # Keep the author the runner stamped on the message (who the turn acts for).
        update["messages"] = [
            HumanMessage(content=cleaned, id=last.id, additional_kwargs=last.additional_kwargs)
        ]
    return update
