"""The tables that keep every change to one run: proposals, decisions and receipts.

A proposal as propose recorded it, the decision confirm checked against it, and the receipt
of the change that ran under its idempotency key.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    DateTime,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.db.base import Base, JSONType, utcnow


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
