"""review: a reviewer model call approves, rejects or asks for changes before anything runs."""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.types import Command

from core.models import ModelResolver
from core.planner_state import PlannerState, plan_review
from core.run_context import RunContext
from nodes.planner.model_json import reply_json
from nodes.planner.prompting import PlannerModel, plan_listing
from prompts.system import section

VERDICTS = ("approved", "rejected", "needs_changes")


class Review:
    """The review node."""

    def __init__(self, models: ModelResolver | None = None) -> None:
        self._model = PlannerModel(models)

    async def __call__(
        self, state: PlannerState, runtime: Runtime[RunContext]
    ) -> Command[Literal["step", "finish"]]:
        """Ask the reviewer; only an approved plan goes on to run."""
        plan = state["plan"]
        model = self._model.resolve(runtime.context.model)
        reply = await model.ainvoke(
            [
                SystemMessage(content=section("plan_review")),
                HumanMessage(
                    content=f"Objective: {plan['objective']}\n\nPlan:\n"
                    f"{plan_listing(plan['steps'])}"
                ),
            ]
        )
        data = reply_json(reply.text) or {}
        verdict = str(data.get("verdict", "")).strip().lower()
        notes = str(data.get("notes", "")).strip()
        if verdict not in VERDICTS:
            # An unreadable review approves nothing.
            verdict, notes = "needs_changes", f"the review could not be read: {reply.text[:200]}"
        runtime.stream_writer(plan_review(plan["plan_id"], verdict, notes))
        review = {"verdict": verdict, "notes": notes}
        if verdict == "approved":
            return Command(goto="step", update={"review": review})
        status = "rejected" if verdict == "rejected" else "needs_changes"
        reviewed = {**plan, "status": status}
        return Command(
            goto="finish",
            update={
                "review": review,
                "plan": reviewed,
                "plans": {plan["plan_id"]: reviewed},
                "status": "blocked",
            },
        )
