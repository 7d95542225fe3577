"""`chat`: a REPL over one thread, with live status and inline approve/reject/edit prompts.

SIGTERM ends it cleanly: a turn in flight gets the grace period to end (or is interrupted,
to carry on later), and the process exits 0.
"""

from __future__ import annotations

import asyncio
import getpass
import json
import logging
import re
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
from app.cli.prompt_lines import Lines
from app.cli.render import LiveStatus, print_result
from app.cli.single_turn import waiting
from checkpoints.savers import CheckpointerNotReadyError
from core.models import ModelConfigError
from core.observability import logs
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from graph.termination import StopRequest, on_sigterm
from tools.pack_loading import PackError

_NO = re.compile(r"(?i)no?(?:\s*[,:;–-]\s*(.*))?")
"""A rejection at the prompt, with its reason on the same line ("no, wrong client")."""

out = Console()
err = Console(stderr=True, soft_wrap=True)
logger = logging.getLogger(__name__)
QUIT = frozenset({"/quit", "/exit", "quit", "exit"})
"""Lines that end the conversation, besides an empty one."""


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
        user_id=user if user is not None else getpass.getuser(),
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
        f"[dim]Logs: {log_path}. Empty line, /quit or Ctrl-D to quit.[/]"
    )
    code = asyncio.run(_chat(settings, base, local=spec == "local"))
    raise typer.Exit(code)


async def _chat(settings: Settings, base: TurnRequest, *, local: bool) -> int:
    repl = _Repl()
    try:
        # SIGTERM is handled until the runner closed (its audit rows written).
        with on_sigterm(repl.stop) as stopping:
            repl.stopping = stopping
            async with Runner.open(settings, warn=warned) as runner:
                repl.runner = runner
                runner.check_model(base.model)
                asks = runner.registry.starters(base.user_role)
                if local and asks:
                    # The embedded model is tiny: it does one clear thing per message well.
                    examples = " · ".join(f'"{ask}"' for _, ask in asks)
                    out.print(
                        f"[dim]The local model takes one ask at a time, for example: "
                        f'{examples}. "what can you do?" lists the rest.[/]'
                    )
                await warmed(runner, base.model, err)
                while (message := await repl.read("[bold green]you>[/] ")) is not None:
                    if not message or message.casefold() in QUIT:
                        break
                    await repl.exchange(replace(base, message=message))
            return 0
    except (ModelConfigError, CheckpointerNotReadyError, PackError) as exc:
        raise cannot_open(settings, exc) from None
    except Exception as exc:
        logger.exception("chat could not start")
        raise typer.TyperException(f"could not start: {exc}") from None  # one line, exit 1


class _Repl:
    """The conversation's prompts and turns; a stop ends it at its next prompt."""

    def __init__(self) -> None:
        self.runner: Runner | None = None
        self.stopping: StopRequest | None = None
        self._prompt: asyncio.Future[str | None] | None = None
        self._lines = Lines()

    async def stop(self) -> None:
        """After SIGTERM: the turn in flight ends (or is interrupted), a prompt is left."""
        if self.runner is not None:
            await self.runner.shutdown()
        if self._prompt is not None:
            self._prompt.cancel()

    async def exchange(self, request: TurnRequest) -> None:
        """Run a message's turn, then ask about any change it proposes until none waits."""
        assert self.runner is not None, "exchanges run once the runner is open"
        note = waiting(request.thread_id)
        with LiveStatus(err) as status:
            result = await self.runner.run_turn(request, status, note)
        print_result(out, result)
        while result.status == "needs_confirmation":
            decision = await self.ask_decision()
            if decision is None:
                out.print("[dim]The change is still waiting; a reply decides it.[/]")
                return
            with LiveStatus(err) as status:
                if isinstance(decision, str):
                    # Anything else is the next message: the thread reads it as a yes, a
                    # no, or a move on to something else.
                    request = replace(request, message=decision)
                    result = await self.runner.run_turn(request, status, note)
                else:
                    result = await self.runner.resume(request, decision, status, note)
            print_result(out, result)

    async def ask_decision(self) -> dict[str, object] | str | None:
        """Ask inline what to do with a proposal; any other text is the person's next message.

        An empty line, end of input or a stop leaves the proposal waiting (None). A "no" takes
        its reason from the same line ("no: wrong client"), so the next line is a message again.
        """
        prompt = "[bold yellow]approve?[/] \\[y]es / \\[n]o / \\[e]dit / or just keep talking> "
        answer = await self.read(prompt)
        if not answer:
            return None
        if answer.lower() in ("y", "yes"):
            return {"decision": "approve"}
        if no := _NO.fullmatch(answer.strip()):  # "no", or "no, <why>" on the same line
            return {"decision": "reject", "reason": (no.group(1) or "").strip()}
        if answer.lower() in ("e", "edit"):
            raw = await self.read('changed arguments as JSON, e.g. {"title": "…"}> ')
            try:
                args = json.loads(raw or "")
            except json.JSONDecodeError as exc:
                err.print(f"[red]not valid JSON:[/] {exc}")
                return await self.ask_decision()
            return {"decision": "edit", "args": args}
        return answer

    async def read(self, prompt: str) -> str | None:
        """Read one line from the person; None at end of input or once the process stops."""
        if self.stopping is not None and self.stopping.requested:
            return None
        out.print(prompt, end="")
        self._prompt = asyncio.ensure_future(self._lines.read())
        try:
            line = await self._prompt
        except asyncio.CancelledError:
            if self.stopping is None or not self.stopping.requested:
                raise
            line = None
        finally:
            self._prompt = None
        if line is None:
            out.print()
        return None if line is None else line.strip()
