"""`ask` and `resume`: one message, or one decision (or carry-on) in a thread, per process.

Exit status: 0 completed, capped or waiting for confirmation, 1 failed or interrupted, 3
refused (a decision with nothing changed); bad usage or configuration (a model that can't be
used, an id no store can hold) is 2. Stopped by SIGTERM, the process lets its turn end
within the grace period, or interrupts it, and exits 0 for an interrupted turn.
"""

from __future__ import annotations

import asyncio
import getpass
import json
import logging
import sys
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from typing import Annotated

import typer
from rich.console import Console

from app.cli.config import cannot_open, request_or_exit, warned, workspace_or_exit
from app.cli.options import (
    ContextTypeOpt,
    JsonOpt,
    ModelOpt,
    RoleOpt,
    ThreadOpt,
    TodayOpt,
    UserOpt,
    VerboseOpt,
)
from app.cli.prepare import warmed
from app.cli.render import LiveStatus, print_result
from checkpoints.savers import CheckpointerNotReadyError
from core.models import ModelConfigError
from core.observability import logs
from core.settings import Settings
from graph.runner import Runner, TurnRequest, TurnResult
from graph.termination import on_sigterm
from tools.pack_loading import PackError

out = Console()
err = Console(stderr=True, soft_wrap=True)
logger = logging.getLogger(__name__)

_EXIT_CODES = {"failed": 1, "interrupted": 1, "refused": 3}
"""completed, needs_confirmation and capped (an honest partial answer) exit 0."""
CARRY_ON = "continue"
"""What `resume --continue` asks of the runner instead of a decision."""


def ask(
    message: Annotated[
        str, typer.Argument(help="The message to send; - reads it from standard input.")
    ],
    thread: ThreadOpt,
    user: UserOpt = None,
    role: RoleOpt = "member",
    model: ModelOpt = None,
    today: TodayOpt = None,
    context_type: ContextTypeOpt = "general",
    json_output: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Send one message to a thread and print the answer."""
    if message == "-":
        # A long text (a log, a document) does not fit in a command-line argument.
        message = sys.stdin.read()
    request = request_or_exit(
        thread_id=thread,
        user_id=user if user is not None else getpass.getuser(),
        message=message,
        user_role=role,
        model=model,
        today=today.isoformat() if today else None,
        context_type=context_type,
    )
    settings = workspace_or_exit()
    logs.configure(settings.data_dir, verbose)
    result, stopped = asyncio.run(_once(settings, request, None, live=not json_output))
    _finish(result, json_output, stopped)


def resume(
    thread: ThreadOpt,
    approve: Annotated[bool, typer.Option("--approve", help="Run the proposed change.")] = False,
    reject: Annotated[bool, typer.Option("--reject", help="Don't run it.")] = False,
    reason: Annotated[
        str, typer.Option("--reason", help="Why it was rejected (the model is told).")
    ] = "",
    edit_args: Annotated[
        str | None,
        typer.Option("--edit-args", help="Run it with these arguments changed (a JSON object)."),
    ] = None,
    fingerprint: Annotated[
        str | None,
        typer.Option(
            "--fingerprint", help="Only decide if this proposal is still the one waiting."
        ),
    ] = None,
    carry_on: Annotated[
        bool,
        typer.Option(
            "--continue",
            help="Carry on the thread's interrupted turn from its last saved step.",
        ),
    ] = False,
    user: UserOpt = None,
    role: RoleOpt = "member",
    json_output: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Decide on the change a thread waits on (approve, reject, edit), or carry on its turn.

    `--continue` carries on a turn that was interrupted (a stopped process, a lost
    database). Exit status: 0 done, 1 failed, 3 refused (nothing pending, not yours to
    decide, expired, invalid edit) with nothing changed.
    """
    decision = _decision(approve, reject, reason, edit_args, carry_on)
    if fingerprint:
        decision["fingerprint"] = fingerprint
    request = request_or_exit(
        thread_id=thread,
        user_id=user if user is not None else getpass.getuser(),
        message="",
        user_role=role,
    )
    settings = workspace_or_exit()
    logs.configure(settings.data_dir, verbose)
    result, stopped = asyncio.run(_once(settings, request, decision, live=not json_output))
    _finish(result, json_output, stopped)


def _decision(
    approve: bool, reject: bool, reason: str, edit_args: str | None, carry_on: bool = False
) -> dict[str, object]:
    """The resume value the flags ask for; a contradictory or malformed one exits 2."""
    chosen = [name for name, on in (("--approve", approve), ("--reject", reject)) if on]
    if edit_args is not None:
        chosen.append("--edit-args")
    if carry_on:
        chosen.append("--continue")
    if len(chosen) != 1:
        err.print(
            "[red]error:[/] give exactly one of --approve, --reject, --edit-args or --continue"
        )
        raise typer.Exit(2)
    if reason and not reject:
        err.print("[red]error:[/] --reason goes with --reject")
        raise typer.Exit(2)
    if carry_on:
        return {CARRY_ON: True}
    if approve:
        return {"decision": "approve"}
    if reject:
        return {"decision": "reject", "reason": reason}
    try:
        args = json.loads(edit_args or "")
    except json.JSONDecodeError as exc:
        err.print(f"[red]error:[/] --edit-args is not valid JSON: {exc}")
        raise typer.Exit(2) from None
    if not isinstance(args, dict):
        err.print("[red]error:[/] --edit-args must be a JSON object of the arguments to change")
        raise typer.Exit(2)
    return {"decision": "edit", "args": args}


def _finish(result: TurnResult, json_output: bool, stopped: bool = False) -> None:
    if json_output:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False, default=str) + "\n")
    else:
        print_result(out, result)
    if stopped and result.status == "interrupted":
        raise typer.Exit(0)  # asked to stop, and stopped cleanly: the turn carries on later
    raise typer.Exit(_EXIT_CODES.get(result.status, 0))


async def _once(
    settings: Settings, request: TurnRequest, decision: dict[str, object] | None, live: bool
) -> tuple[TurnResult, bool]:
    """Run one turn (or apply one decision) in a fresh runner; say whether SIGTERM came.

    SIGTERM is handled from before the runner opens until after it closed (its audit rows
    written): a process asked to stop runs no new turn, and never dies half closed.
    """
    opened: list[Runner] = []

    async def stop() -> None:
        for runner in opened:
            await runner.shutdown()

    try:
        with on_sigterm(stop) as stopping:
            async with Runner.open(settings, warn=warned) as runner:
                opened.append(runner)
                if stopping.requested:  # while it opened: nothing new runs
                    await runner.shutdown()
                if live:
                    await warmed(runner, request.model, err)
                # The runner holds the thread's lane: another process's run of the same
                # thread finishes first, so the thread's checkpoints stay one chain.
                note = waiting(request.thread_id)
                with LiveStatus(err, drafts=False) if live else nullcontext() as status:
                    if decision is None:
                        result = await runner.run_turn(request, status, note)
                    elif decision.get(CARRY_ON):
                        result = await runner.carry_on(request, status, note)
                    else:
                        result = await runner.resume(request, decision, status, note)
                await stopping.stopped()
            return result, stopping.requested
    except (ModelConfigError, CheckpointerNotReadyError, PackError) as exc:
        # Raised before the thread is touched: the message was not sent.
        raise cannot_open(settings, exc) from None
    except Exception as exc:
        # Opening the checkpointer failed (unreachable database, bad URL): one clear line
        # for the person, the traceback in the log.
        logger.exception("could not open the runner")
        return TurnResult(request.thread_id, "", "failed", f"could not start: {exc}"), False


def waiting(thread_id: str) -> Callable[[], Awaitable[None]]:
    """Return the note logged while another run of the thread holds its lane."""

    async def note() -> None:
        logger.info("thread %s is busy with another run; waiting for it", thread_id)

    return note
