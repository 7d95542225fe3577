"""guard: opens a turn (fresh counters, deadline, run id, its asker) and screens the message.

Screening: the six injection patterns (off/log/warn/block), NUL bytes and lone surrogates
removed, messages over 32,768 characters truncated with a note to the model, a blank
message answered directly. A blocked message is withheld from the model for good: the
thread keeps a placeholder in its place, the audit keeps what was sent.
"""

from __future__ import annotations

import time
import uuid

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage, ToolMessage
from langgraph.runtime import Runtime

from core.asker import Asker, caller_of
from core.db.engine import Database
from core.db.people import role_of
from core.messages import unanswered_calls
from core.run_context import RunContext
from core.state import AgentState, GuardUpdate, changes
from core.text import clean_text
from prompts import replies
from screening import injection

MAX_MESSAGE_CHARS = 32_768
TRUNCATION_NOTE = (
    "\n\n[Note to the assistant: this message was {original:,} characters long and was "
    "truncated to the first {limit:,}. Say so if the missing part might matter.]"
)
WITHHELD = "[This message was withheld by the input guard and is not shown to the assistant.]"


class Guard:
    """The guard node; with the workspace database it also looks up the asker's role."""

    def __init__(self, db: Database | None = None) -> None:
        self._db = db

    async def __call__(self, state: AgentState, runtime: Runtime[RunContext]) -> GuardUpdate:
        """Start a turn: its asker, fresh per-turn counters, the deadline, a clean message."""
        ctx = runtime.context
        last = state["messages"][-1]
        update = fresh_turn(
            ctx.run_id or _run_id(runtime), last.id or "", time.time() + ctx.turn_timeout_s
        )
        if not isinstance(last, HumanMessage):
            return changes(update, state)
        # Who sent the run, not what the message or the context claims: on a server with
        # agentloop's auth a stamp or a context field naming someone else changes nothing.
        caller = caller_of(runtime)
        asker = Asker(caller.user_id, await role_of(self._db, caller.user_id, caller.role))
        update["asker"] = asker.record()
        text = last.text
        content = clean_text(text)
        kwargs = dict(last.additional_kwargs)
        if kwargs.get("user_id") != asker.user_id:
            # Unstamped (Studio, the SDK) or stamped with someone else: the thread keeps who
            # really sent it.
            kwargs.update(user_id=asker.user_id, user_role=asker.role)
        screening = injection.screen(text, ctx.input_guard)
        if screening.blocked:
            content, kwargs["withheld"] = WITHHELD, list(screening.patterns)
            reply = replies.injection_refused(screening.patterns)
        elif not content.strip():
            reply = replies.clarify_blank()
        else:
            reply = ""
            if len(content) > MAX_MESSAGE_CHARS:
                content = content[:MAX_MESSAGE_CHARS] + TRUNCATION_NOTE.format(
                    original=len(content), limit=MAX_MESSAGE_CHARS
                )
        messages: list[AnyMessage | RemoveMessage] = []
        orphans = _unanswered(state["messages"][:-1])
        if orphans:
            # The person wrote instead of answering what the last turn left open (a change
            # waiting inside the planner, in Studio): the model is told, then the message.
            opening = HumanMessage(content=content, id=str(uuid.uuid4()), additional_kwargs=kwargs)
            messages += [RemoveMessage(id=last.id or ""), *orphans, opening]
            update["turn_start_id"] = opening.id or ""
        elif content != text or kwargs != last.additional_kwargs:
            # Same id: the message is replaced in place, stamped with its author.
            messages.append(HumanMessage(content=content, id=last.id, additional_kwargs=kwargs))
        if reply:
            messages.append(AIMessage(content=reply))
            update["final_text"] = reply
            update["status"] = "blocked" if screening.blocked else "completed"
        if messages:
            update["messages"] = messages
        return changes(update, state)


def fresh_turn(run_id: str, turn_start_id: str, deadline: float) -> GuardUpdate:
    """What every turn starts from: its ids, its deadline, counters and outcome reset."""
    return {
        "run_id": run_id,
        "turn_start_id": turn_start_id,
        "deadline": deadline,
        "rounds": 0,
        "tool_calls_used": 0,
        "attempt": 0,
        "feedback": [],
        "cap": None,
        "status": "running",
        "final_text": "",
        "decisions": {},
        "pending": None,
        "issues": [],
    }


def _run_id(runtime: Runtime[RunContext]) -> str:
    info = runtime.execution_info
    return (info.run_id if info is not None else None) or str(uuid.uuid4())


def _unanswered(earlier: list[AnyMessage]) -> list[ToolMessage]:
    """Results for the calls of the last AI message that never got one."""
    return [
        ToolMessage(
            content=replies.tool_not_run("the person sent a new message instead of answering"),
            tool_call_id=call.id,
            name=call.name,
            status="error",
            additional_kwargs={"outcome": "not_confirmed"},
        )
        for call in unanswered_calls(earlier)
    ]
