"""`agentloop eval --from-feedback`: draft a scenario from each answer people rated negative."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from app.cli.config import workspace_or_exit
from app.eval.feedback_drafts import RatedTurn, rated_turns, write_drafts
from core.db.engine import open_database
from core.settings import Settings

out = Console()


def write_feedback_drafts(folder: Path, json_output: bool) -> None:
    """Write the drafts into `folder` (a draft already there is kept) and say what was written."""
    settings = workspace_or_exit()
    drafted = write_drafts(asyncio.run(_rated(settings)), folder)
    if json_output:
        listed = [{"path": str(d.path), "run_id": d.run_id, "written": d.written} for d in drafted]
        sys.stdout.write(json.dumps(listed) + "\n")
        return
    if not drafted:
        out.print("No answer is rated negative: no drafts to write.")
        return
    for draft in drafted:
        what = "wrote" if draft.written else "kept (already there)"
        out.print(f"{what} {escape(str(draft.path))} (run {draft.run_id})", highlight=False)
    out.print(
        "Complete each draft (its TODOs and the `draft` field), then run it: "
        f"agentloop eval {escape(str(folder))}",
        highlight=False,
    )


async def _rated(settings: Settings) -> list[RatedTurn]:
    db = open_database(settings)
    try:
        return await rated_turns(db)
    finally:
        await db.dispose()
