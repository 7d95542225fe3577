"""Closing what a crash left open in a thread's audit, when the thread's next run starts.

A process killed mid-run leaves its run `running` and may have carried out an approved
change whose result it never recorded (the change is committed with its receipt; the audit
rows come later). One run at a time works on a thread, so when the thread's next run ends,
the earlier runs still marked running are closed as `interrupted` (with their planner runs)
and every change they carried out gets its result recorded from the change's receipt.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import and_, exists, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import AgentRun, ConfirmationRecord, MutationReceipt, SkillEvent
from core.observability.audit.rows import summary
from core.observability.audit.run import RunAudit
from core.text import clean_data


async def close_dead_runs(conn: AsyncConnection, thread_id: str, before: RunAudit) -> list[str]:
    """Close the thread's runs left running that began before `before`; return their ids.

    `before` is the run now ending; the changes the closed runs made get their results.
    """
    now = datetime.now(UTC)
    closed = await conn.execute(
        update(AgentRun)
        .where(
            AgentRun.thread_id == thread_id,
            AgentRun.status == "running",
            AgentRun.id != before.info.run_id,
            AgentRun.started_at < datetime.fromtimestamp(before.started, UTC),
        )
        .values(status="interrupted", finished_at=now, error="the process ended mid-run")
        .returning(AgentRun.id, AgentRun.started_at)
    )
    dead = [run_id for run_id, _ in sorted(closed.all(), key=lambda row: row[1])]
    if not dead:
        return []
    recorded = exists().where(
        and_(
            SkillEvent.thread_id == thread_id,
            SkillEvent.tool_call_id == ConfirmationRecord.tool_call_id,
            SkillEvent.event_type == "skill_result",
        )
    )
    executed = await conn.execute(
        select(ConfirmationRecord.tool_call_id, ConfirmationRecord.tool, MutationReceipt.result)
        .join(MutationReceipt, MutationReceipt.idempotency_key == ConfirmationRecord.decision_key)
        .where(ConfirmationRecord.thread_id == thread_id, ~recorded)
    )
    rows = [
        clean_data(
            {
                "run_id": dead[-1],
                "thread_id": thread_id,
                "tool_call_id": call_id,
                "event_type": "skill_result",
                "skill_id": tool,
                "payload": {"result": result, "from_receipt": True},
                "payload_summary": summary(result),
                "status": "ok",
                "duration_ms": None,
                "created_at": now,
            }
        )
        for call_id, tool, result in executed
    ]
    if rows:
        await conn.execute(insert(SkillEvent), rows)
    return dead
