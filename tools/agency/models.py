"""The agency pack's tables: clients, brands, assignments, tasks, the KB and client memory notes.

The team itself is the runtime's `team_members` (people and their roles).
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
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from core.db.base import Base, utcnow


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
