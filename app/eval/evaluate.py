"""Runs scenarios through the real runner, each on its own fresh workspace and checkpoints.

With the scripted model (the default) each scenario's steps bring the model's answers;
with a real model (`openai:<model>`, `local`) the scripts are ignored and only the
expectations are checked.
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage
from sqlalchemy import func, select

from app.db.engine import open_database
from app.db.models import Base
from app.eval.checks import check_confirmed, check_step
from app.eval.observe import StepObservation, step_calls
from app.eval.placeholders import PlaceholderError, fill
from app.eval.scenario import RowCount, Scenario, Step
from app.eval.usage import count_model_calls
from app.eval.workspace import build_template, prepare
from app.models import ModelResolver
from app.models.scripted import ScriptedChatModel
from app.settings import Settings
from graph.runner import Runner, TurnRequest, TurnResult
from tools.registry import ToolRegistry, default_registry

logger = logging.getLogger(__name__)


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


async def evaluate(
    scenarios: list[Scenario],
    base: Settings,
    model: str | None = None,
    *,
    models: ModelResolver | None = None,
    registry: ToolRegistry | None = None,
    on_result: Callable[[ScenarioResult], None] | None = None,
) -> EvalReport:
    """Run every scenario in turn; `model` None means each scenario's scripted answers.

    The demo workspace is migrated and seeded once, in a temporary folder, and each
    scenario gets a copy; `on_result` hears of each scenario as it finishes.
    """
    registry = registry or default_registry()
    models = models or ModelResolver(base)
    results = []
    with tempfile.TemporaryDirectory(prefix="agentloop-eval-") as tmp:
        folder = Path(tmp)
        template = await build_template(folder / "template", base)
        for scenario in scenarios:
            runs = folder / "runs" / scenario.name
            result = await run_scenario(scenario, template, runs, base, models, registry, model)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return EvalReport(model=model or "scripted", scenarios=results)


async def run_scenario(
    scenario: Scenario,
    template: Path,
    folder: Path,
    base: Settings,
    models: ModelResolver,
    registry: ToolRegistry,
    model: str | None = None,
) -> ScenarioResult:
    """Run one scenario's steps on a copy of `template`; stop at the first failing step."""
    result = ScenarioResult(
        scenario.name, scenario.source, list(scenario.references), len(scenario.steps)
    )
    started = time.perf_counter()
    try:
        settings = prepare(scenario, template, folder, base)
        spec = model or _write_script(scenario, folder)
        await _play(scenario, settings, spec, models, registry, result, scripted=model is None)
        if result.passed:
            result.problems += await _count_rows(settings, scenario.rows)
    except Exception as exc:
        # A scenario that breaks the harness is a failed scenario, not a crashed evaluation.
        logger.exception("eval scenario %s failed", scenario.name)
        result.problems.append(f"error: {type(exc).__name__}: {exc}")
    result.duration_s = time.perf_counter() - started
    return result


async def _play(
    scenario: Scenario,
    settings: Settings,
    spec: str,
    models: ModelResolver,
    registry: ToolRegistry,
    result: ScenarioResult,
    *,
    scripted: bool,
) -> None:
    thread = f"eval-{scenario.name}"
    proposed: set[str] = set()
    async with Runner.open(settings, registry, models) as runner:
        script = runner.models.resolve(spec) if scripted else None
        for step in scenario.steps:
            before = await runner.history(thread)
            seen_ids = {m.id for m in before if m.id}
            calls_before = 0
            if isinstance(script, ScriptedChatModel):
                calls_before = len(script.requests)
                try:
                    _fill_placeholders(script, calls_before, step, before)
                except PlaceholderError as exc:
                    seen = StepObservation(status="not run", text="")
                    result.steps.append(StepResult(step.label, seen, [str(exc)]))
                    return
            events: list[dict[str, Any]] = []
            with count_model_calls() as counter:
                turn = await _send(runner, _request(scenario, step, thread, spec), step, events)
            history = await runner.history(thread)
            proposals = [p for item in turn.interrupts for p in item.get("proposals", [])]
            seen = StepObservation(
                status=turn.status,
                text=turn.text,
                calls=step_calls(history, seen_ids, events, proposals),
                proposals=proposals,
                llm_calls=len(counter.calls),
                input_tokens=counter.input_tokens,
                output_tokens=counter.output_tokens,
                tokens_estimated=counter.estimated,
            )
            problems = check_step(step.expect, seen) + check_confirmed(seen, proposed, registry)
            if isinstance(script, ScriptedChatModel):
                problems += _script_use(len(script.requests) - calls_before, len(step.model))
            proposed |= {p["tool_call_id"] for p in proposals}
            result.steps.append(StepResult(step.label, seen, problems))
            if problems:
                return


def _fill_placeholders(
    script: ScriptedChatModel, offset: int, step: Step, history: list[BaseMessage]
) -> None:
    """Fill the step's scripted turns (next in the script) from the thread's results."""
    # Every earlier step used exactly its own turns (a step that did not stops the
    # scenario), so the step's turns start at the number of calls made so far.
    script.turns[offset : offset + len(step.model)] = fill(step.model, history)


def _request(scenario: Scenario, step: Step, thread: str, spec: str) -> TurnRequest:
    return TurnRequest(
        thread_id=thread,
        user_id=step.user or scenario.user,
        message=step.say or "",
        user_role=step.role or scenario.role,
        channel="slack",
        context_type=step.context_type or scenario.context_type,
        model=spec,
        today=scenario.today.isoformat(),
    )


async def _send(
    runner: Runner, request: TurnRequest, step: Step, events: list[dict[str, Any]]
) -> TurnResult:
    if step.say is not None:
        return await runner.run_turn(request, on_event=events.append)
    decision: dict[str, Any] = {"decision": step.decide}
    if step.decide == "reject":
        decision["reason"] = step.reason
    if step.decide == "edit":
        decision["args"] = step.args
    return await runner.resume(request, decision, on_event=events.append)


def _script_use(called: int, scripted: int) -> list[str]:
    if called == scripted:
        return []
    return [
        f"the model was called {called} time(s) in this step; the script has {scripted} "
        "answer(s) for it"
    ]


def _write_script(scenario: Scenario, folder: Path) -> str:
    path = folder / "script.json"
    turns = [turn.model_dump(exclude_defaults=True) for turn in scenario.script()]
    path.write_text(json.dumps(turns, indent=1), encoding="utf-8")
    return f"scripted:{path}"


async def _count_rows(settings: Settings, checks: list[RowCount]) -> list[str]:
    if not checks:
        return []
    db = open_database(settings)
    problems = []
    try:
        async with db.session() as session:
            for check in checks:
                table = Base.metadata.tables[check.table]
                query = select(func.count()).select_from(table)
                for column, value in check.where.items():
                    query = query.where(
                        table.c[column].is_(None) if value is None else table.c[column] == value
                    )
                for column, value in check.where_not.items():
                    query = query.where(
                        table.c[column].is_not(None) if value is None else table.c[column] != value
                    )
                count = await session.scalar(query) or 0
                if count != check.count:
                    problems.append(f"{_describe(check)}: {count} row(s), expected {check.count}")
    finally:
        await db.dispose()
    return problems


def _describe(check: RowCount) -> str:
    conditions = [f"{c} = {v!r}" for c, v in check.where.items()]
    conditions += [f"{c} != {v!r}" for c, v in check.where_not.items()]
    return check.table + (f" where {' and '.join(conditions)}" if conditions else "")
