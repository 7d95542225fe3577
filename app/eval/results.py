"""What an evaluation found: each step's observation and problems, each scenario's, the run's."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.eval.observe import StepObservation


@dataclass
class StepResult:
    """One step: what it was, what it showed, and what differed from the expectations."""

    label: str
    seen: StepObservation
    problems: list[str] = field(default_factory=list)


@dataclass
class ScenarioResult:
    """One scenario's outcome, with its model calls and tokens."""

    name: str
    source: str
    references: list[str]
    steps_total: int
    steps: list[StepResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Problems outside any step: row counts, an error of the harness."""
    duration_s: float = 0.0

    @property
    def passed(self) -> bool:
        """Whether every step ran and every check held."""
        return (
            not self.problems
            and len(self.steps) == self.steps_total
            and not any(step.problems for step in self.steps)
        )

    @property
    def failures(self) -> list[str]:
        """Every problem, each prefixed with its step."""
        found = [
            f"step {i} ({step.label}): {problem}"
            for i, step in enumerate(self.steps, 1)
            for problem in step.problems
        ]
        return found + self.problems

    @property
    def llm_calls(self) -> int:
        """Model calls of every step."""
        return sum(step.seen.llm_calls for step in self.steps)

    @property
    def input_tokens(self) -> int:
        """Input tokens of every step."""
        return sum(step.seen.input_tokens for step in self.steps)

    @property
    def output_tokens(self) -> int:
        """Output tokens of every step."""
        return sum(step.seen.output_tokens for step in self.steps)

    @property
    def tokens_estimated(self) -> bool:
        """Whether any of the tokens are estimates (the model reported no usage)."""
        return any(step.seen.tokens_estimated for step in self.steps)


@dataclass
class EvalReport:
    """Every scenario's result, and the model they ran on."""

    model: str
    scenarios: list[ScenarioResult]

    @property
    def passed(self) -> int:
        """How many scenarios passed."""
        return sum(result.passed for result in self.scenarios)

    @property
    def pass_rate(self) -> float:
        """Share of scenarios that passed (0 with none)."""
        return self.passed / len(self.scenarios) if self.scenarios else 0.0
