"""confirm: the wave's proposals wait in one `interrupt()` for a person's decision.

Nothing with side effects happens before the interrupt: the node shows the proposals that
propose recorded, pauses, then checks the decision (the only place decisions are checked)
against the proposals as the workspace recorded them, not as the thread's state shows them,
and records it in the workspace, where the tools node looks for it before any change runs.
The decider is who sent the run (the server's authenticated user), never a context field.
A reply typed in the thread ("yes, create it") is read here too (`nodes/reply_reading.py`)
and stays in the transcript as a decision; one about something else, from someone who may
not decide, is answered as an ordinary turn beside the change (`nodes/waiting_change.py`).
A refused decision re-asks with the reason.
"""

from __future__ import annotations

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
    ToolMessage,
)
from langgraph.runtime import Runtime
from langgraph.types import Command
from sqlalchemy.exc import SQLAlchemyError

from core import events
from core.asker import Asker, caller_of, stamp
from core.db.engine import Database
from core.db.people import role_of
from core.db.schema_errors import is_unmigrated
from core.messages import calls_of
from core.models import ModelResolver
from core.planner_state import PlannerState
from core.run_context import RunContext
from core.state import OPENING_NODES, AgentState, ConfirmationRequest, ConfirmUpdate, Decision
from history.pipeline import DECISION_REPLY, is_decision
from nodes import waiting_change
from nodes.asking import ask
from nodes.recorded_request import as_recorded
from nodes.reply_reading import ReplyReader, reply_of
from prompts import confirmation
from tools import decision_records, proposals
from tools.registry import ToolRegistry

logger = logging.getLogger(__name__)


class Confirm:
    """The confirm node, bound to a registry, the models (to read replies) and the workspace."""

    def __init__(self, registry: ToolRegistry, models: ModelResolver, db: Database) -> None:
        self._registry = registry
        self._replies = ReplyReader(models)
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
        typed = isinstance(last, HumanMessage) and not is_decision(last)
        if typed:
            # A message sent to the thread while the change waits (Studio's chat box starts
            # a new run instead of resuming): it is the person's reply to the proposals.
            raw: Any = {"reply": last.text}
        else:
            runtime.stream_writer(
                events.agent_state("waiting_on_user", confirmation.waiting(request["proposals"]))
            )
            raw = await ask(request, runtime)
        caller = caller_of(runtime)
        decider = Asker(caller.user_id, await role_of(self._db, caller.user_id, caller.role))
        deadline = ctx.deadline_for(state.get("deadline"))
        value = await self._replies.read(raw, request, ctx, deadline)
        if _dismissal(value) and self._may_set_aside(state, request, decider, ctx):
            # Someone who may not decide wrote about something else: they are answered,
            # and the change waits for its asker.
            text = str(value.get("message") or "")
            return self._opened(waiting_change.set_aside(state, request, text, decider, typed))
        # A typed reply that decides stays in the transcript (a decision, not an ask).
        noted = self._noted(raw, last if typed else None, decider)
        checked = request
        if not _dismissal(value):
            # Moving on runs nothing; any other decision is about a change, and is checked
            # against the change as recorded.
            thread_id = runtime.execution_info.thread_id if runtime.execution_info else None
            checked, problem = await as_recorded(self._db, thread_id or "", request)
            if problem is not None:
                return self._refused(checked, problem, noted)
        outcome = proposals.check(
            checked,
            value,
            decider=decider,
            approver_roles=ctx.approver_roles,
            tools={t.name: t for t in self._registry.tools()},
            now=time.time(),
        )
        if isinstance(outcome, proposals.Refusal):
            return self._refused(checked, outcome, noted)
        if any(d["decision"] == "dismiss" for d in outcome.values()):
            text = str((value.get("message") if isinstance(value, dict) else "") or "")
            dismissed = _dismissed(self._wave(state), text, decider)
            removed: list[AnyMessage | RemoveMessage] = (
                [RemoveMessage(id=last.id or "")] if typed else []
            )
            dismissed["messages"] = [*removed, *dismissed["messages"]]
            return self._moved_on(dismissed)
        try:
            await self._record(runtime, checked, outcome)
        except SQLAlchemyError as exc:
            if not is_unmigrated(exc):
                raise
            refusal = proposals.Refusal("unmigrated", confirmation.workspace_not_migrated())
            return self._refused(checked, refusal, noted)
        # The decision may come long after the question: what it sets off gets a turn's time.
        update: ConfirmUpdate = {
            "decisions": {**state.get("decisions", {}), **outcome},
            "pending": None,
            "deadline": time.time() + ctx.turn_timeout_s,
        }
        if state.get("final_text"):
            # The answer given meanwhile, beside the waiting change, is over: its turn goes on.
            update["final_text"], update["status"] = "", "running"
        if noted:
            update["messages"] = noted
        return Command(goto="tools", update=update)

    def _may_set_aside(
        self,
        state: AgentState,
        request: ConfirmationRequest,
        sender: Asker,
        ctx: RunContext,
    ) -> bool:
        """Whether a message about something else is answered beside the waiting change.

        It is when its sender may not decide on the change (the asker moving on drops it),
        and no other change is set aside already.
        """
        actor = request.get("actor", "")
        return not state.get("set_aside") and not proposals.may_decide(
            sender, actor, ctx.approver_roles
        )

    def _noted(
        self, raw: Any, typed: AnyMessage | None, decider: Asker
    ) -> list[AnyMessage | RemoveMessage]:
        """The transcript's record of a reply typed as a decision (none for other values)."""
        if typed is not None:
            kwargs = {**typed.additional_kwargs, "user_id": decider.user_id}
            kwargs.update({"user_role": decider.role, DECISION_REPLY: True})
            return [HumanMessage(content=typed.content, id=typed.id, additional_kwargs=kwargs)]
        reply = reply_of(raw)
        if reply is None:
            return []
        message = stamp(HumanMessage(content=reply), decider.user_id, decider.role)
        message.additional_kwargs[DECISION_REPLY] = True
        return [message]

    def _refused(
        self,
        request: ConfirmationRequest,
        refusal: proposals.Refusal,
        noted: list[AnyMessage | RemoveMessage],
    ) -> Command[Any]:
        """Ask again, with the reason the decision was not applied."""
        refused: ConfirmUpdate = {"pending": {**request, "error": refusal.text}}
        if noted:
            refused["messages"] = noted
        return Command(goto="confirm", update=refused)

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
        return self._opened(update)

    @staticmethod
    def _opened(update: ConfirmUpdate) -> Command[Any]:
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

    def _may_set_aside(
        self,
        state: AgentState,
        request: ConfirmationRequest,
        sender: Asker,
        ctx: RunContext,
    ) -> bool:
        # The planner's wave lives in its own state: a teammate's message is refused here.
        return False

    def _noted(
        self, raw: Any, typed: AnyMessage | None, decider: Asker
    ) -> list[AnyMessage | RemoveMessage]:
        # The planner's messages go to its model as they are: the decision is its result.
        return []


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
