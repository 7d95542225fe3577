"""`agentloop eval`: run scenario files and print a table of what passed, with calls and tokens."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from app.cli.bad_starts import BadStart
from app.cli.config import settings_or_exit
from app.cli.eval_drafts import write_feedback_drafts
from app.eval.evaluate import evaluate
from app.eval.report import print_report, report_json
from app.eval.results import ScenarioResult
from app.eval.scenario import SHIPPED, ScenarioFilesError, load_all
from core.models import ModelConfigError, ModelResolver
from core.observability import logs
from tools.pack_loading import PackError, enabled

out = Console()
err = Console(stderr=True, soft_wrap=True)


def eval_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Scenario files or folders (default: the runtime's and the enabled packs')."
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="Run on this model instead of the scenarios' scripts: openai:<model> or local.",
        ),
    ] = None,
    keyword: Annotated[
        str | None, typer.Option("-k", help="Only scenarios whose name contains this.")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log to stderr too.")] = False,
    from_feedback: Annotated[
        bool,
        typer.Option(
            "--from-feedback",
            help="Write a draft scenario for each answer rated negative, instead of running.",
        ),
    ] = False,
    out_dir: Annotated[
        Path, typer.Option("--out", help="Where --from-feedback writes its drafts.")
    ] = Path("feedback-drafts"),
) -> None:
    """Run the evaluation scenarios, each on a fresh demo workspace, and report.

    Exit status: 0 every scenario passed, 1 some failed, 2 bad usage or scenario files.
    With --from-feedback: write the drafts (exit 0) and run nothing.
    """
    if from_feedback:
        if paths or model is not None or keyword:
            raise BadStart("--from-feedback takes only --out (it runs no scenario)")
        write_feedback_drafts(out_dir, json_output)
        return
    if model is not None and model.startswith("scripted"):
        err.print(
            "[red]error:[/] --model takes a real model (openai:<model> or local); "
            "without it each scenario runs on its own script"
        )
        raise typer.Exit(2)
    settings = settings_or_exit()
    logs.configure(settings.data_dir, verbose)
    try:
        packs = enabled(settings.packs)
    except PackError as exc:
        raise BadStart(str(exc)) from None
    folders = [SHIPPED, *(pack.scenarios for pack in packs if pack.scenarios is not None)]
    try:
        scenarios, skipped = load_all(paths or folders, {pack.name for pack in packs})
    except ScenarioFilesError as exc:
        for bad in exc.errors:
            err.print(f"[red]invalid scenario[/] {escape(str(bad.path))}:", highlight=False)
            for problem in bad.problems:
                err.print(f"  - {problem}", markup=False, highlight=False)
        raise typer.Exit(2) from None
    for path, missing in skipped.items():
        err.print(
            f"[dim]skip {escape(Path(path).stem)} (needs the {', '.join(missing)} pack enabled)[/]",
            highlight=False,
        )
    if keyword:
        scenarios = [s for s in scenarios if keyword in s.name]
    if not scenarios:
        err.print("[red]error:[/] no scenarios to run")
        raise typer.Exit(2)
    models = ModelResolver(settings)
    if model is not None:
        try:
            models.resolve(model)
        except ModelConfigError as exc:
            err.print(f"[red]error:[/] {exc}")
            raise typer.Exit(2) from None
    if not out.is_terminal:
        # Piped or in CI: no terminal to fit, so names and numbers are never cut short.
        out.width = max(out.width, 120)
    progress = None if json_output else _progress
    report = asyncio.run(evaluate(scenarios, settings, model, models=models, on_result=progress))
    if json_output:
        sys.stdout.write(json.dumps(report_json(report), ensure_ascii=False) + "\n")
    else:
        print_report(out, report)
    raise typer.Exit(0 if report.passed == len(report.scenarios) else 1)


def _progress(result: ScenarioResult) -> None:
    mark = "[green]pass[/]" if result.passed else "[bold red]FAIL[/]"
    err.print(f"{mark} {result.name} [dim]({result.duration_s:.1f} s)[/]")
