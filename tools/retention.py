"""Large tool results: a compact summary stays in the conversation, the full payload in the DB."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from core.db.engine import Database
from core.db.models import SkillEvent

RETAIN_OVER_CHARS = 4_000
"""Results longer than this (as JSON) are stored and summarized."""
SUMMARY_CHARS = 1_500
_LIST_PREVIEW = 3
_TEXT_PREVIEW = 200


def summarize(value: Any, depth: int = 0) -> Any:
    """Shrink a result: long lists show a few items and their count, long strings are cut."""
    if isinstance(value, dict):
        if depth >= 3:
            return f"{{{len(value)} fields}}"
        return {key: summarize(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        preview = [summarize(item, depth + 1) for item in value[:_LIST_PREVIEW]]
        if len(value) > _LIST_PREVIEW:
            preview.append(f"… {len(value) - _LIST_PREVIEW} more (of {len(value)})")
        return preview
    if isinstance(value, str) and len(value) > _TEXT_PREVIEW:
        return value[:_TEXT_PREVIEW] + f"… ({len(value)} chars)"
    return value


async def retain(
    db: Database,
    *,
    data: Any,
    tool: str,
    run_id: str,
    thread_id: str,
    tool_call_id: str,
) -> dict[str, Any]:
    """Store the full result and return what the conversation keeps instead."""
    summary = summarize(data)
    text = json.dumps(summary, default=str, ensure_ascii=False)
    if len(text) > SUMMARY_CHARS:
        text = text[:SUMMARY_CHARS] + "…"
    event = SkillEvent(
        run_id=run_id,
        thread_id=thread_id,
        tool_call_id=tool_call_id,
        event_type="skill_result",
        skill_id=tool,
        payload={"result": json.loads(json.dumps(data, default=str))},
        payload_summary=text,
    )
    async with db.session() as session:
        session.add(event)
        await session.commit()
    return {
        "summary": summary if len(json.dumps(summary, default=str)) <= SUMMARY_CHARS else text,
        "result_id": event.id,
        "note": "This is a summary. The full result is stored: call "
        "load_prior_skill_result with this result_id to see all of it.",
    }


async def load(db: Database, result_id: int, thread_id: str) -> dict[str, Any]:
    """Return a stored result of this thread (another thread's results are not visible)."""
    async with db.session() as session:
        event = await session.scalar(
            select(SkillEvent).where(
                SkillEvent.id == result_id, SkillEvent.event_type == "skill_result"
            )
        )
    if event is None or event.thread_id != thread_id:
        raise ValueError(f"no stored result {result_id} in this conversation")
    return {"result_id": event.id, "tool": event.skill_id, "result": event.payload["result"]}
