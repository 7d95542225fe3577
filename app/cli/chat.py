"""`chat`: a REPL over one thread, with live status and inline approve/reject/edit prompts."""

from __future__ import annotations

import asyncio
import getpass
import json
import logging
import uuid
from dataclasses import replace
from typing import Annotated

import typer
from rich.console import Console

from app.cli.config import cannot_open, request_or_exit, warned, workspace_or_exit
from app.cli.options import (
    ContextTypeOpt,
    ModelOpt,
    RoleOpt,
    TodayOpt,
    UserOpt,
    VerboseOpt,
    text_id,
)
from app.cli.prepare import warmed
from app.cli.render import LiveStatus, print_result
from app.cli.single_turn import waiting
from checkpoints.lanes import Lanes
from checkpoints.savers import CheckpointerNotReadyError
from core.models import ModelConfigError
from core.observability import logs
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from tools.pack_loading import PackError

out = Console()
err = Console(stderr=True, soft_wrap=True)
logger = logging.getLogger(__name__)


def chat(
    thread: Annotated[
        str | None, typer.Option("--thread", "-t", help="Continue this thread.", callback=text_id)
    ] = None,
    user: UserOpt = None,
    role: RoleOpt = "member",
    model: ModelOpt = None,
    today: TodayOpt = None,
    context_type: ContextTypeOpt = "general",
    verbose: VerboseOpt = False,
) -> None:
    """Talk with the agent; an empty line or Ctrl-D ends the conversation."""
    thread_id = thread or f"cli-{uuid.uuid4().hex[:8]}"
    base = request_or_exit(
        thread_id=thread_id,
        user_id=user or getpass.getuser(),
        message="",
        user_role=role,
        model=model,
        today=today.isoformat() if today else None,
        context_type=context_type,
    )
    settings = workspace_or_exit()
    log_path = logs.configure(settings.data_dir, verbose)
    spec = model or settings.model_spec()
    out.print(
        f"[bold]agentloop[/] — model [cyan]{spec}[/], "
        f"checkpointer [cyan]{settings.checkpointer_kind()}[/], thread [cyan]{thread_id}[/]\n"
        f"[dim]Logs: {log_path}. Empty line or Ctrl-D to quit.[/]"
    )
    code = asyncio.run(_chat(settings, base, local=spec == "local"))
    raise typer.Exit(code)


async def _chat(settings: Settings, base: TurnRequest, *, local: bool) -> int:
    try:
        async with Runner.open(settings, warn=warned) as runner, Lanes.open(settings) as lanes:
            runner.check_model(base.model)
            asks = runner.registry.starters(base.user_role)
            if local and asks:
                # The embedded model is tiny: it does one clear thing per message well.
                examples = " · ".join(f'"{ask}"' for _, ask in asks)
                out.print(
                    f"[dim]The local model takes one ask at a time, for example: {examples}. "
                    '"what can you do?" lists the rest.[/]'
                )
            await warmed(runner, base.model, err)
            while True:
                message = await _read("[bold green]you>[/] ")
                if not message:
                    return 0
                request = replace(base, message=message)
                async with lanes.hold(base.thread_id, on_wait=waiting(base.thread_id)):
                    with LiveStatus(err) as status:
                        result = await runner.run_turn(request, on_event=status)
                print_result(out, result)
                while result.status == "needs_confirmation":
                    decision = await _ask_decision()
                    if decision is None:
                        out.print("[dim]The change is still waiting; a reply decides it.[/]")
                        break
                    hold = lanes.hold(base.thread_id, on_wait=waiting(base.thread_id))
                    async with hold:
                        with LiveStatus(err) as status:
                            if isinstance(decision, str):
                                # Anything else is the next message: the thread reads it as
                                # a yes, a no, or a move on to something else.
                                request = replace(request, message=decision)
                                result = await runner.run_turn(request, on_event=status)
                            else:
                                result = await runner.resume(request, decision, on_event=status)
                    print_result(out, result)
    except (ModelConfigError, CheckpointerNotReadyError, PackError) as exc:
        raise cannot_open(settings, exc) from None
    except Exception as exc:
        logger.exception("chat could not start")
        raise typer.TyperException(f"could not start: {exc}") from None  # one line, exit 1


async def _ask_decision() -> dict[str, object] | str | None:
    """Ask inline what to do with a proposal; any other text is the person's next message.

    An empty line or end of input leaves the proposal waiting (None).
    """
    prompt = "[bold yellow]approve?[/] \\[y]es / \\[n]o / \\[e]dit / or just keep talking> "
    answer = await _read(prompt)
    if not answer:
        return None
    if answer.lower() in ("y", "yes"):
        return {"decision": "approve"}
    if answer.lower() in ("n", "no"):
        reason = await _read("reason (optional)> ")
        return {"decision": "reject", "reason": reason or ""}
    if answer.lower() in ("e", "edit"):
        raw = await _read('changed arguments as JSON, e.g. {"title": "…"}> ')
        try:
            args = json.loads(raw or "")
        except json.JSONDecodeError as exc:
            err.print(f"[red]not valid JSON:[/] {exc}")
            return await _ask_decision()
        return {"decision": "edit", "args": args}
    return answer


async def _read(prompt: str) -> str | None:
    """Read one line from the person; None at end of input."""
    try:
        return (await asyncio.to_thread(out.input, prompt)).strip()
    except (EOFError, KeyboardInterrupt):
        out.print()
        return None
