"""`agentloop` commands: chat, ask, resume, runs, slack, eval, bench, db upgrade, seed."""

from __future__ import annotations

import asyncio
import getpass
import json
import logging
import sys
import uuid
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from dataclasses import replace
from datetime import date
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from app.cli import logs
from app.cli.bench import bench_command
from app.cli.eval import eval_command
from app.cli.render import LiveStatus, print_result
from app.cli.runs import runs_app
from app.settings import Settings
from app.slack.cli import slack_command
from app.slack.lanes import Lanes
from graph.runner import Runner, TurnRequest, TurnResult
from prompts.system import CONTEXT_TYPES

app = typer.Typer(
    name="agentloop",
    help="A Slack assistant's agent loop, from the command line.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
db_app = typer.Typer(help="Database set-up.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(runs_app, name="runs")

out = Console()
err = Console(stderr=True)
logger = logging.getLogger(__name__)

ThreadOpt = Annotated[str, typer.Option("--thread", "-t", help="Conversation (thread) id.")]
UserOpt = Annotated[str | None, typer.Option("--user", "-u", help="Who is asking.")]
RoleOpt = Annotated[str, typer.Option("--role", help="The user's role: viewer, member, admin.")]
ModelOpt = Annotated[
    str | None, typer.Option("--model", help="openai:<model>, local or scripted:<file>.")
]
TodayOpt = Annotated[
    str | None, typer.Option("--today", help="Run as if today were this ISO date.")
]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Log to stderr too.")]
ContextTypeOpt = Annotated[
    str,
    typer.Option("--context-type", help=f"What kind of work this is: {', '.join(CONTEXT_TYPES)}."),
]


def _settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        err.print(f"[red]error:[/] invalid configuration: {problems}")
        raise typer.Exit(2) from None


def _check_role(role: str) -> None:
    if role not in ("viewer", "member", "admin"):
        err.print(f"[red]error:[/] --role must be viewer, member or admin, not {role!r}")
        raise typer.Exit(2)


def _check_context_type(context_type: str) -> None:
    if context_type not in CONTEXT_TYPES:
        err.print(
            f"[red]error:[/] --context-type must be one of {', '.join(CONTEXT_TYPES)}, "
            f"not {context_type!r}"
        )
        raise typer.Exit(2)


def _check_today(today: str | None) -> None:
    if today is None:
        return
    try:
        date.fromisoformat(today)
    except ValueError:
        err.print(f"[red]error:[/] --today must be an ISO date like 2026-01-31, not {today!r}")
        raise typer.Exit(2) from None


@app.command()
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
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    verbose: VerboseOpt = False,
) -> None:
    """Send one message to a thread and print the answer."""
    _check_role(role)
    _check_today(today)
    _check_context_type(context_type)
    if message == "-":
        # A long text (a log, a document) does not fit in a command-line argument.
        message = sys.stdin.read()
    settings = _settings()
    logs.configure(settings.data_dir, verbose)
    request = TurnRequest(
        thread_id=thread,
        user_id=user or getpass.getuser(),
        message=message,
        user_role=role,
        model=model,
        today=today,
        context_type=context_type,
    )
    result = asyncio.run(_once(settings, request, None, live=not json_output))
    _finish(result, json_output)


@app.command()
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
    user: UserOpt = None,
    role: RoleOpt = "member",
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    verbose: VerboseOpt = False,
) -> None:
    """Decide on the change a thread is waiting on: approve, reject or edit it.

    Exit status: 0 done, 1 failed, 3 refused (nothing pending, not yours to decide,
    expired, invalid edit) with nothing changed.
    """
    _check_role(role)
    chosen = [name for name, on in (("--approve", approve), ("--reject", reject)) if on]
    if edit_args is not None:
        chosen.append("--edit-args")
    if len(chosen) != 1:
        err.print("[red]error:[/] give exactly one of --approve, --reject or --edit-args")
        raise typer.Exit(2)
    if reason and not reject:
        err.print("[red]error:[/] --reason goes with --reject")
        raise typer.Exit(2)
    decision: dict[str, object] = {"decision": "approve" if approve else "reject"}
    if reject:
        decision["reason"] = reason
    if edit_args is not None:
        try:
            args = json.loads(edit_args)
        except json.JSONDecodeError as exc:
            err.print(f"[red]error:[/] --edit-args is not valid JSON: {exc}")
            raise typer.Exit(2) from None
        if not isinstance(args, dict):
            err.print("[red]error:[/] --edit-args must be a JSON object of the arguments to change")
            raise typer.Exit(2)
        decision = {"decision": "edit", "args": args}
    if fingerprint:
        decision["fingerprint"] = fingerprint
    settings = _settings()
    logs.configure(settings.data_dir, verbose)
    request = TurnRequest(
        thread_id=thread, user_id=user or getpass.getuser(), message="", user_role=role
    )
    result = asyncio.run(_once(settings, request, decision, live=not json_output))
    _finish(result, json_output)


def _finish(result: TurnResult, json_output: bool) -> None:
    if json_output:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False, default=str) + "\n")
    else:
        print_result(out, result)
    raise typer.Exit(_EXIT_CODES.get(result.status, 0))


_EXIT_CODES = {"failed": 1, "refused": 3}


async def _once(
    settings: Settings, request: TurnRequest, decision: dict[str, object] | None, live: bool
) -> TurnResult:
    """Run one turn (or apply one decision) in a fresh runner."""
    try:
        # The thread's lane (as the Slack app holds it): another process's run of the same
        # thread finishes first, so the thread's checkpoints stay one chain.
        async with (
            Runner.open(settings) as runner,
            Lanes.open(settings) as lanes,
            lanes.hold(request.thread_id, on_wait=_waiting(request.thread_id)),
        ):
            with LiveStatus(err) if live else nullcontext() as status:
                if decision is None:
                    return await runner.run_turn(request, on_event=status)
                return await runner.resume(request, decision, on_event=status)
    except Exception as exc:
        # Opening the checkpointer failed (unreachable database, bad URL): one clear line
        # for the person, the traceback in the log.
        logger.exception("could not open the runner")
        return TurnResult(request.thread_id, "", "failed", f"could not start: {exc}")


def _waiting(thread_id: str) -> Callable[[], Awaitable[None]]:
    async def note() -> None:
        logger.info("thread %s is busy with another run; waiting for it", thread_id)

    return note


@app.command()
def chat(
    thread: Annotated[
        str | None, typer.Option("--thread", "-t", help="Continue this thread.")
    ] = None,
    user: UserOpt = None,
    role: RoleOpt = "member",
    model: ModelOpt = None,
    today: TodayOpt = None,
    context_type: ContextTypeOpt = "general",
    verbose: VerboseOpt = False,
) -> None:
    """Talk with the agent; an empty line or Ctrl-D ends the conversation."""
    _check_role(role)
    _check_today(today)
    _check_context_type(context_type)
    settings = _settings()
    log_path = logs.configure(settings.data_dir, verbose)
    thread_id = thread or f"cli-{uuid.uuid4().hex[:8]}"
    out.print(
        f"[bold]agentloop[/] — model [cyan]{model or settings.model_spec()}[/], "
        f"checkpointer [cyan]{settings.checkpointer_kind()}[/], thread [cyan]{thread_id}[/]\n"
        f"[dim]Logs: {log_path}. Empty line or Ctrl-D to quit.[/]"
    )
    base = TurnRequest(
        thread_id=thread_id,
        user_id=user or getpass.getuser(),
        message="",
        user_role=role,
        model=model,
        today=today,
        context_type=context_type,
    )
    code = asyncio.run(_chat(settings, base))
    raise typer.Exit(code)


async def _chat(settings: Settings, base: TurnRequest) -> int:
    try:
        async with Runner.open(settings) as runner, Lanes.open(settings) as lanes:
            while True:
                message = await _read("[bold green]you>[/] ")
                if not message:
                    return 0
                request = replace(base, message=message)
                async with lanes.hold(base.thread_id, on_wait=_waiting(base.thread_id)):
                    with LiveStatus(err) as status:
                        result = await runner.run_turn(request, on_event=status)
                print_result(out, result)
                while result.status == "needs_confirmation":
                    decision = await _ask_decision()
                    if decision is None:
                        out.print("[dim]The change is still waiting; a reply decides it.[/]")
                        break
                    hold = lanes.hold(base.thread_id, on_wait=_waiting(base.thread_id))
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
    except Exception as exc:
        logger.exception("chat could not start")
        err.print(f"[red]error:[/] could not start: {exc}")
        return 1


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


@db_app.command("upgrade")
def db_upgrade(verbose: VerboseOpt = False) -> None:
    """Migrate the workspace database and set up the checkpointer's tables."""
    from app.db.migrate import upgrade
    from checkpoints.savers import setup_checkpointer

    settings = _settings()
    logs.configure(settings.data_dir, verbose)
    try:
        out.print(upgrade(settings))
        out.print(asyncio.run(setup_checkpointer(settings)))
    except Exception as exc:
        logger.exception("database upgrade failed")
        err.print(f"[red]error:[/] database upgrade failed: {exc}")
        raise typer.Exit(1) from None


@app.command()
def seed(
    demo: Annotated[bool, typer.Option("--demo", help="Load the demo workspace.")] = False,
    verbose: VerboseOpt = False,
) -> None:
    """Load seed data into the workspace database (idempotent)."""
    from app.db.migrate import missing_tables

    if not demo:
        err.print("[red]error:[/] say what to load: --demo is the only seed so far")
        raise typer.Exit(2)
    settings = _settings()
    logs.configure(settings.data_dir, verbose)
    try:
        if missing_tables(settings):
            err.print("[red]error:[/] the workspace tables are missing: run `agentloop db upgrade`")
            raise typer.Exit(1)
        added = asyncio.run(_seed_demo(settings))
    except typer.Exit:
        raise
    except Exception as exc:
        logger.exception("seeding failed")
        err.print(f"[red]error:[/] seeding failed: {exc}")
        raise typer.Exit(1) from None
    summary = ", ".join(f"{count} {table}" for table, count in sorted(added.items()))
    out.print(f"demo workspace loaded ({summary or 'already complete, nothing added'})")


async def _seed_demo(settings: Settings) -> dict[str, int]:
    from app.db.engine import open_database
    from app.db.seed import seed_demo

    db = open_database(settings)
    try:
        return await seed_demo(db)
    finally:
        await db.dispose()


app.command("slack")(slack_command)
app.command("bench")(bench_command)
app.command("eval")(eval_command)


def main() -> None:
    """Console-script entry point."""
    app()
