"""agentloop's custom auth for LangGraph Server (`auth` in langgraph.json).

`@auth.authenticate` names the caller of every request (`app/server/callers.py`); the graph
reads that caller back as the run's authenticated user and takes it as the asker and the
decider, whatever the run's context says. The `@auth.on` handlers keep who asked and who
may decide out of non-admins' state edits (`app/server/state_edits.py`) and give a person's
messages ids, so a run that interrupts another keeps its message (`app/server/run_messages.py`).
Everything else an authenticated caller may do: threads are the team's, not a person's.
"""

from __future__ import annotations

from typing import Any

from langgraph_sdk import Auth

from app.server import run_messages, state_edits
from app.server.callers import identify
from core.settings import get_settings

auth = Auth()


@auth.authenticate
async def authenticate(
    authorization: str | None, headers: dict[bytes, bytes], scope: dict[str, Any]
) -> Auth.types.MinimalUserDict:
    """Return the request's caller (401 without a token the server knows)."""
    return await identify(get_settings(), authorization, headers, scope.get("client"))


@auth.on.threads.create_run
async def on_run(ctx: Auth.types.AuthContext, value: Auth.types.RunsCreate) -> None:
    """Check what a run writes into the state; keep every message of the person."""
    run: dict[str, Any] = value.get("kwargs") or {}
    state_edits.check_run(ctx.user, run)
    run_messages.give_ids(run.get("input"))
    thread_id = value.get("thread_id")
    if value.get("multitask_strategy") == "interrupt" and thread_id is not None:
        await run_messages.carry_superseded(str(thread_id), run.get("input"))


@auth.on.threads.update
async def on_thread_update(ctx: Auth.types.AuthContext, value: Auth.types.ThreadsUpdate) -> None:
    """Refuse a non-admin's edit of a thread's state."""
    state_edits.check_state_update(ctx.user, value)


@auth.on
async def authenticated(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Any authenticated caller may read and run the team's threads and assistants."""
