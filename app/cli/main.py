"""`agentloop` commands: chat, ask, db upgrade."""

from __future__ import annotations

import asyncio
import getpass
import json
import logging
import sys
import uuid
from datetime import date
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from app.cli import logs
from app.cli.render import LiveStatus, print_result
from app.settings import Settings
from graph.runner import Runner, TurnRequest, TurnResult

app = typer.Typer(
    name="agentloop",
    help="A Slack assistant's agent loop, from the command line.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
db_app = typer.Typer(help="Database set-up.", no_args_is_help=True)
app.add_typer(db_app, name="db")

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
    message: Annotated[str, typer.Argument(help="The message to send.")],
    thread: ThreadOpt,
    user: UserOpt = None,
    role: RoleOpt = "member",
    model: ModelOpt = None,
    today: TodayOpt = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    verbose: VerboseOpt = False,
) -> None:
    """Send one message to a thread and print the answer."""
    _check_role(role)
    _check_today(today)
    settings = _settings()
    logs.configure(settings.data_dir, verbose)
    request = TurnRequest(
        thread_id=thread,
        user_id=user or getpass.getuser(),
        message=message,
        user_role=role,
        model=model,
        today=today,
    )
    result = asyncio.run(_ask(settings, request, live=not json_output))
    if json_output:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False, default=str) + "\n")
    else:
        print_result(out, result)
    raise typer.Exit(1 if result.status == "failed" else 0)


async def _ask(settings: Settings, request: TurnRequest, live: bool) -> TurnResult:
    try:
        async with Runner.open(settings) as runner:
            if not live:
                return await runner.run_turn(request)
            with LiveStatus(err) as status:
                return await runner.run_turn(request, on_event=status)
    except Exception as exc:
        # Opening the checkpointer failed (unreachable database, bad URL): one clear line
        # for the person, the traceback in the log.
        logger.exception("could not open the runner")
        return TurnResult(request.thread_id, "", "failed", f"could not start: {exc}")


@app.command()
def chat(
    thread: Annotated[
        str | None, typer.Option("--thread", "-t", help="Continue this thread.")
    ] = None,
    user: UserOpt = None,
    role: RoleOpt = "member",
    model: ModelOpt = None,
    today: TodayOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Talk with the agent; an empty line or Ctrl-D ends the conversation."""
    _check_role(role)
    _check_today(today)
    settings = _settings()
    log_path = logs.configure(settings.data_dir, verbose)
    thread_id = thread or f"cli-{uuid.uuid4().hex[:8]}"
    out.print(
        f"[bold]agentloop[/] — model [cyan]{model or settings.model_spec()}[/], "
        f"checkpointer [cyan]{settings.checkpointer_kind()}[/], thread [cyan]{thread_id}[/]\n"
        f"[dim]Logs: {log_path}. Empty line or Ctrl-D to quit.[/]"
    )
    code = asyncio.run(_chat(settings, thread_id, user or getpass.getuser(), role, model, today))
    raise typer.Exit(code)


async def _chat(
    settings: Settings,
    thread_id: str,
    user: str,
    role: str,
    model: str | None,
    today: str | None,
) -> int:
    try:
        async with Runner.open(settings) as runner:
            while True:
                try:
                    message = await asyncio.to_thread(out.input, "[bold green]you>[/] ")
                except (EOFError, KeyboardInterrupt):
                    out.print()
                    return 0
                if not message.strip():
                    return 0
                request = TurnRequest(
                    thread_id=thread_id,
                    user_id=user,
                    message=message,
                    user_role=role,
                    model=model,
                    today=today,
                )
                with LiveStatus(err) as status:
                    result = await runner.run_turn(request, on_event=status)
                print_result(out, result)
    except Exception as exc:
        logger.exception("chat could not start")
        err.print(f"[red]error:[/] could not start: {exc}")
        return 1


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


def main() -> None:
    """Console-script entry point."""
    app()
