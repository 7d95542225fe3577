"""How a run ended, from its stream: its final state, what waits, its steps, what failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langgraph.types import Interrupt

from checkpoints.savers import CheckpointerNotReadyError
from core.models import ModelConfigError


@dataclass
class Ending:
    """How a run ends, gathered from its stream: the final state, what waits, its steps."""

    values: dict[str, Any] | None = None
    interrupts: list[Interrupt] = field(default_factory=list)
    steps: int = 0

    def observe(self, namespace: tuple[str, ...], mode: str, chunk: Any) -> None:
        """Count the run's own steps and collect what they left waiting."""
        if mode != "updates" or namespace or not isinstance(chunk, dict):
            return
        self.steps += 1
        self.interrupts.extend(chunk.get("__interrupt__") or ())


def checks_failed(values: dict[str, Any] | None) -> str | None:
    """What the answer checks found in every draft of a turn that gave up (for the audit)."""
    if not values or values.get("status") != "failed_verification":
        return None
    return "; ".join(dict.fromkeys(values.get("issues") or values.get("feedback") or [])) or None


def failure_reason(exc: Exception) -> str:
    """The one line a run's audit row and `run.failed` event give for its failure."""
    if isinstance(exc, ModelConfigError | CheckpointerNotReadyError):
        return str(exc)
    if isinstance(exc, TimeoutError):
        return "timeout"
    return f"{type(exc).__name__}: {exc}"
