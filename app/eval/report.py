"""Shows an evaluation: a rich table per scenario and a summary line, or one JSON object."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from app.eval.results import EvalReport, ScenarioResult

ESTIMATE_NOTE = (
    "~ estimated: the model reported no usage (the scripted model never does), so tokens "
    "are count_tokens_approximately of the messages (tool schemas not counted)"
)


def print_report(console: Console, report: EvalReport) -> None:
    """Print the table of scenarios, then the failures in full, then the summary."""
    table = Table(title=f"agentloop eval — model {report.model}")
    table.add_column("scenario", no_wrap=True)
    table.add_column("steps", justify="right")
    table.add_column("result")
    table.add_column("LLM calls", justify="right")
    table.add_column("tokens in", justify="right")
    table.add_column("tokens out", justify="right")
    table.add_column("s", justify="right")
    for result in report.scenarios:
        approx = "~" if result.tokens_estimated else ""
        table.add_row(
            result.name,
            f"{len(result.steps)}/{result.steps_total}",
            Text("PASS", style="green") if result.passed else Text("FAIL", style="bold red"),
            str(result.llm_calls),
            f"{approx}{result.input_tokens:,}",
            f"{approx}{result.output_tokens:,}",
            f"{result.duration_s:.1f}",
        )
    if any(result.tokens_estimated for result in report.scenarios):
        table.caption = ESTIMATE_NOTE
    console.print(table)
    for result in report.scenarios:
        if not result.passed:
            console.print(f"[bold red]FAIL[/] {result.name} ({result.source})")
            for failure in result.failures:
                console.print(f"  - {failure}", markup=False, highlight=False)
    console.print(summary(report))


def summary(report: EvalReport) -> str:
    """One line: passed scenarios, pass rate, model calls and tokens in total."""
    calls = sum(r.llm_calls for r in report.scenarios)
    tokens_in = sum(r.input_tokens for r in report.scenarios)
    tokens_out = sum(r.output_tokens for r in report.scenarios)
    approx = "~" if any(r.tokens_estimated for r in report.scenarios) else ""
    return (
        f"{report.passed}/{len(report.scenarios)} scenarios passed "
        f"({report.pass_rate:.0%}) · {calls} LLM calls · "
        f"{approx}{tokens_in:,} tokens in / {approx}{tokens_out:,} out"
    )


def report_json(report: EvalReport) -> dict[str, Any]:
    """The whole evaluation as JSON: totals, and each scenario with its steps."""
    return {
        "model": report.model,
        "scenarios_total": len(report.scenarios),
        "scenarios_passed": report.passed,
        "pass_rate": report.pass_rate,
        "scenarios": [_scenario_json(result) for result in report.scenarios],
    }


def _scenario_json(result: ScenarioResult) -> dict[str, Any]:
    return {
        "name": result.name,
        "source": result.source,
        "references": result.references,
        "passed": result.passed,
        "failures": result.failures,
        "llm_calls": result.llm_calls,
        "input_tokens": result.input_tokens,
        "output_tokens": result.output_tokens,
        "tokens_estimated": result.tokens_estimated,
        "duration_s": round(result.duration_s, 3),
        "steps": [
            {
                "step": step.label,
                "status": step.seen.status,
                "text": step.seen.text,
                "tool_calls": [{"name": c.name, "status": c.status} for c in step.seen.calls],
                "proposals": [p["tool"] for p in step.seen.proposals],
                "llm_calls": step.seen.llm_calls,
                "input_tokens": step.seen.input_tokens,
                "output_tokens": step.seen.output_tokens,
                "problems": step.problems,
            }
            for step in result.steps
        ],
    }
