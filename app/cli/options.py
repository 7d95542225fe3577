"""The options `chat`, `ask` and `resume` share, typed so the parser refuses bad values.

A role or context type outside the run context's allowed values, a `--today` that is
not an ISO date, or an id with invalid UTF-8 or control characters is a usage error
(exit 2) before any command code runs.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated

import typer

from core.run_context import ContextType, Role

_UNSAFE = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")
"""Control characters, and the lone surrogates Python decodes invalid UTF-8 in argv to."""


def text_id(value: str | None) -> str | None:
    """Refuse an id no store can hold as it was typed (a usage error, before any row)."""
    if value is not None and _UNSAFE.search(value):
        raise typer.BadParameter("must be valid UTF-8 text without control characters")
    return value


ThreadOpt = Annotated[
    str, typer.Option("--thread", "-t", help="Conversation (thread) id.", callback=text_id)
]
UserOpt = Annotated[
    str | None, typer.Option("--user", "-u", help="Who is asking.", callback=text_id)
]
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
