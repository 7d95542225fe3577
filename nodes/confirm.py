"""confirm: the wave's proposals wait in one `interrupt()` for a person's decision.

Nothing with side effects happens before the interrupt: the node shows the proposals that
propose recorded, pauses, then checks the decision (the only place decisions are checked)
against the proposals as the workspace recorded them, not as the thread's state shows them,
and records it in the workspace, where the tools node looks for it before any change runs.
The decider is who sent the run (the server's authenticated user), never a context field.
A reply typed in the thread ("yes, create it") is read here too: clear phrases without the
model, anything else by one short model call. A refused decision re-asks with the reason.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt
from sqlalchemy.exc import SQLAlchemyError

from core import events
from core.asker import Asker, caller_of, stamp
from core.db.engine import Database
from core.db.people import role_of
from core.db.schema_errors import is_unmigrated
from core.messages import calls_of
from core.models import ModelResolver
from core.models.hints import ToolHints, bind_offered
from core.planner_state import PlannerState
from core.run_context import RunContext
from core.state import OPENING_NODES, AgentState, ConfirmationRequest, ConfirmUpdate, Decision
from prompts import confirmation
from tools import decision_records, proposal_records, proposals
from tools.registry import ToolRegistry
from tools.reply_intent import clear_intent

logger = logging.getLogger(__name__)

CLASSIFY_TIMEOUT_S = 30.0


class Confirm:
    """The confirm node, bound to a registry, the models (to read replies) and the workspace."""

    def __init__(self, registry: ToolRegistry, models: ModelResolver, db: Database) -> None:
        self._registry = registry
        self._models = models
        self._db = db

    async def __call__(
        self, state: AgentState, runtime: Runtime[RunContext]
    ) -> Command[Literal["tools", "guard", "gather", "confirm"]]:
        """Show the proposals, wait for the decision, check and record it."""
        ctx = runtime.context
        request = state.get("pending")
        if not request or not request.get("proposals"):
            return Command(goto="tools")
        last = state["messages"][-1]
        removed: list[AnyMessage | RemoveMessage] = []
        if isinstance(last, HumanMessage):
            # A message sent to the thread while the change waits (Studio's chat box starts
            # a new run instead of resuming): it is the person's reply to the proposals.
            raw: Any = {"reply": last.text}
            removed = [RemoveMessage(id=last.id or "")]
        else:
            runtime.stream_writer(
                events.agent_state("waiting_on_user", confirmation.waiting(request["proposals"]))
            )
            raw = interrupt(request)
        caller = caller_of(runtime)
        decider = Asker(caller.user_id, await role_of(self._db, caller.user_id, caller.role))
        value = await self._read(raw, request, ctx)
        checked = request
        if not _dismissal(value):
            # Moving on runs nothing; any other decision is about a change, and is checked
            # against the change as recorded.
            checked, problem = await self._as_recorded(runtime, request)
            if problem is not None:
                return self._refused(checked, problem, removed)
        outcome = proposals.check(
            checked,
            value,
            decider=decider,
            approver_roles=ctx.approver_roles,
            tools={t.name: t for t in self._registry.tools()},
            now=time.time(),
        )
        if isinstance(outcome, proposals.Refusal):
            return self._refused(checked, outcome, removed)
        if any(d["decision"] == "dismiss" for d in outcome.values()):
            text = str((value.get("message") if isinstance(value, dict) else "") or "")
            dismissed = _dismissed(self._wave(state), text, decider)
            dismissed["messages"] = [*removed, *dismissed["messages"]]
            return self._moved_on(dismissed)
        try:
            await self._record(runtime, checked, outcome)
        except SQLAlchemyError as exc:
            if not is_unmigrated(exc):
                raise
            refusal = proposals.Refusal("unmigrated", confirmation.workspace_not_migrated())
            return self._refused(checked, refusal, removed)
        # The decision may come long after the question: what it sets off gets a turn's time.
        update: ConfirmUpdate = {
            "decisions": {**state.get("decisions", {}), **outcome},
            "pending": None,
            "deadline": time.time() + ctx.turn_timeout_s,
        }
        if removed:
            update["messages"] = removed
        return Command(goto="tools", update=update)

    async def _as_recorded(
        self, runtime: Runtime[RunContext], request: ConfirmationRequest
    ) -> tuple[ConfirmationRequest, proposals.Refusal | None]:
        """The request as the workspace recorded its proposals, and why not, if it can't be.

        A proposal the state shows differently from its record (an edited asker, a forged
        fingerprint) is refused and shown again as recorded; one with no record is refused.
        """
        thread_id = (runtime.execution_info.thread_id if runtime.execution_info else None) or ""
        try:
            records = await proposal_records.recorded(self._db, thread_id, request["proposals"])
        except SQLAlchemyError as exc:
            if not is_unmigrated(exc):
                raise
            return request, proposals.Refusal("unmigrated", confirmation.workspace_not_migrated())
        recorded = proposal_records.as_recorded(request, records)
        if recorded is None:
            return request, proposals.Refusal("not_recorded", confirmation.unrecorded())
        if recorded["proposals"] != request["proposals"] or recorded["actor"] != request.get(
            "actor"
        ):
            return recorded, proposals.Refusal("changed", confirmation.not_as_recorded())
        return recorded, None

    def _refused(
        self,
        request: ConfirmationRequest,
        refusal: proposals.Refusal,
        removed: list[AnyMessage | RemoveMessage],
    ) -> Command[Any]:
        """Ask again, with the reason the decision was not applied."""
        refused: ConfirmUpdate = {"pending": {**request, "error": refusal.text}}
        if removed:
            refused["messages"] = removed
        return Command(goto="confirm", update=refused)

    async def _read(self, raw: Any, request: ConfirmationRequest, ctx: RunContext) -> Any:
        """Turn a typed reply into a decision value; anything else is a decision already."""
        reply = raw if isinstance(raw, str) else None
        if isinstance(raw, Mapping) and set(raw) <= {"reply", "decided_at"} and "reply" in raw:
            reply = str(raw["reply"])
        if reply is None:
            return raw
        intent = clear_intent(reply) or await self._classify(request, reply, ctx)
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
        self, request: ConfirmationRequest, reply: str, ctx: RunContext
    ) -> Literal["approve", "reject", "unrelated"] | None:
        """Ask the model what an unclear reply means; None when it cannot say in time.

        The meanings are offered as tools and one must be called; a model that answers in
        text instead is read by its first word. Anything but approve or reject is unrelated.
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
            answer = await asyncio.wait_for(model.ainvoke(prompt), timeout=CLASSIFY_TIMEOUT_S)
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

    async def _record(
        self,
        runtime: Runtime[RunContext],
        request: ConfirmationRequest,
        decisions: dict[str, Decision],
    ) -> None:
        thread_id = (runtime.execution_info.thread_id if runtime.execution_info else None) or ""
        await decision_records.record(self._db, thread_id, request["proposals"], decisions)

    def _wave(self, state: AgentState) -> list[dict[str, str]]:
        """The calls a dismissal answers as not run: the wave that proposed."""
        message = next(m for m in reversed(state["messages"]) if isinstance(m, AIMessage))
        return [{"id": c.id, "name": c.name} for c in calls_of(message)]

    def _moved_on(self, update: ConfirmUpdate) -> Command[Any]:
        """The person moved on: their message opens a turn."""
        return Command(goto=OPENING_NODES, update=update)


class PlannerConfirm(Confirm):
    """confirm inside the planner: a dismissal ends the planner and opens the main turn."""

    async def __call__(  # type: ignore[override]
        self, state: PlannerState, runtime: Runtime[RunContext]
    ) -> Command[Literal["tools", "confirm"]]:
        """Propose, wait, record (as the main graph's confirm).

        The annotation matters: LangGraph gives a node the keys of its state type, and
        this node needs the planner's (`parent_calls`, `parent_run_id`).
        """
        return await super().__call__(state, runtime)  # type: ignore[arg-type,return-value]

    def _wave(self, state: AgentState) -> list[dict[str, str]]:
        # The main graph's wave (the create_plan call) is what goes unanswered up there.
        return list(state.get("parent_calls", []))  # type: ignore[call-overload]

    def _moved_on(self, update: ConfirmUpdate) -> Command[Any]:
        return Command(graph=Command.PARENT, goto=OPENING_NODES, update=update)


def _dismissal(value: Any) -> bool:
    """Whether a decision value says the person moved on (nothing runs)."""
    return isinstance(value, Mapping) and value.get("decision") == "dismiss"


def _dismissed(calls: Sequence[Mapping[str, Any]], text: str, decider: Asker) -> ConfirmUpdate:
    """Answer every call of the wave as not run, then open a turn with the new message."""
    results: list[AnyMessage | RemoveMessage] = [
        ToolMessage(
            content=confirmation.not_confirmed(),
            tool_call_id=call["id"] or "",
            name=call["name"] or "?",
            status="error",
            additional_kwargs={"outcome": "not_confirmed"},
        )
        for call in calls
    ]
    opening = HumanMessage(content=text, id=str(uuid.uuid4()))
    results.append(stamp(opening, decider.user_id, decider.role))
    return {"messages": results, "decisions": {}, "pending": None}
