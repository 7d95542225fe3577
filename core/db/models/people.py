"""People and their roles: who the workspace lists, and what the agent may do for each."""

from __future__ import annotations

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from core.db.base import Base


class TeamMember(Base):
    """A person the workspace lists, with the role that governs what the agent may do for them."""

    __tablename__ = "team_members"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    name_key: Mapped[str] = mapped_column(Text, index=True)
    email: Mapped[str] = mapped_column(Text, unique=True)
    slack_user_id: Mapped[str | None] = mapped_column(Text, unique=True)
    role: Mapped[str] = mapped_column(String(16), default="member")
    """viewer, member or admin."""
    title: Mapped[str] = mapped_column(Text, default="")
