"""agentloop's custom auth for LangGraph Server (`auth` in langgraph.json).

`@auth.authenticate` names the caller of every request (`app/server/callers.py`); the graph
reads that caller back as the run's authenticated user and takes it as the asker and the
decider, whatever the run's context says. One `@auth.on` handler per resource and action
enforces the table in docs/studio.md (`app/server/access.py`): threads are the team's to
read and ask in; changing, copying or deleting one is for its asker and admins; configuring
the server is for admins; anything else is refused. A run is checked for what it writes into
the state (`state_edits.py`), whom a relay acts for (`relays.py`) and the model it chooses
(`model_choice.py`), and its messages get ids (`run_messages.py`).
"""

from __future__ import annotations

import re
from typing import Any

from langgraph_sdk import Auth

from app.server import access, model_choice, relays, run_messages, state_edits
from app.server.callers import identify
from core.settings import get_settings

auth = Auth()

_COPY = re.compile(r"/threads/(?P<thread_id>[0-9a-fA-F-]{32,36})/copy/?$")


@auth.authenticate
async def authenticate(
    authorization: str | None,
    headers: dict[bytes, bytes],
    scope: dict[str, Any],
    path: str,
    method: str,
) -> Auth.types.MinimalUserDict:
    """Return the request's caller (401 without a token the server knows)."""
    caller: dict[str, Any] = dict(
        await identify(get_settings(), authorization, headers, scope.get("client"))
    )
    # The server shows a copy to its handlers as a bare thread creation; the request says
    # which thread is copied, so `on_thread_create` can check who started it.
    copied = _COPY.search(path) if method.upper() == "POST" else None
    if copied:
        caller["copying"] = copied["thread_id"]
    return caller  # type: ignore[return-value]


# Threads: the team's to read and ask in.


@auth.on.threads.read
async def on_thread_read(ctx: Auth.types.AuthContext, value: Auth.types.ThreadsRead) -> None:
    """Every caller may read every thread: its state, history, runs and streams."""


@auth.on.threads.search
async def on_thread_search(ctx: Auth.types.AuthContext, value: Auth.types.ThreadsSearch) -> None:
    """Every caller may search and count the threads."""


@auth.on.threads.create
async def on_thread_create(ctx: Auth.types.AuthContext, value: Auth.types.ThreadsCreate) -> None:
    """Anyone may start a thread (recorded as its asker); copying one is its asker's."""
    copying = getattr(ctx.user, "copying", None)
    if copying:
        await access.require_asker(ctx.user, copying, "copy")
        return
    if "metadata" not in value:
        # A creation that is not a copy request yet has no metadata: nothing says whose.
        access.require_admin(ctx.user, "create a thread this way")
        return
    metadata = value["metadata"]
    asker = access.asker_for_new_thread(ctx.user, None)
    if asker:
        metadata[access.ASKER] = asker
    else:
        # A relay's (or the development default's) empty thread: nobody started it yet.
        metadata.pop(access.ASKER, None)


@auth.on.threads.create_run
async def on_run(ctx: Auth.types.AuthContext, value: Auth.types.RunsCreate) -> None:
    """Check whom a run is for, its model and what it writes into the state."""
    run: dict[str, Any] = value.get("kwargs") or {}
    await relays.check_relayed(ctx.user, run)
    model_choice.check_models(get_settings(), run)
    state_edits.check_run(ctx.user, run)
    run_messages.give_ids(run.get("input"))
    # A run that creates its thread starts it: the run's metadata becomes the thread's.
    metadata = value.get("metadata")
    if isinstance(metadata, dict):
        metadata[access.ASKER] = access.asker_for_new_thread(ctx.user, relays.person_named(run))
    thread_id = value.get("thread_id")
    if value.get("multitask_strategy") == "interrupt" and thread_id is not None:
        await run_messages.carry_superseded(str(thread_id), run.get("input"))


@auth.on.threads.update
async def on_thread_update(ctx: Auth.types.AuthContext, value: Auth.types.ThreadsUpdate) -> None:
    """Stopping runs: not viewers; metadata: the asker's; the state: admins' (and relays')."""
    thread_id = value.get("thread_id")
    if value.get("action"):
        if thread_id is None:
            access.require_admin(ctx.user, "cancel runs across threads")
        elif not access.may_stop_runs(ctx.user):
            access.refuse("A viewer may not stop a thread's runs.")
        return
    if "metadata" in value:
        if access.ASKER in (value.get("metadata") or {}):
            access.require_admin(ctx.user, "change who started a thread")
        await access.require_asker(ctx.user, thread_id, "change the metadata of")
        return
    state_edits.check_state_update(ctx.user)


@auth.on.threads.delete
async def on_thread_delete(ctx: Auth.types.AuthContext, value: Auth.types.ThreadsDelete) -> None:
    """Deleting a thread, or one of its runs, is its asker's; pruning many is admins'."""
    if "thread_ids" in value or value.get("thread_id") is None:
        access.require_admin(ctx.user, "delete threads in bulk")
        return
    what = "delete runs of" if value.get("run_id") else "delete"
    await access.require_asker(ctx.user, value["thread_id"], what)


# Assistants and crons: the server's configuration, for admins.


@auth.on.assistants.read
async def on_assistant_read(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Every caller may use the assistants (read them, run them)."""


@auth.on.assistants.search
async def on_assistant_search(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Every caller may list the assistants."""


@auth.on.assistants.create
async def on_assistant_create(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Admins configure assistants, with the models the server allows."""
    access.require_admin(ctx.user, "create assistants")
    model_choice.check_models(get_settings(), value)


@auth.on.assistants.update
async def on_assistant_update(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Admins configure assistants, with the models the server allows."""
    access.require_admin(ctx.user, "change assistants")
    model_choice.check_models(get_settings(), value)


@auth.on.assistants.delete
async def on_assistant_delete(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Admins remove assistants."""
    access.require_admin(ctx.user, "delete assistants")


@auth.on.crons.read
async def on_cron_read(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Every caller may read the crons."""


@auth.on.crons.search
async def on_cron_search(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Every caller may list the crons."""


@auth.on.crons.create
async def on_cron_create(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Admins schedule runs, with the models the server allows."""
    access.require_admin(ctx.user, "schedule runs")
    model_choice.check_models(get_settings(), value.get("payload"))


@auth.on.crons.update
async def on_cron_update(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Admins change scheduled runs, with the models the server allows."""
    access.require_admin(ctx.user, "change scheduled runs")
    model_choice.check_models(get_settings(), value.get("payload"))


@auth.on.crons.delete
async def on_cron_delete(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Admins remove scheduled runs."""
    access.require_admin(ctx.user, "delete scheduled runs")


# The store: agentloop keeps nothing there; every caller may read it, admins write it.


@auth.on.store
async def on_store(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Reading the store is everyone's; writing it (put, delete) is admins'."""
    if ctx.action in ("put", "delete"):
        access.require_admin(ctx.user, "write to the store")


@auth.on
async def refuse_the_rest(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Anything the table does not name is refused, not allowed by default."""
    access.refuse(f"{ctx.resource}.{ctx.action} is not allowed on this server.")
