"""A database blip in a long-running process: every run is still audited.

One runner stays open for the whole test, as a Slack worker's does. Its first turn waits on
a slow model call; from the moment that call starts the database refuses connections for a
while and every backend it has is killed (`pg_terminate_backend`): the turn's lane, the
checkpoint pool's and the workspace engine's connections, and the audit's next writes, go
down with them. The turn comes back `interrupted`, with its run id and the command that
carries it on; then more turns run on the same runner, the interrupted one is carried on,
and every run has its `agent_runs` row with how it ended (none left `running`).

And an audit whose very first write meets the blip (a worker that starts during one)
writes the runs once the database is back, instead of switching itself off.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import psycopg

from checkpoints.savers import setup_checkpointer
from core.db.engine import open_database
from core.models import ModelResolver
from core.observability.audit import AuditLog, RunInfo
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from tests.faults.conftest import ON_POSTGRES, Query
from tests.support.scratch_pg import PG_ADMIN_URL

pytestmark = ON_POSTGRES
SLOW_S = 4.0
"""How long the first turn's model call takes: the backends are killed meanwhile."""
BLIP_S = 2.5
"""How long the database refuses connections, from the moment the model call starts."""
HANG_GUARD_S = 120.0
OWNER = "Thorinox owns Garlic Press."


def ask(thread: str, text: str, model: str) -> TurnRequest:
    return TurnRequest(thread, "U0GRACE", text, today="2026-11-22", model=model)


@contextlib.asynccontextmanager
async def blip(url: str) -> AsyncIterator[list[int]]:
    """The database refuses connections, and its backends are killed, for the block.

    Yields the list the number of killed backends is put in.
    """
    name = url.rsplit("/", 1)[1]
    killed: list[int] = []
    async with await psycopg.AsyncConnection.connect(PG_ADMIN_URL, autocommit=True) as admin:
        await admin.execute(f'alter database "{name}" allow_connections false')
        try:
            cursor = await admin.execute(
                "select count(pg_terminate_backend(pid)) from pg_stat_activity where datname = %s",
                (name,),
            )
            row = await cursor.fetchone()
            killed.append(int(row[0]) if row else 0)
            yield killed
        finally:
            await admin.execute(f'alter database "{name}" allow_connections true')


async def test_killed_backends_during_a_model_call_leave_every_run_audited(
    workspace_url: str,
    make_settings: Callable[..., Settings],
    write_script: Callable[[list[dict[str, Any]]], str],
    query: Query,
) -> None:
    await setup_checkpointer(Settings(_env_file=None, database_url=workspace_url))
    settings = make_settings(database_url=workspace_url, checkpointer="postgres")
    slow = write_script([{"content": "Slow answer.", "delay_s": SLOW_S}])
    thinking = asyncio.Event()

    def on_event(event: dict[str, Any]) -> None:
        if event.get("type") == "agent_state" and event.get("state") == "thinking":
            thinking.set()  # the model call starts now

    async with (
        asyncio.timeout(HANG_GUARD_S),
        Runner.open(settings, models=ModelResolver(settings)) as runner,
    ):
        turn = asyncio.create_task(
            runner.run_turn(ask("t-cut", "who owns Garlic Press?", slow), on_event)
        )
        await thinking.wait()
        async with blip(workspace_url) as killed:
            cut = await turn
            await asyncio.sleep(BLIP_S)  # the audit's next batches meet the blip too
        assert killed[0] > 0
        assert cut.status == "interrupted", cut.text
        assert cut.run_id and f"Run id: {cut.run_id}" in cut.text
        assert "interrupted" in cut.text
        assert "agentloop resume --thread t-cut --continue" in cut.text

        # More turns in the same long-running process, then the cut-off one carried on.
        hello = write_script([{"content": "Hello."}, {"content": "Hello again."}])
        later = [await runner.run_turn(ask(f"t-later-{n}", "hello", hello)) for n in range(2)]
        carried = await runner.carry_on(ask("t-cut", "", write_script([{"content": OWNER}])))
    assert [r.status for r in later] == ["completed", "completed"], [r.text for r in later]
    assert (carried.status, carried.text) == ("completed", OWNER), carried.text

    rows = {
        row[0]: tuple(row[1:])
        for row in query("select id, kind, status, parent_run_id, error from agent_runs")
    }
    carried_on = [run for run, (kind, *_) in rows.items() if kind == "resume"]
    assert rows == {
        cut.run_id: (
            "main",
            "interrupted",
            None,
            "stopped: the process lost its connection to the database",
        ),
        later[0].run_id: ("main", "completed", None, None),
        later[1].run_id: ("main", "completed", None, None),
        **{run: ("resume", "completed", cut.run_id, None) for run in carried_on},
    }
    assert len(carried_on) == 1


async def test_an_audit_whose_first_write_meets_a_blip_writes_once_it_is_over(
    workspace_url: str, query: Query
) -> None:
    db = open_database(Settings(_env_file=None, database_url=workspace_url))
    log = AuditLog(db, batch_every_s=0.1)
    runs = [RunInfo(str(uuid.uuid4()), f"t-{n}", "U0GRACE", "0" * 32) for n in range(2)]
    try:
        async with blip(workspace_url):
            first = await log.start(runs[0])
            log.finish(first, status="completed", output_text="one")
            await asyncio.sleep(1.0)  # batches fail meanwhile: the database is away
        second = await log.start(runs[1])
        log.finish(second, status="completed", output_text="two")
        await log.drain()
    finally:
        await db.dispose()
    assert dict(query("select id, output_text from agent_runs")) == {
        runs[0].run_id: "one",
        runs[1].run_id: "two",
    }
