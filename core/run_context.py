"""Per-run values that are not state: who is asking, where, with which model and limits.

`RunContext` is the graph's `context_schema`. Its first fields are what a caller (the
runner, Studio, the SDK) chooses per run; they form Studio's context form, with their
allowed values. The rest is the deployment's: limits, screening and approvals come from
`Settings` (the server's own, for a Studio run) and are not part of the form, so a run
cannot widen them.
"""

from __future__ import annotations

import time
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal, get_args
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.json_schema import SkipJsonSchema

from core.settings import GuardMode, Settings, get_settings

Role = Literal["viewer", "member", "admin"]
ROLES: tuple[str, ...] = get_args(Role)
ContextType = Literal["general", "client", "task", "task_create", "audit"]
CONTEXT_TYPES: tuple[str, ...] = get_args(ContextType)
DEFAULT_USER = "local-user"
"""The asker of a run that names nobody (a Studio or SDK run without a user in its context)."""


class InvalidRunContext(ValueError):
    """A run context value that is not allowed: one line naming the field and why."""


def _deployment(name: str) -> Any:
    """A deployment field: unless the caller sets it, the process's settings give its value."""
    return Field(
        default_factory=lambda data: deployment_values(get_settings(), data.get("model"))[name]
    )


class RunContext(BaseModel):
    """LangGraph `context_schema`: set by the runner (or Studio) for every run."""

    model_config = ConfigDict(frozen=True, extra="ignore", use_attribute_docstrings=True)

    user_id: str = Field(default=DEFAULT_USER, min_length=1, max_length=200)
    """Who is asking: the person tools act for and whose approval a change needs."""
    user_role: Role = "member"
    """The asker's role when the workspace does not list them (it decides which tools run)."""
    channel: str = "cli"
    """Where the conversation happens (cli, slack, studio); shown to the model."""
    context_type: ContextType = "general"
    """What kind of work this is; adds its guidance to the system prompt."""
    model: str | None = None
    """Model spec (openai:<model>, local, scripted:<file>); empty: the deployment's default."""
    today: date | None = None
    """The date the run treats as today (YYYY-MM-DD); empty: today in the deployment's time
    zone."""

    # The deployment's values: filled from `Settings`, never part of Studio's form.
    timezone: SkipJsonSchema[str] = _deployment("timezone")
    max_tool_calls: SkipJsonSchema[int] = _deployment("max_tool_calls")
    max_rounds: SkipJsonSchema[int] = _deployment("max_rounds")
    turn_timeout_s: SkipJsonSchema[float] = _deployment("turn_timeout_s")
    tool_timeout_s: SkipJsonSchema[float] = _deployment("tool_timeout_s")
    verify_max_attempts: SkipJsonSchema[int] = _deployment("verify_max_attempts")
    tool_budget: SkipJsonSchema[int] = _deployment("tool_budget")
    """Tools offered to each model call (preselection keeps the best-ranked)."""
    confirmation_ttl_s: SkipJsonSchema[float] = _deployment("confirmation_ttl_s")
    approver_roles: SkipJsonSchema[frozenset[str]] = _deployment("approver_roles")
    """Roles that may decide on another person's proposal (the proposer always may)."""
    input_guard: SkipJsonSchema[GuardMode] = _deployment("input_guard")
    context_dir: SkipJsonSchema[Path | None] = _deployment("context_dir")
    """Folder of markdown files gather searches; None: no context folder."""
    context_block_tokens: SkipJsonSchema[int] = _deployment("context_block_tokens")
    history_turns: SkipJsonSchema[int] = _deployment("history_turns")
    context_window: SkipJsonSchema[int] = _deployment("context_window")
    """Tokens the run's model accepts per request."""
    compaction_model: SkipJsonSchema[str | None] = _deployment("compaction_model")
    """Model spec for the memory flush and the summary, `extractive` for none (the summary
    lists the earlier asks and answers); None: the run's model."""
    verify_judge: SkipJsonSchema[bool] = _deployment("verify_judge")
    run_id: SkipJsonSchema[str | None] = None
    """The run's id, set by the runner; None: LangGraph's run id."""
    deadline: SkipJsonSchema[float | None] = None
    """When this invocation must end (epoch seconds), set by the runner for each one; None:
    the deadline the turn set when it opened (a Studio run)."""

    def __init__(self, **values: Any) -> None:
        """Build the context (LangGraph builds it from a run's `context` this way).

        Raises:
            InvalidRunContext: a value is not allowed (one line: which field, and why).
        """
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise InvalidRunContext(_one_line(exc)) from exc

    @classmethod
    def from_settings(cls, settings: Settings, **per_run: Any) -> RunContext:
        """Return a run's context: these settings' values, then the run's own."""
        return cls(**{**deployment_values(settings, per_run.get("model")), **per_run})

    def run_date(self) -> date:
        """Return the date the run treats as today."""
        return self.today or datetime.now(ZoneInfo(self.timezone)).date()

    def deadline_for(self, turn_deadline: float | None) -> float:
        """Return when the work of this invocation must end.

        An approval may come hours after the question, and a crashed run may be finished
        later still: each invocation gets its own time budget, not what is left of the turn's.
        """
        return self.deadline or turn_deadline or time.time() + self.turn_timeout_s


def _one_line(exc: ValidationError) -> str:
    """The context's problems in one line: the fields a caller set and what is wrong with them.

    A deployment field is filled from the caller's model, so any problem also leaves those
    unfilled; that is no problem of theirs.
    """
    problems = [
        f"{'.'.join(str(part) for part in error['loc']) or 'context'}: "
        f"{error['msg'][:1].lower()}{error['msg'][1:]} (got {error.get('input')!r})"
        for error in exc.errors()
        if error["type"] != "default_factory_not_called"
    ]
    return "invalid run context: " + "; ".join(problems or ["it could not be read"])


def deployment_values(settings: Settings, model: str | None) -> dict[str, Any]:
    """Return the run context's deployment fields as `settings` set them."""
    return {
        "timezone": settings.timezone,
        "max_tool_calls": settings.max_tool_calls_per_turn,
        "max_rounds": settings.max_rounds,
        "turn_timeout_s": settings.turn_timeout_s,
        "tool_timeout_s": settings.tool_timeout_s,
        "verify_max_attempts": settings.verify_attempts_for(model),
        "tool_budget": settings.tool_budget,
        "confirmation_ttl_s": settings.confirmation_ttl_hours * 3600,
        "approver_roles": settings.approver_roles,
        "input_guard": settings.input_guard,
        "context_dir": settings.context_dir,
        "context_block_tokens": settings.context_block_tokens,
        "history_turns": settings.history_turns,
        "context_window": settings.context_window_for(model),
        "compaction_model": settings.compaction_model_for(model),
        "verify_judge": settings.verify_judge,
    }
