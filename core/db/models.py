"""The workspace schema (one schema for SQLite and PostgreSQL), in SQLAlchemy 2 style.

Full-text search lives outside the ORM: an FTS5 table on SQLite and a generated tsvector
column on PostgreSQL, both created by the migration (see `core.db.search`).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from core.db.base import Base, JSONType, utcnow


class Client(Base):
    """An agency client (e.g. Distex, Thorinox)."""

    __tablename__ = "clients"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    name_key: Mapped[str] = mapped_column(Text, unique=True)
    notes: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    brands: Mapped[list[Brand]] = relationship(back_populates="client")


class Brand(Base):
    """A client's brand and where its work goes (the destination mapping)."""

    __tablename__ = "brands"
    __table_args__ = (UniqueConstraint("client_id", "name_key"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(Text)
    name_key: Mapped[str] = mapped_column(Text, index=True)
    marketplace: Mapped[str | None] = mapped_column(Text)
    destination_space: Mapped[str | None] = mapped_column(Text)
    """Where the brand's tasks are filed; None means the mapping is missing."""
    destination_list: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    client: Mapped[Client] = relationship(back_populates="brands")


class TeamMember(Base):
    """A person on the agency team, with the role that governs what the agent may do for them."""

    __tablename__ = "team_members"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    name_key: Mapped[str] = mapped_column(Text, index=True)
    email: Mapped[str] = mapped_column(Text, unique=True)
    slack_user_id: Mapped[str | None] = mapped_column(Text, unique=True)
    role: Mapped[str] = mapped_column(String(16), default="member")
    """viewer, member or admin."""
    title: Mapped[str] = mapped_column(Text, default="")


class Assignment(Base):
    """A team member's role on a client account."""

    __tablename__ = "assignments"
    __table_args__ = (UniqueConstraint("client_id", "team_member_id", "assignment_role"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"))
    team_member_id: Mapped[int] = mapped_column(ForeignKey("team_members.id", ondelete="CASCADE"))
    assignment_role: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Task(Base):
    """A piece of client work."""

    __tablename__ = "tasks"
    __table_args__ = (Index("ix_tasks_client_status", "client_id", "status"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"))
    brand_id: Mapped[int | None] = mapped_column(ForeignKey("brands.id", ondelete="SET NULL"))
    title: Mapped[str] = mapped_column(Text)
    description: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(16), default="open")
    """open, in_progress, blocked or done."""
    assignee_id: Mapped[int | None] = mapped_column(
        ForeignKey("team_members.id", ondelete="SET NULL")
    )
    due_date: Mapped[date | None] = mapped_column(Date)
    product_ids: Mapped[list[Any]] = mapped_column(default=list)
    """Product identifiers (ASINs) the task is about."""
    created_by: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class KbDocument(Base):
    """A knowledge-base document: an SOP, a reference doc or a task template."""

    __tablename__ = "kb_documents"
    id: Mapped[int] = mapped_column(primary_key=True)
    client_id: Mapped[int | None] = mapped_column(
        ForeignKey("clients.id", ondelete="CASCADE"), index=True
    )
    """None for agency-wide documents."""
    kind: Mapped[str] = mapped_column(String(16), default="sop")
    title: Mapped[str] = mapped_column(Text)
    body: Mapped[str] = mapped_column(Text)
    tags: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ClientMemoryNote(Base):
    """A durable fact about a client, recalled with its context (archived, never deleted)."""

    __tablename__ = "client_memory_notes"
    __table_args__ = (Index("ix_client_memory_client_created", "client_id", "created_at"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"))
    author: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(16), default="chat")
    """chat, meeting or manual."""
    note: Mapped[str] = mapped_column(Text)
    confidence: Mapped[float] = mapped_column(Float, default=0.7)
    tags: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    archived_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Room(Base):
    """A hotel room type and how many of it there are."""

    __tablename__ = "rooms"
    id: Mapped[int] = mapped_column(primary_key=True)
    room_type: Mapped[str] = mapped_column(Text, unique=True)
    max_guests: Mapped[int] = mapped_column(Integer)
    inventory: Mapped[int] = mapped_column(Integer, default=1)
    description: Mapped[str] = mapped_column(Text, default="")


class Rate(Base):
    """A nightly rate for a room type over a date range (end exclusive)."""

    __tablename__ = "rates"
    id: Mapped[int] = mapped_column(primary_key=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"), index=True)
    start_date: Mapped[date] = mapped_column(Date)
    end_date: Mapped[date] = mapped_column(Date)
    rate_per_night: Mapped[float] = mapped_column(Float)


class Booking(Base):
    """A reservation of one room for a stay (check_out exclusive)."""

    __tablename__ = "bookings"
    __table_args__ = (Index("ix_bookings_room_dates", "room_id", "check_in", "check_out"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    check_in: Mapped[date] = mapped_column(Date)
    check_out: Mapped[date] = mapped_column(Date)
    guests: Mapped[int] = mapped_column(Integer)
    guest_name: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="confirmed")
    created_by: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class MutationReceipt(Base):
    """Proof that a mutation ran, keyed by its idempotency key: a replay returns this result."""

    __tablename__ = "mutation_receipts"
    id: Mapped[int] = mapped_column(primary_key=True)
    idempotency_key: Mapped[str] = mapped_column(Text, unique=True)
    tool: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(Text, default="")
    args: Mapped[dict[str, Any]] = mapped_column(default=dict)
    result: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ProposalRecord(Base):
    """A proposed change as propose recorded it, kept in the workspace (not only in graph state).

    confirm checks a decision against this record (the call, its fingerprint, who asked)
    and the idempotency key comes from it, so an edit of the thread's state cannot change
    who may decide or make the change run twice. One record per call of an AI message.
    """

    __tablename__ = "proposal_records"
    __table_args__ = (UniqueConstraint("thread_id", "message_id", "tool_call_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    fingerprint: Mapped[str] = mapped_column(Text, index=True)
    thread_id: Mapped[str] = mapped_column(Text)
    message_id: Mapped[str] = mapped_column(Text)
    """The AI message that asked for the call."""
    tool_call_id: Mapped[str] = mapped_column(Text)
    tool: Mapped[str] = mapped_column(Text)
    args: Mapped[dict[str, Any]] = mapped_column(default=dict)
    description: Mapped[str] = mapped_column(Text, default="")
    actor: Mapped[str] = mapped_column(Text)
    """Who asked: the change is theirs, and only they (or an approver role) decide on it."""
    actor_role: Mapped[str] = mapped_column(String(32))
    run_id: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[str] = mapped_column(Text)
    """ISO time of the proposal, as the interrupt shows it."""
    expires_at: Mapped[str] = mapped_column(Text)
    parent_call_id: Mapped[str] = mapped_column(Text, default="", index=True)
    """For a change inside the planner: the main graph's create_plan call it works for."""
    resume_state: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    """For a change inside the planner: the planner's state when it proposed (a re-run of
    the planner from the thread's waiting checkpoint starts from here, not from scratch)."""
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ConfirmationRecord(Base):
    """A decision the confirm node checked, kept in the workspace (not only in graph state).

    The tools node carries out a change only when its decision is recorded here, so a state
    update that jumps straight to the tools node (a raw Command) cannot approve anything.
    """

    __tablename__ = "confirmation_records"
    id: Mapped[int] = mapped_column(primary_key=True)
    decision_key: Mapped[str] = mapped_column(Text, unique=True)
    """The change's idempotency key (approve, edit), or `<decision>:<fingerprint>`."""
    fingerprint: Mapped[str] = mapped_column(Text, index=True)
    thread_id: Mapped[str] = mapped_column(Text)
    tool_call_id: Mapped[str] = mapped_column(Text)
    tool: Mapped[str] = mapped_column(Text)
    decision: Mapped[str] = mapped_column(String(16))
    args: Mapped[dict[str, Any]] = mapped_column(default=dict)
    decided_by: Mapped[str] = mapped_column(Text, default="")
    reason: Mapped[str] = mapped_column(Text, default="")
    decided_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


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


class ProcessedEvent(Base):
    """A delivered event id (e.g. Slack's) already handled; rows expire after a TTL."""

    __tablename__ = "processed_events"
    event_id: Mapped[str] = mapped_column(Text, primary_key=True)
    source: Mapped[str] = mapped_column(String(32), default="slack")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
