"""Reading the audit back: runs by thread, tool, status or feedback; one run with all it did."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from core.db.engine import Database
from core.db.models import AgentMessage, AgentRun, Feedback, SkillEvent


@dataclass
class RunDetail:
    """A run with its messages, tool calls and results, and the runs that carried it on."""

    run: AgentRun
    messages: list[AgentMessage]
    events: list[SkillEvent]
    children: list[RunDetail] = field(default_factory=list)
    votes: list[Feedback] = field(default_factory=list)


async def list_runs(
    db: Database,
    *,
    thread: str | None = None,
    tool: str | None = None,
    status: str | None = None,
    feedback: str | None = None,
    limit: int = 50,
) -> list[AgentRun]:
    """Return runs, newest first.

    `tool` keeps runs in which the model called that tool; `feedback` (positive or
    negative), runs someone rated so.
    """
    query = select(AgentRun).order_by(AgentRun.started_at.desc()).limit(limit)
    if thread:
        query = query.where(AgentRun.thread_id == thread)
    if status:
        query = query.where(AgentRun.status == status)
    if tool:
        called = select(SkillEvent.run_id).where(
            SkillEvent.skill_id == tool, SkillEvent.event_type == "skill_call"
        )
        query = query.where(AgentRun.id.in_(called))
    if feedback:
        query = query.where(
            AgentRun.id.in_(select(Feedback.run_id).where(Feedback.rating == feedback))
        )
    async with db.session() as session:
        return list((await session.scalars(query)).all())


async def show_run(db: Database, run_id: str) -> RunDetail | None:
    """Return one run (a unique id prefix is enough) with its children, or None."""
    async with db.session() as session:
        run = await session.get(AgentRun, run_id)
        if run is None:
            matches = (
                await session.scalars(select(AgentRun).where(AgentRun.id.startswith(run_id)))
            ).all()
            run = matches[0] if len(matches) == 1 else None
        if run is None:
            return None
        return await _detail(session, run, depth=0)


async def _detail(session: Any, run: AgentRun, depth: int) -> RunDetail:
    messages = await session.scalars(
        select(AgentMessage).where(AgentMessage.run_id == run.id).order_by(AgentMessage.seq)
    )
    events = await session.scalars(
        select(SkillEvent)
        .where(
            SkillEvent.run_id == run.id, SkillEvent.event_type.in_(["skill_call", "skill_result"])
        )
        .order_by(SkillEvent.id)
    )
    votes = await session.scalars(
        select(Feedback).where(Feedback.run_id == run.id).order_by(Feedback.voted_at)
    )
    detail = RunDetail(run, list(messages.all()), list(events.all()), votes=list(votes.all()))
    if depth < 5:
        children = await session.scalars(
            select(AgentRun).where(AgentRun.parent_run_id == run.id).order_by(AgentRun.started_at)
        )
        detail.children = [await _detail(session, child, depth + 1) for child in children.all()]
    return detail


async def votes_for(db: Database, run_ids: list[str]) -> dict[str, list[Feedback]]:
    """Return the votes on each of `run_ids` (oldest first); runs nobody rated are left out."""
    found: dict[str, list[Feedback]] = {}
    if not run_ids:
        return found
    query = select(Feedback).where(Feedback.run_id.in_(run_ids)).order_by(Feedback.voted_at)
    async with db.session() as session:
        for vote in (await session.scalars(query)).all():
            found.setdefault(vote.run_id, []).append(vote)
    return found


def vote_json(vote: Feedback) -> dict[str, Any]:
    """A vote as plain JSON."""
    return {
        "person": vote.person,
        "rating": vote.rating,
        "comment": vote.comment,
        "channel": vote.channel,
        "voted_at": vote.voted_at.isoformat() if vote.voted_at else None,
    }


def run_json(run: AgentRun) -> dict[str, Any]:
    """A run row as plain JSON."""
    return {
        "id": run.id,
        "kind": run.kind,
        "parent_run_id": run.parent_run_id,
        "thread_id": run.thread_id,
        "user_id": run.user_id,
        "decided_by": run.decided_by,
        "channel": run.channel,
        "trace_id": run.trace_id,
        "status": run.status,
        "input_text": run.input_text,
        "output_text": run.output_text,
        "error": run.error,
        "model": run.model,
        "input_tokens": run.input_tokens,
        "output_tokens": run.output_tokens,
        "usage": run.usage,
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "duration_ms": run.duration_ms,
    }


def tree_results(detail: RunDetail) -> dict[str, SkillEvent]:
    """Tool results by call id across a run and its children (a resume runs what was proposed)."""
    results = {e.tool_call_id: e for e in detail.events if e.event_type == "skill_result"}
    for child in detail.children:
        results.update(tree_results(child))
    return results


def detail_json(detail: RunDetail, results: dict[str, SkillEvent] | None = None) -> dict[str, Any]:
    """A run with everything it did, as plain JSON."""
    results = tree_results(detail) if results is None else results
    return {
        **run_json(detail.run),
        "messages": [
            {
                "seq": m.seq,
                "role": m.role,
                "content": m.content,
                "tool_calls": m.tool_calls,
                "tool_call_id": m.tool_call_id,
                "model": m.model,
                "input_tokens": m.input_tokens,
                "output_tokens": m.output_tokens,
            }
            for m in detail.messages
        ],
        "tool_calls": [
            {
                "id": call.tool_call_id,
                "tool": call.skill_id,
                "args": call.payload.get("args"),
                "status": results[call.tool_call_id].status
                if call.tool_call_id in results
                else None,
                "duration_ms": results[call.tool_call_id].duration_ms
                if call.tool_call_id in results
                else None,
                "result": results[call.tool_call_id].payload.get("result")
                if call.tool_call_id in results
                else None,
            }
            for call in detail.events
            if call.event_type == "skill_call"
        ],
        "feedback": [vote_json(vote) for vote in detail.votes],
        "children": [detail_json(child, results) for child in detail.children],
    }
