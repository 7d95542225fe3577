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
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from app.eval.checks import check_confirmed, check_step
from app.eval.observe import StepObservation, step_calls
from app.eval.placeholders import PlaceholderError, fill
from app.eval.results import EvalReport, ScenarioResult, StepResult
from app.eval.row_counts import count_rows
from app.eval.scenario import Scenario, Step
from app.eval.usage import count_model_calls
from app.eval.workspace import build_template, prepare
from core.models import ModelResolver
from core.models.scripted import ScriptedChatModel
from core.settings import Settings
from graph.runner import Runner, TurnRequest, TurnResult
from tools.registry import ToolRegistry, registry_for

logger = logging.getLogger(__name__)


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
    registry = registry if registry is not None else registry_for(base)
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
            result.problems += await count_rows(settings, scenario.rows)
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
