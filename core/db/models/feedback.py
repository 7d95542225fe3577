"""What people said of the answers: one vote per person per answer (the latest wins)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from core.db.base import Base, utcnow


class Feedback(Base):
    """A person's thumbs-up or thumbs-down on the answer one run gave, with an optional comment.

    A second vote of the same person on the same run replaces the first (an upsert on the
    unique pair), so a replayed or repeated click leaves one row.
    """

    __tablename__ = "feedback"
    __table_args__ = (UniqueConstraint("run_id", "person"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("agent_runs.id", ondelete="CASCADE"))
    """The run whose answer was rated (a turn, or the resume that answered after a decision)."""
    person: Mapped[str] = mapped_column(Text)
    """Who voted: a Slack user id, or the CLI's `--user`."""
    rating: Mapped[str] = mapped_column(String(8), index=True)
    """positive or negative."""
    comment: Mapped[str | None] = mapped_column(Text)
    channel: Mapped[str] = mapped_column(String(32), default="")
    """Where the vote was given: slack or cli."""
    voted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    """When the person last voted on this answer."""
