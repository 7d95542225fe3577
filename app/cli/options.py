"""The options `chat`, `ask` and `resume` share, typed so the parser refuses bad values.

A role or context type outside the run context's allowed values, or a `--today` that is
not an ISO date, is a usage error (exit 2) before any command code runs.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated

import typer

from core.run_context import ContextType, Role

ThreadOpt = Annotated[str, typer.Option("--thread", "-t", help="Conversation (thread) id.")]
UserOpt = Annotated[str | None, typer.Option("--user", "-u", help="Who is asking.")]
RoleOpt = Annotated[Role, typer.Option("--role", help="The user's role.")]
ModelOpt = Annotated[
    str | None, typer.Option("--model", help="openai:<model>, local or scripted:<file>.")
]
TodayOpt = Annotated[
    date | None,
    typer.Option(
        "--today",
        parser=date.fromisoformat,
        metavar="YYYY-MM-DD",
        help="Run as if today were this date.",
    ),
]
ContextTypeOpt = Annotated[
    ContextType, typer.Option("--context-type", help="What kind of work this is.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Log to stderr too.")]
