"""propose: turns a wave's mutating calls into proposals, recorded in the workspace and in state.

Recording them here, in a node of their own before `confirm` interrupts, is what makes a
proposal the same on every path to it: a resume, a re-run or a fork of confirm reads these
proposals (their times, fingerprints and so idempotency keys) instead of making new ones.
The workspace keeps the first record of each call, so proposing a call again (a re-run, a
fork, a state edit of who asked) shows the recorded proposal, never a new one.
Only calls that can run are proposed: within the turn's call budget, allowed to the asker's
role, with valid arguments, and not refused by their tool's preview; the tools node answers
the others (capped, refused, invalid, or why the change cannot be made as given).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Literal

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime
from langgraph.types import Command
from sqlalchemy.exc import SQLAlchemyError

from core.asker import asker_of
from core.db.engine import Database
from core.db.schema_errors import is_unmigrated
from core.messages import calls_of
from core.planner_state import PlannerState
from core.run_context import RunContext
from core.state import AgentState, ConfirmationRequest, Proposal, ProposeUpdate
from nodes.planner import resume_point
from prompts import confirmation
from tools import proposal_records, proposals
from tools.declaration import ToolArgumentsError, ToolContext, ToolFailure
from tools.registry import ToolRegistry

logger = logging.getLogger(__name__)


class Propose:
    """The propose node, bound to a registry and the workspace that keeps the proposals."""

    def __init__(self, registry: ToolRegistry, db: Database) -> None:
        self._registry = registry
        self._db = db

    async def __call__(
        self, state: AgentState, runtime: Runtime[RunContext]
    ) -> Command[Literal["confirm", "tools"]]:
        """Record the wave's proposals and go to confirm; with none, straight to tools.

        On a workspace that was never migrated nothing can be recorded, so nothing is
        proposed: the tools node answers the wave's changes with the way to set it up.
        """
        request = self.request(state, runtime.context)
        if not request["proposals"]:
            return Command(goto="tools", update={"pending": None})
        message = state["messages"][-1]
        thread_id = (runtime.execution_info.thread_id if runtime.execution_info else None) or ""
        try:
            request = await self._previewed(request, state, runtime.context, thread_id)
            if not request["proposals"]:  # none can be made as given: tools says why
                return Command(goto="tools", update={"pending": None})
            recorded = await proposal_records.record(
                self._db,
                thread_id,
                message.id or "",
                request["proposals"],
                asker_of(state, runtime.context).role,
                **self._resume_point(state),
            )
        except SQLAlchemyError as exc:
            if not is_unmigrated(exc):
                raise
            logger.warning("propose: the workspace is not migrated", exc_info=True)
            unmigrated: ConfirmationRequest = {
                **request,
                "proposals": [],
                "error": confirmation.workspace_not_migrated(),
            }
            return Command(goto="tools", update={"pending": unmigrated})
        update: ProposeUpdate = {
            "pending": {
                **request,
                "actor": recorded[0]["actor"],
                "expires_at": min(p["expires_at"] for p in recorded),
                "proposals": recorded,
            }
        }
        return Command(goto="confirm", update=update)

    async def _previewed(
        self, request: ConfirmationRequest, state: AgentState, ctx: RunContext, thread_id: str
    ) -> ConfirmationRequest:
        """The request with what each change would change, for the tools that can say it.

        Read before the record is written, so a re-run shows the first proposal's line. A
        change its preview says cannot be made as given (a name two records share, nothing
        to change) is left out: the tools node answers its call with the reason.
        """
        tool_ctx = ToolContext.for_run(
            ctx, asker_of(state, ctx), run_id=request["run_id"], thread_id=thread_id, db=self._db
        )
        shown: list[Proposal] = []
        for proposal in request["proposals"]:
            tool = self._registry.get(proposal["tool"])
            line = ""
            if tool is not None and tool.previews is not None:
                try:
                    line = await tool.previews(tool.validate(proposal["args"]), tool_ctx)
                except ToolFailure:
                    continue
            description = "\n".join(filter(None, (proposal["description"], line)))
            shown.append({**proposal, "description": description})
        return {**request, "proposals": shown}

    def _resume_point(self, state: AgentState) -> dict[str, Any]:
        """What the record keeps for a re-run to start from (only the planner needs it)."""
        return {}

    def request(self, state: AgentState, ctx: RunContext) -> ConfirmationRequest:
        """Return the confirmation request for the last AI message's mutating calls."""
        message = state["messages"][-1]
        assert isinstance(message, AIMessage), "propose runs only after an AI message with calls"
        asker = asker_of(state, ctx)
        created_at = time.time()
        run_id = state.get("run_id", "")
        budget = (
            max(ctx.max_tool_calls - state.get("tool_calls_used", 0), 0)
            if state.get("rounds", 0) < ctx.max_rounds
            else 0
        )
        pending: list[Proposal] = []
        for call in calls_of(message)[:budget]:
            tool = self._registry.get(call.name)
            if call.invalid or tool is None or not tool.mutating or asker.role not in tool.roles:
                continue
            try:
                tool.validate(call.args)
            except ToolArgumentsError:
                continue
            pending.append(
                proposals.make_proposal(
                    tool,
                    call.args,
                    call_id=call.id,
                    message_id=message.id or "",
                    run_id=run_id,
                    actor=asker.user_id,
                    created_at=created_at,
                    ttl_s=ctx.confirmation_ttl_s,
                )
            )
        return ConfirmationRequest(
            type="confirmation",
            run_id=run_id,
            turn_run_id=str(state.get("parent_run_id") or run_id),
            actor=asker.user_id,
            expires_at=min((p["expires_at"] for p in pending), default=""),
            proposals=pending,
        )


class PlannerPropose(Propose):
    """propose inside the planner (annotated with its state, so it reads the planner's keys).

    Its records also keep the planner's state: re-run from the thread's waiting checkpoint,
    LangGraph starts the planner over, and its start resumes from the recorded proposal.
    """

    async def __call__(  # type: ignore[override]
        self, state: PlannerState, runtime: Runtime[RunContext]
    ) -> Command[Literal["confirm", "tools"]]:
        """Record the planner wave's proposals, as the main graph's propose does."""
        return await super().__call__(state, runtime)  # type: ignore[arg-type]

    def _resume_point(self, state: AgentState) -> dict[str, Any]:
        planner: PlannerState = state  # type: ignore[assignment]
        calls = planner.get("parent_calls") or []
        if not calls or not planner.get("parent_run_id"):
            return {}  # run on its own (no main graph to re-run it), it needs no resume point
        return {"parent_call_id": calls[0]["id"], "resume_state": resume_point.snapshot(planner)}
