"""Drafts of scenarios from thumbs-downs: each negatively rated turn, as a file to complete.

`agentloop eval --from-feedback` writes one scenario file per run someone rated negative:
the thread's conversation up to that answer (each message a `say` step, each decision a
`decide` step, with the model's recorded answers as the step's script), the tool calls the
rated step made, and a `draft` field plus TODOs where a person says what should have
happened. A draft is refused by `agentloop eval` until it is completed; a file already
there (a draft being completed) is never overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.engine import Database
from core.db.models import AgentMessage, AgentRun, Feedback, SkillEvent, TeamMember

TODO_TEXT = "TODO: what the answer should say"
_STATUSES = {"completed", "needs_confirmation", "refused", "capped", "failed"}
_ROLES = {"viewer", "member", "admin"}


@dataclass
class RatedTurn:
    """A run someone rated negative, with the runs of its thread up to it."""

    run: AgentRun
    votes: list[Feedback]
    runs: list[AgentRun] = field(default_factory=list)
    """The thread's turns and decisions up to the rated turn's answer, oldest first: the rated
    run (a turn; surfaces name a turn by its first run), then its own decisions' runs."""
    messages: dict[str, list[AgentMessage]] = field(default_factory=dict)
    results: dict[str, list[SkillEvent]] = field(default_factory=dict)
    """The tool results each run recorded (a decision's include the decided change's)."""
    roles: dict[str, str] = field(default_factory=dict)
    """The role the workspace lists for each person who asked or decided."""


@dataclass(frozen=True)
class Drafted:
    """One draft: where it is, and whether it was written now or was already there."""

    path: Path
    run_id: str
    written: bool


def write_drafts(turns: list[RatedTurn], out: Path) -> list[Drafted]:
    """Write a draft scenario for each rated turn into `out` (a file already there is kept)."""
    out.mkdir(parents=True, exist_ok=True)
    drafted = []
    for turn in turns:
        path = out / f"{draft_name(turn.run.id)}.yaml"
        written = not path.exists()
        if written:
            path.write_text(draft_yaml(turn), encoding="utf-8")
        drafted.append(Drafted(path, turn.run.id, written))
    return drafted


def draft_name(run_id: str) -> str:
    """The scenario name of the draft of a run."""
    return f"feedback-{run_id[:8].lower()}"


async def rated_turns(db: Database) -> list[RatedTurn]:
    """Return every run someone rated negative (oldest vote first), with its thread's runs."""
    async with db.session() as session:
        votes = (
            await session.scalars(
                select(Feedback).where(Feedback.rating == "negative").order_by(Feedback.voted_at)
            )
        ).all()
        by_run: dict[str, list[Feedback]] = {}
        for vote in votes:
            by_run.setdefault(vote.run_id, []).append(vote)
        turns = []
        for run_id, run_votes in by_run.items():
            run = await session.get(AgentRun, run_id)
            if run is not None:
                turns.append(await _gather(session, RatedTurn(run, run_votes)))
        return turns


async def _gather(session: AsyncSession, turn: RatedTurn) -> RatedTurn:
    runs = (
        await session.scalars(
            select(AgentRun)
            .where(
                AgentRun.thread_id == turn.run.thread_id,
                AgentRun.kind.in_(["main", "resume"]),
                # The turn's own decisions (its resume runs) come after it.
                (AgentRun.started_at <= turn.run.started_at)
                | (AgentRun.parent_run_id == turn.run.id),
            )
            .order_by(AgentRun.started_at)
        )
    ).all()
    own = [r for r in runs if r.parent_run_id == turn.run.id]
    earlier = [r for r in runs if r.id != turn.run.id and r not in own]
    turn.runs = [*earlier, turn.run, *own]
    ids = [r.id for r in turn.runs]
    messages = await session.scalars(
        select(AgentMessage).where(AgentMessage.run_id.in_(ids)).order_by(AgentMessage.seq)
    )
    for message in messages.all():
        turn.messages.setdefault(message.run_id, []).append(message)
    results = await session.scalars(
        select(SkillEvent)
        .where(SkillEvent.run_id.in_(ids), SkillEvent.event_type == "skill_result")
        .order_by(SkillEvent.id)
    )
    for result in results.all():
        turn.results.setdefault(result.run_id, []).append(result)
    people = {p for r in turn.runs for p in (r.user_id, r.decided_by) if p}
    listed = await session.execute(
        select(TeamMember.slack_user_id, TeamMember.email, TeamMember.role).where(
            TeamMember.slack_user_id.in_(people) | TeamMember.email.in_(people)
        )
    )
    for slack_id, email, role in listed.all():
        for key in (slack_id, email):
            if key in people and role in _ROLES:
                turn.roles[key] = role
    return turn


def draft_yaml(turn: RatedTurn) -> str:
    """Return the draft scenario file of a rated turn (YAML, with a comment saying what to do)."""
    run = turn.run
    said = "; ".join(
        f"{v.person} ({v.channel or 'unknown'}): {v.comment or 'no comment'}" for v in turn.votes
    )
    scenario: dict[str, Any] = {
        "name": draft_name(run.id),
        "draft": (
            "Complete this draft: in the last step, replace the TODOs with what should have "
            "happened (and its model script with what a right model answers), then delete "
            "this field."
        ),
        "description": f"TODO: what should have happened. Rated down by {said}.",
        "references": ["feedback"],
        "user": turn.runs[0].user_id or run.user_id,
        "role": turn.roles.get(turn.runs[0].user_id, "member"),
        "today": run.started_at.date() if run.started_at else None,
        "steps": [_step(turn, r, last=r is turn.runs[-1]) for r in turn.runs],
    }
    if scenario["today"] is None:
        del scenario["today"]
    head = (
        f"# A draft from feedback on run {run.id} (thread {run.thread_id}).\n"
        f"# The answer rated down: {_one_line(turn.runs[-1].output_text)}\n"
        "# Each step replays what was said and what the model answered; the last step is the\n"
        "# rated answer. Run it once completed: agentloop eval <this file>\n"
    )
    return head + yaml.safe_dump(
        scenario, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False
    )


def _step(turn: RatedTurn, run: AgentRun, *, last: bool) -> dict[str, Any]:
    messages = turn.messages.get(run.id, [])
    step: dict[str, Any] = {}
    results = turn.results.get(run.id, [])
    if run.kind == "resume" and run.decided_by:
        rejected = any(r.status == "rejected" for r in results)
        step["decide"] = "reject" if rejected else "approve"
        who = run.decided_by
    else:
        step["say"] = run.input_text if run.kind == "main" else "continue"
        who = run.user_id
    if who and who != turn.runs[0].user_id:
        step["user"] = who
        if who in turn.roles:
            step["role"] = turn.roles[who]
    step["model"] = [_turn(m) for m in messages if m.role == "ai"]
    made = [c for m in messages if m.role == "ai" for c in m.tool_calls or []]
    # A decision's step runs the change decided first: its result is this run's, its call
    # an earlier step's.
    ids = {c.get("id") for c in made}
    carried = [r.skill_id for r in results if r.tool_call_id not in ids]
    calls = carried + [str(c.get("name", "")) for c in made]
    expect: dict[str, Any] = {}
    if run.status in _STATUSES:
        expect["status"] = run.status
    if last:
        expect["tools"] = calls
        expect["text_contains"] = [TODO_TEXT]
    step["expect"] = expect
    return step


def _turn(message: AgentMessage) -> dict[str, Any]:
    turn: dict[str, Any] = {}
    if message.content:
        turn["content"] = message.content
    if message.tool_calls:
        turn["tool_calls"] = [
            {"name": call.get("name", ""), "args": call.get("args") or {}}
            for call in message.tool_calls
        ]
    return turn or {"content": ""}


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
