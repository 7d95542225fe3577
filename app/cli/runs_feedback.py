"""`agentloop runs feedback`: rate a run's answer, as a Slack button does (and score its trace)."""

from __future__ import annotations

import asyncio
import getpass
import json
import sys
from dataclasses import asdict
from enum import StrEnum
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from app.cli.bad_starts import BadStart, shorten
from app.cli.config import workspace_or_exit
from app.cli.options import JsonOpt, UserOpt, text_id
from core.db.engine import open_database
from core.observability.feedback import Recorded, UnknownRunError, Vote, record_feedback
from core.observability.tracing import Tracing
from core.settings import Settings

out = Console()

CHANNEL = "cli"


class Rating(StrEnum):
    """What `--feedback` filters by."""

    positive = "positive"
    negative = "negative"


def record_vote(
    run_id: Annotated[
        str, typer.Argument(help="The run id (a unique prefix is enough).", callback=text_id)
    ],
    positive: Annotated[bool, typer.Option("--positive", help="The answer was good.")] = False,
    negative: Annotated[bool, typer.Option("--negative", help="The answer was wrong.")] = False,
    comment: Annotated[
        str | None, typer.Option("--comment", help="What was wrong (or right).", callback=text_id)
    ] = None,
    user: UserOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Rate the answer a run gave; your latest vote on a run replaces your earlier one.

    The vote is recorded in the workspace (`runs list --feedback`, `runs show`, `eval
    --from-feedback` read it) and sent to Langfuse as a score on the run's trace.
    """
    if positive == negative:
        raise BadStart("give exactly one of --positive or --negative")
    person = user if user is not None else getpass.getuser()
    if not person:
        raise BadStart("--user must not be empty")
    settings = workspace_or_exit()
    vote = Vote(
        run_id=run_id,
        person=person,
        rating="positive" if positive else "negative",
        comment=comment,
        channel=CHANNEL,
    )
    try:
        recorded = asyncio.run(_record(settings, vote))
    except UnknownRunError:
        raise typer.TyperException(f"no run {shorten(run_id)!r}") from None  # exit 1, one line
    if json_output:
        sys.stdout.write(json.dumps(asdict(recorded)) + "\n")
        return
    scored = " and sent to Langfuse as a score" if recorded.scored else ""
    out.print(
        f"Recorded {escape(recorded.person)}'s {recorded.rating} vote on run "
        f"{recorded.run_id}{scored}.",
        highlight=False,
    )


async def _record(settings: Settings, vote: Vote) -> Recorded:
    db = open_database(settings)
    tracing = Tracing.from_settings(settings)
    try:
        recorded = await record_feedback(db, tracing, vote)
    finally:
        await db.dispose()
    # The process ends next: the score leaves now, not with the background exporter.
    await tracing.flush()
    return recorded
