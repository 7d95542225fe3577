"""Decisions kept in the workspace: confirm records each one it checked, tools requires it.

Graph state can be written by anyone who can send a `Command` to the thread (Studio, the
SDK); the workspace cannot. So a change runs only when the decision that allows it was
recorded here by the confirm node, for that call, with those arguments.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from core.db.engine import Database
from core.db.models import ConfirmationRecord
from core.state import Decision, Proposal


def decision_key(decision: Decision) -> str:
    """Return the record's key: the change's idempotency key, else decision and fingerprint."""
    return decision.get("idempotency_key") or f"{decision['decision']}:{decision['fingerprint']}"


async def record(
    db: Database, thread_id: str, proposals: list[Proposal], decisions: dict[str, Decision]
) -> None:
    """Record the checked decisions (a re-run records nothing twice: the first one stands)."""
    tools = {p["tool_call_id"]: p["tool"] for p in proposals}
    rows = [
        {
            "decision_key": decision_key(decision),
            "fingerprint": decision["fingerprint"],
            "thread_id": thread_id,
            "tool_call_id": call_id,
            "tool": tools.get(call_id, "?"),
            "decision": decision["decision"],
            "args": decision.get("args", {}),
            "decided_by": decision.get("decided_by", ""),
            "reason": decision.get("reason", ""),
        }
        for call_id, decision in decisions.items()
        if decision["decision"] != "dismiss"
    ]
    if not rows:
        return
    dialect = postgresql if db.dialect == "postgresql" else sqlite
    statement = dialect.insert(ConfirmationRecord).values(rows)
    async with db.session() as session:
        await session.execute(statement.on_conflict_do_nothing(index_elements=["decision_key"]))
        await session.commit()


async def is_recorded(
    db: Database, thread_id: str, call_id: str, key: str, decision: Decision
) -> bool:
    """Tell whether confirm recorded this decision for this call in this thread, under `key`.

    `key` is the idempotency key derived from the proposal's record, not the one the
    thread's state carries.
    """
    async with db.session() as session:
        found = await session.scalar(
            select(ConfirmationRecord).where(ConfirmationRecord.decision_key == key)
        )
    return (
        found is not None
        and found.thread_id == thread_id
        and found.tool_call_id == call_id
        and found.decision == decision["decision"]
        and found.args == decision.get("args", {})
    )
