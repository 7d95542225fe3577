"""The hotel's tables: room types, their nightly rates and the bookings."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    Date,
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
