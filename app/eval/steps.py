"""The steps of a scenario: a message or a decision, the model's answers, what it must show."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core.models.scripted import ScriptedTurn
from core.run_context import CONTEXT_TYPES

Role = Literal["viewer", "member", "admin"]
RunStatus = Literal["completed", "needs_confirmation", "refused", "capped", "failed"]
CallStatus = Literal["ok", "error", "refused", "rejected", "not_confirmed", "pending_confirmation"]


class Strict(BaseModel):
    """A part of a scenario file: unknown fields are errors, values never change."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Expect(Strict):
    """What one step must show; every field is optional, and only given ones are checked."""

    status: RunStatus | None = None
    tools: list[str] | None = None
    """Exactly these tool calls in this step, in this order (planner calls included)."""
    tools_unordered: list[str] | None = None
    """Exactly these tool calls in this step, in any order."""
    tools_include: list[str] = Field(default_factory=list)
    tools_exclude: list[str] = Field(default_factory=list)
    outcomes: dict[str, CallStatus] = Field(default_factory=dict)
    """Tool name → status every call of that tool in this step ended with."""
    proposals: list[str] | None = None
    """The tools proposed for confirmation when the step paused ([] for none)."""
    text_contains: list[str] = Field(default_factory=list)
    text_not_contains: list[str] = Field(default_factory=list)
    text_matches: list[str] = Field(default_factory=list)
    """Regular expressions the answer must match (re.search)."""
    text_equals: str | None = None
    llm_calls: int | None = Field(default=None, ge=0)
    """Model calls in this step: only for counts any model shares (e.g. 0 when blocked)."""

    @field_validator("text_matches")
    @classmethod
    def _compiles(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from exc
        return patterns


class Step(Strict):
    """One message (`say`) or one decision on the pending change (`decide`)."""

    say: str | None = None
    decide: Literal["approve", "reject", "edit"] | None = None
    reason: str = ""
    """Why a change was rejected (`decide: reject`); the model is told."""
    args: dict[str, Any] | None = None
    """The changed arguments of `decide: edit`."""
    user: str | None = None
    role: Role | None = None
    context_type: str | None = None
    model: list[ScriptedTurn] = Field(default_factory=list)
    """The scripted model's answers during this step, one per model call, in order."""
    expect: Expect = Field(default_factory=Expect)

    @model_validator(mode="after")
    def _one_action(self) -> Step:
        if (self.say is None) == (self.decide is None):
            raise ValueError("a step has exactly one of say (a message) or decide (a decision)")
        if self.decide == "edit" and not self.args:
            raise ValueError("decide: edit needs args (the arguments to change)")
        if self.args is not None and self.decide != "edit":
            raise ValueError("args go with decide: edit")
        if self.reason and self.decide != "reject":
            raise ValueError("reason goes with decide: reject")
        return self

    @field_validator("context_type")
    @classmethod
    def _knowncontext_type(cls, value: str | None) -> str | None:
        return context_type(value) if value is not None else None

    @property
    def label(self) -> str:
        """A short description of the step for reports."""
        if self.say is not None:
            shown = self.say if len(self.say) <= 40 else self.say[:37] + "..."
            return f"say {shown!r}"
        return f"decide {self.decide}"


def context_type(value: str) -> str:
    """Return `value` if it is a known context type (ValueError otherwise)."""
    if value not in CONTEXT_TYPES:
        raise ValueError(f"must be one of {', '.join(CONTEXT_TYPES)}")
    return value
