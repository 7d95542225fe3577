"""The audit writes runs in batches: one transaction for the runs that ended together.

A short run is written once, as it ended; one that goes on gets its `running` row (so a
crash leaves it visible), and a later run of its thread closes it as interrupted if it
never ends. A decision's run is written as it starts. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from sqlalchemy import event, select

from core.db.models import AgentMessage, AgentRun
from core.observability.audit import AuditLog, RunAudit, RunInfo


def _info(thread: str = "t1", kind: str = "main") -> RunInfo:
    return RunInfo(
        run_id=str(uuid.uuid4()),
        thread_id=thread,
        kind=kind,
        user_id="U1",
        trace_id="0" * 32,
        input_text="What is the answer?",
        model="scripted",
    )


def _answered(audit: RunAudit, answer: str = "42.") -> None:
    audit.add_input({"messages": [HumanMessage("What is the answer?", id=str(uuid.uuid4()))]})
    audit.observe("updates", {"act": {"messages": [AIMessage(answer, id=str(uuid.uuid4()))]}})


async def _runs(workspace: Any) -> dict[str, tuple[str, str]]:
    async with workspace.session() as session:
        rows = await session.execute(select(AgentRun.id, AgentRun.status, AgentRun.output_text))
        return {run_id: (status, text) for run_id, status, text in rows}


def _count_transactions(workspace: Any) -> list[int]:
    begun = [0]

    def on_begin(_conn: Any) -> None:
        begun[0] += 1

    event.listen(workspace.engine.sync_engine, "begin", on_begin)
    return begun


async def test_runs_ending_together_are_written_in_one_transaction(workspace) -> None:
    log = AuditLog(workspace, batch_every_s=0.2)
    first = await log.start(_info("t0"))
    log.finish(first, status="completed")
    await log.drain()  # the first batch also checks that the audit tables exist
    begun = _count_transactions(workspace)
    audits = [await log.start(_info(f"t{n}")) for n in range(3)]
    for n, audit in enumerate(audits):
        _answered(audit, f"answer {n}")
        log.finish(audit, status="completed", output_text=f"answer {n}")
    assert await _runs(workspace) == {first.info.run_id: ("completed", "")}  # not yet
    begun[0] = 0  # (that read was a transaction too)
    await asyncio.sleep(0.5)  # the writer's next batch, without waiting for the runner to close

    assert begun[0] == 1
    runs = await _runs(workspace)
    del runs[first.info.run_id]
    assert runs == {a.info.run_id: ("completed", f"answer {n}") for n, a in enumerate(audits)}
    async with workspace.session() as session:
        messages = (await session.execute(select(AgentMessage.run_id, AgentMessage.role))).all()
    assert sorted(messages) == sorted((a.info.run_id, r) for a in audits for r in ("human", "ai"))


async def test_a_run_that_goes_on_is_shown_running_then_ended(workspace) -> None:
    log = AuditLog(workspace, batch_every_s=0.1)
    audit = await log.start(_info())
    assert await _runs(workspace) == {}
    await asyncio.sleep(0.3)  # the run is still going
    assert await _runs(workspace) == {audit.info.run_id: ("running", "")}

    _answered(audit)
    log.finish(audit, status="completed", output_text="42.")
    await log.drain()
    assert await _runs(workspace) == {audit.info.run_id: ("completed", "42.")}


async def test_drain_writes_at_once(workspace) -> None:
    log = AuditLog(workspace, batch_every_s=60)
    ended, going = await log.start(_info("t1")), await log.start(_info("t2"))
    log.finish(ended, status="completed", output_text="done")
    await log.drain()
    assert await _runs(workspace) == {
        ended.info.run_id: ("completed", "done"),
        going.info.run_id: ("running", ""),
    }


async def test_a_run_its_process_left_running_is_closed_by_the_threads_next_run(
    workspace,
) -> None:
    died = AuditLog(workspace, batch_every_s=60)
    dead = await died.start(_info("t1"))
    elsewhere = await died.start(_info("t2"))
    await died.drain()  # both shown running; then the process dies

    log = AuditLog(workspace, batch_every_s=60)
    await asyncio.sleep(0.01)
    after = await log.start(_info("t1"))
    _answered(after)
    later = await log.start(_info("t1"))  # the thread's next run, still going: not a dead one
    log.finish(after, status="completed", output_text="42.")
    await log.drain()

    assert await _runs(workspace) == {
        dead.info.run_id: ("interrupted", ""),
        elsewhere.info.run_id: ("running", ""),  # another thread: not this run's to close
        after.info.run_id: ("completed", "42."),
        later.info.run_id: ("running", ""),
    }


async def test_a_decisions_run_is_written_as_it_starts(workspace) -> None:
    log = AuditLog(workspace, batch_every_s=60)
    decision = await log.start(_info(kind="resume"))
    assert await _runs(workspace) == {decision.info.run_id: ("running", "")}
    log.finish(decision, status="completed", output_text="Done.")
    await log.drain()
    assert await _runs(workspace) == {decision.info.run_id: ("completed", "Done.")}
