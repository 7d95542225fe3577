"""start: reads the request (a create_plan call or a message) and opens the planner's conversation.

The main graph hands over its last AI message with the create_plan call. Run on its own (a
Studio thread, an SDK call), the planner also takes a plain human message as the objective,
as if the person had called create_plan with it (auto_execute); the report answers that
call. Anything else is refused with a message that says what to send.

Started again for a create_plan call it already proposed a change for (the thread re-run
from its waiting checkpoint), it resumes where that proposal was recorded instead of
drafting anew: the re-run shows the same proposal, and asks the model nothing.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime
from langgraph.types import Command
from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError

from core import events
from core.asker import asker_of, stamp
from core.db.engine import Database
from core.db.schema_errors import is_unmigrated
from core.messages import Call, calls_of
from core.models import ModelResolver
from core.planner_state import PlannerState
from core.run_context import RunContext
from core.state import ConfirmationRequest
from nodes.planner import resume_point
from nodes.planner.prompting import PlannerModel
from tools import proposal_records
from tools.plan import CreatePlanArgs

logger = logging.getLogger(__name__)

PLAN_TOOL = "create_plan"
Route = Literal["draft", "review", "step", "finish", "confirm"]


class Start:
    """The planner's start node, bound to the workspace that keeps its recorded proposals."""

    def __init__(self, db: Database | None = None, models: ModelResolver | None = None) -> None:
        self._db = db
        self._model = PlannerModel(models)

    async def __call__(self, state: PlannerState, runtime: Runtime[RunContext]) -> Command[Route]:
        """Resume at a recorded proposal, or validate the request and route to its phase."""
        calls, delegated = _calls(state.get("messages", []))
        if delegated and (resumed := await self._resumed(runtime, calls[0].id)) is not None:
            return resumed
        unable = cannot_plan(self._model.resolve(runtime.context.model))
        return _fresh(state, runtime, calls, delegated, unable)

    async def _resumed(
        self, runtime: Runtime[RunContext], parent_call_id: str
    ) -> Command[Route] | None:
        """The planner's state at the last change it proposed for this call, waiting again."""
        if self._db is None:
            return None
        thread_id = (runtime.execution_info.thread_id if runtime.execution_info else None) or ""
        try:
            wave = await proposal_records.latest_for_plan(self._db, thread_id, parent_call_id)
        except SQLAlchemyError as exc:
            if not is_unmigrated(exc):
                raise
            return None  # nothing can have been recorded; propose says how to set it up
        if not wave or wave[0].resume_state is None:
            return None
        messages, progress = resume_point.restore(wave[0].resume_state)
        proposals = [r.proposal for r in wave]
        run_id = str(progress.get("run_id", ""))
        request = ConfirmationRequest(
            type="confirmation",
            run_id=run_id,
            turn_run_id=str(progress.get("parent_run_id") or run_id),
            actor=proposals[0]["actor"],
            expires_at=min(p["expires_at"] for p in proposals),
            proposals=proposals,
        )
        objective = str((progress.get("request") or {}).get("objective", ""))
        runtime.stream_writer(events.agent_state("executing_plan", objective))
        update: dict[str, Any] = {
            **progress,
            "messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *messages],
            "pending": request,
            "decisions": {},
            "cap": None,
            "status": "completed",
            "error": "",
        }
        return Command(goto="confirm", update=update)


def cannot_plan(model: BaseChatModel) -> str:
    """Why `model` cannot plan ("" when it can): the plan and its review are JSON replies.

    A model says so in its LangChain profile (`structured_output`); one without a profile
    is trusted to.
    """
    profile = model.profile or {}
    if profile.get("structured_output", True):
        return ""
    return (
        f"{profile.get('name') or 'this model'} cannot write the structured replies a plan "
        "needs: ask for one step at a time, or run with a hosted model "
        "(AGENTLOOP_MODEL=openai:<model>)"
    )


def _fresh(
    state: PlannerState,
    runtime: Runtime[RunContext],
    calls: list[Call],
    delegated: bool,
    unable: str,
) -> Command[Route]:
    """Check the model can plan, validate the request, pick up a stored draft, and route."""
    ctx = runtime.context
    asker = asker_of(state, ctx)
    update: dict[str, Any] = {
        "run_id": str(uuid.uuid4()),
        # A person's message has no parent run (the state's run_id is an earlier planner's).
        "parent_run_id": state.get("run_id", "") if delegated else "",
        "parent_calls": [{"id": c.id, "name": c.name} for c in calls],
        "rounds": 0,
        "tool_calls_used": 0,
        "decisions": {},
        "pending": None,
        "step_index": 0,
        "step_notes": [],
        "cap": None,
        "status": "completed",
        "error": "",
    }
    if unable:
        update.update(status="failed", error=unable)
        return Command(goto="finish", update=update)
    try:
        args = CreatePlanArgs.model_validate(calls[0].args)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        update.update(status="failed", error=f"invalid create_plan arguments: {problems}")
        return Command(goto="finish", update=update)
    stored = state.get("plans", {}).get(args.plan_id or "")
    if args.plan_id and stored is None:
        known = ", ".join(state.get("plans", {})) or "none"
        update.update(status="failed", error=f"no stored plan {args.plan_id!r}; known: {known}")
        return Command(goto="finish", update=update)
    objective = args.objective or (stored["objective"] if stored else "")
    runtime.stream_writer(events.agent_state("executing_plan", objective))
    opening = stamp(
        HumanMessage(
            content=_brief(objective, args),
            id=str(uuid.uuid4()),
            additional_kwargs={"planner_run_id": update["run_id"]},
        ),
        asker.user_id,
        asker.role,
    )
    request = {**args.model_dump(), "objective": objective, "execution_mode": args.mode()}
    update.update(
        messages=[RemoveMessage(id=REMOVE_ALL_MESSAGES), opening],
        turn_start_id=opening.id,
        request=request,
    )
    if stored is None or args.revision:
        if stored is not None:
            update["plan"] = stored
        return Command(goto="draft", update=update)
    update["plan"] = {**stored, "execution_mode": args.mode()}
    return Command(goto="review" if args.mode() == "agent_review" else "step", update=update)


class PlannerInputError(ValueError):
    """The planner was started without a request it can read (the caller sees this message)."""


_WHAT_TO_SEND = (
    'send the objective as a human message (e.g. {"messages": [{"type": "human", '
    '"content": "Review Thorinox\'s brands"}]}), or the main graph\'s form: an AI message '
    "calling create_plan as the last message"
)


def _calls(messages: list[AnyMessage]) -> tuple[list[Call], bool]:
    """Return the calls this planner run answers (create_plan first), and who made them.

    True: the main graph delegated them; False: a person's message, read as a create_plan
    call with the message as the objective.
    """
    if not messages:
        raise PlannerInputError(f"The planner needs a request: {_WHAT_TO_SEND}.")
    message = messages[-1]
    if isinstance(message, HumanMessage):
        objective = message.text.strip()
        if not objective:
            raise PlannerInputError(f"The planner got an empty message: {_WHAT_TO_SEND}.")
        call_id = f"call_{uuid.uuid4().hex[:12]}"
        return [Call(call_id, PLAN_TOOL, {"objective": objective})], False
    if not isinstance(message, AIMessage):
        raise PlannerInputError(
            f"The planner cannot start from a {message.type} message: {_WHAT_TO_SEND}."
        )
    calls = calls_of(message)
    if not any(call.name == PLAN_TOOL for call in calls):
        raise PlannerInputError(
            f"The last message is an AI message without a {PLAN_TOOL} call: {_WHAT_TO_SEND}."
        )
    return sorted(calls, key=lambda c: c.name != PLAN_TOOL), True  # create_plan first


def _brief(objective: str, args: CreatePlanArgs) -> str:
    lines = [f"Objective: {objective}"]
    if args.requested_outputs:
        lines.append("Requested outputs: " + "; ".join(args.requested_outputs))
    if args.priority_entities:
        lines.append("Focus on: " + ", ".join(args.priority_entities))
    if args.revision:
        lines.append(f"Revise the stored plan: {args.revision}")
    return "\n".join(lines)
