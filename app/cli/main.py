"""`agentloop` commands: chat, ask, resume, runs, tools, slack, eval, bench, db, seed, prepare."""

from __future__ import annotations

import sys

import typer

from app.cli.bad_starts import debug_option, run
from app.cli.bench import bench_command
from app.cli.chat import chat
from app.cli.database import db_app, seed
from app.cli.eval import eval_command
from app.cli.prepare import prepare
from app.cli.runs import runs_app
from app.cli.single_turn import ask, resume
from app.cli.tool_list import tools
from app.slack.cli import slack_command

app = typer.Typer(
    name="agentloop",
    help="A Slack assistant's agent loop, from the command line.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.callback()(debug_option)
app.add_typer(db_app, name="db")
app.add_typer(runs_app, name="runs")
app.command()(ask)
app.command()(resume)
app.command()(chat)
app.command()(seed)
app.command()(prepare)
app.command()(tools)
app.command("slack")(slack_command)
app.command("bench")(bench_command)
app.command("eval")(eval_command)


def main() -> None:
    """Console-script entry point: every failure ends as one line on stderr (bad_starts)."""
    sys.exit(run(app))
