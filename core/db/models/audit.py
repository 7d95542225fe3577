"""The audit tables (runs, their messages, their tool calls) and the events already handled."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.db.base import Base, utcnow


class AgentRun(Base):
    """One invocation of the graph: a turn, the resume of a paused turn, or a planner run."""

    __tablename__ = "agent_runs"
    __table_args__ = (Index("ix_agent_runs_thread_started", "thread_id", "started_at"),)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), default="main")
    """main (a turn), resume (a decision carrying a paused turn on) or planner."""
    parent_run_id: Mapped[str | None] = mapped_column(Text, index=True)
    """The run this one continues (a resume's paused turn); no foreign key, so a run is
    recorded even when its parent predates the audit tables."""
    thread_id: Mapped[str] = mapped_column(Text)
    user_id: Mapped[str] = mapped_column(Text, default="")
    """The actor: who asked (a resume keeps the asker; `decided_by` is who decided)."""
    decided_by: Mapped[str | None] = mapped_column(Text)
    channel: Mapped[str] = mapped_column(String(32), default="")
    trace_id: Mapped[str] = mapped_column(String(32), default="", index=True)
    status: Mapped[str] = mapped_column(String(24), default="running")
    """running, completed, needs_confirmation, refused, capped, failed, or interrupted (the
    process ended mid-run; closed when the thread's next run starts)."""
    input_text: Mapped[str] = mapped_column(Text, default="")
    output_text: Mapped[str] = mapped_column(Text, default="")
    error: Mapped[str | None] = mapped_column(Text)
    model: Mapped[str | None] = mapped_column(Text)
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    usage: Mapped[list[Any]] = mapped_column(default=list)
    """Per model call: {"model", "node", "input_tokens", "output_tokens", "tools"} (the
    tools the call was offered: why the model did not call X)."""
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    duration_ms: Mapped[float | None] = mapped_column(Float)


class AgentMessage(Base):
    """A message a run added to its thread, in order, with the model's usage for AI messages."""

    __tablename__ = "agent_messages"
    __table_args__ = (Index("ix_agent_messages_run_seq", "run_id", "seq"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("agent_runs.id", ondelete="CASCADE"))
    thread_id: Mapped[str] = mapped_column(Text, index=True)
    seq: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(16))
    """human, ai or tool."""
    content: Mapped[str] = mapped_column(Text, default="")
    tool_calls: Mapped[list[Any]] = mapped_column(default=list)
    tool_call_id: Mapped[str | None] = mapped_column(Text)
    name: Mapped[str | None] = mapped_column(Text)
    model: Mapped[str | None] = mapped_column(Text)
    input_tokens: Mapped[int | None] = mapped_column(Integer)
    output_tokens: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SkillEvent(Base):
    """A tool call or its full result (reference Appendix B), for audit and rehydration."""

    __tablename__ = "agent_skill_events"
    __table_args__ = (Index("ix_agent_skill_events_run_created", "run_id", "created_at"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[str] = mapped_column(Text)
    thread_id: Mapped[str] = mapped_column(Text, default="", index=True)
    tool_call_id: Mapped[str] = mapped_column(Text, default="", index=True)
    event_type: Mapped[str] = mapped_column(String(16))
    """skill_call or skill_result."""
    skill_id: Mapped[str] = mapped_column(Text, index=True)
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    payload_summary: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(24), default="", server_default="")
    """A result's outcome: ok, error, timeout, refused, rejected, capped, not_confirmed."""
    duration_ms: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ProcessedEvent(Base):
    """A delivered event id (e.g. Slack's) already handled; rows expire after a TTL."""

    __tablename__ = "processed_events"
    event_id: Mapped[str] = mapped_column(Text, primary_key=True)
    source: Mapped[str] = mapped_column(String(32), default="slack")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
