"""The hospitality pack: room availability with night-by-night rates, and bookings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from tools.declaration import Shows, ToolContext, declare
from tools.hospitality.models import Booking, Rate, Room
from tools.idempotency import run_once

MAX_NIGHTS = 30
MAX_GUESTS = 10
CONFIRMED = "confirmed"


class GetAvailabilityArgs(BaseModel):
    """Arguments of `get_availability`."""

    check_in: date = Field(description="first night of the stay, YYYY-MM-DD")
    check_out: date = Field(description="departure day (no night is spent), YYYY-MM-DD")
    guests: int = Field(default=2, ge=1, le=MAX_GUESTS, description="people in one room")


class CreateBookingArgs(BaseModel):
    """Arguments of `create_booking`."""

    room_type: str = Field(min_length=1, description="e.g. 'Queen', 'King Suite'")
    check_in: date = Field(description="first night of the stay, YYYY-MM-DD")
    check_out: date = Field(description="departure day (no night is spent), YYYY-MM-DD")
    guests: int = Field(default=2, ge=1, le=MAX_GUESTS, description="people in the room")
    guest_name: str = Field(min_length=1, max_length=200, description="the guest's name")


@dataclass(frozen=True)
class _Quote:
    """One room type's availability and price for a stay."""

    room: Room
    free: int
    nightly_rates: list[dict[str, Any]]
    total: float | None

    @property
    def available(self) -> bool:
        """Whether at least one room is free every night and every night has a rate."""
        return self.free > 0 and self.total is not None

    def as_dict(self) -> dict[str, Any]:
        """Return the quote as tool-result data."""
        return {
            "room_type": self.room.room_type,
            "max_guests": self.room.max_guests,
            "free": self.free,
            "nightly_rates": self.nightly_rates,
            "total": money(self.total),
            "available": self.available,
            "booked": None if self.available else "fully booked" if not self.free else "unpriced",
        }


@declare(
    pack="hospitality",
    kind="read_only",
    asks=(
        "is there a room free from March 3 to March 5?",
        "check availability June 1-3 for 4 people",
        "do you have a King Suite on the 14th?",
        "any rooms over the holidays?",
        "vacancies for the 2nd to the 4th",
        "what would two nights from May 8 cost",
        "is there space for three people March 4-6?",
        "which rooms can I get the night of the 12th?",
    ),
    shows=Shows(
        records="rooms",
        fields=("room_type+booked", "free", "total", "nightly_rates", "max_guests"),
        noun="room type",
        lead={"": "from {check_in} to {check_out}"},
    ),
)
async def get_availability(args: GetAvailabilityArgs, ctx: ToolContext) -> dict[str, Any]:
    """Check which hotel room types are free for a stay, and what the stay costs.

    `check_out` is the departure day: a stay of 2027-01-17 to 2027-01-19 is two nights.
    Only room types that fit `guests` are listed. A room type counts as free only if a
    room of it is free on every night of the stay. Rates can change within a stay (e.g.
    holiday rates), so each night is priced on its own. Amounts are in US dollars, written
    as people read them ("$149").

    Returns:
        {"check_in", "check_out", "nights", "guests", "rooms": [{"room_type",
        "max_guests", "free" (rooms free every night), "nightly_rates": [{"date",
        "rate"}], "total" (whole stay, one room), "available", "booked" (why a room type is
        not available: "fully booked", or "unpriced" when a night has no rate; else null)}]}.

    Examples:
        {"check_in": "2027-01-17", "check_out": "2027-01-19"},
        {"check_in": "2026-12-05", "check_out": "2026-12-06", "guests": 4}.
    """
    nights = _stay_nights(args.check_in, args.check_out, ctx.today)
    async with ctx.database().session() as session:
        rooms = list(
            await session.scalars(
                select(Room).where(Room.max_guests >= args.guests).order_by(Room.id)
            )
        )
        quotes = await _quotes(session, rooms, nights)
    return {
        "check_in": args.check_in.isoformat(),
        "check_out": args.check_out.isoformat(),
        "nights": len(nights),
        "guests": args.guests,
        "rooms": [quote.as_dict() for quote in quotes],
    }


@declare(
    pack="hospitality",
    kind="mutating",
    roles=("member", "admin"),
    asks=(
        "book a Queen for Jo Park from March 3 to 5",
        "reserve the King Suite for Alex Kim, June 1-3, 2 guests",
        "make a booking for the Nguyen family next weekend",
        "put Chris Wu in a Double Queen on the 8th for one night",
        "I'd like to book a room for Pat Jones",
        "put the Garcia family in the King Suite from May 8 to 10",
        "Sam Lee needs a Queen, June 3 to 5",
    ),
    shows=Shows(
        fields=("guest_name", "check_in", "check_out", "guests", "total", "status"),
        lead={"": "Booked a {room_type} room"},
    ),
)
async def create_booking(args: CreateBookingArgs, ctx: ToolContext) -> dict[str, Any]:
    """Book one room of a room type for a stay, if one is free every night.

    Check availability first with `get_availability`. `check_out` is the departure day.
    Fails when the room type is unknown, does not fit `guests`, or is fully booked on any
    night of the stay.

    Returns:
        {"booking_id", "room_type", "check_in", "check_out", "nights", "guests",
        "guest_name", "status", "nightly_rates": [{"date", "rate"}], "total"}, plus
        "replayed": true when this exact booking request was already applied.

    Examples:
        {"room_type": "Queen", "check_in": "2027-01-17", "check_out": "2027-01-19",
        "guests": 2, "guest_name": "Dana Levi"}.
    """
    nights = _stay_nights(args.check_in, args.check_out, ctx.today)

    async def book(session: AsyncSession) -> dict[str, Any]:
        room = await _room_for_update(session, args.room_type)
        if args.guests > room.max_guests:
            raise ValueError(
                f"{room.room_type} sleeps at most {room.max_guests} guests, not {args.guests}"
            )
        # Re-checked inside the transaction, after the room type's row is locked.
        (quote,) = await _quotes(session, [room], nights)
        if not quote.available:
            reason = "no room is free every night" if quote.free == 0 else "no rate set"
            raise ValueError(
                f"{room.room_type} cannot be booked from {args.check_in} to "
                f"{args.check_out}: {reason}"
            )
        booking = Booking(
            room_id=room.id,
            check_in=args.check_in,
            check_out=args.check_out,
            guests=args.guests,
            guest_name=args.guest_name.strip(),
            status=CONFIRMED,
            created_by=ctx.user_id,
        )
        session.add(booking)
        await session.flush()
        return {
            "booking_id": booking.id,
            "room_type": room.room_type,
            "check_in": args.check_in.isoformat(),
            "check_out": args.check_out.isoformat(),
            "nights": len(nights),
            "guests": args.guests,
            "guest_name": booking.guest_name,
            "status": booking.status,
            "nightly_rates": quote.nightly_rates,
            "total": money(quote.total),
        }

    return await run_once(ctx, "create_booking", args.model_dump(mode="json"), book)


def _stay_nights(check_in: date, check_out: date, today: date) -> list[date]:
    """Return the nights of a stay, or raise ValueError when the stay is not bookable."""
    if check_out <= check_in:
        raise ValueError("check_out must be after check_in")
    if check_in < today:
        raise ValueError(f"check_in {check_in} is in the past (today is {today})")
    count = (check_out - check_in).days
    if count > MAX_NIGHTS:
        raise ValueError(f"stays are limited to {MAX_NIGHTS} nights, not {count}")
    return [check_in + timedelta(days=offset) for offset in range(count)]


async def _room_for_update(session: AsyncSession, room_type: str) -> Room:
    """Return the room type named `room_type` (any case), locking its row on PostgreSQL.

    The lock serializes concurrent bookings of one room type, so two of them cannot both
    take its last free room; SQLite serializes every writer already.
    """
    wanted = " ".join(room_type.split()).casefold()
    room = await session.scalar(
        select(Room).where(func.lower(Room.room_type) == wanted).with_for_update()
    )
    if room is None:
        known = ", ".join(await session.scalars(select(Room.room_type).order_by(Room.id)))
        raise ValueError(f"unknown room type {room_type!r}; room types: {known}")
    return room


async def _quotes(session: AsyncSession, rooms: Sequence[Room], nights: list[date]) -> list[_Quote]:
    """Price and count free rooms of each room type, night by night, in two queries."""
    if not rooms:
        return []
    ids = [room.id for room in rooms]
    first, end = nights[0], nights[-1] + timedelta(days=1)
    bookings = (
        await session.execute(
            select(Booking.room_id, Booking.check_in, Booking.check_out).where(
                Booking.room_id.in_(ids),
                Booking.status == CONFIRMED,
                Booking.check_in < end,
                Booking.check_out > first,
            )
        )
    ).all()
    rates = (
        await session.execute(
            select(Rate.room_id, Rate.start_date, Rate.end_date, Rate.rate_per_night, Rate.id)
            .where(Rate.room_id.in_(ids), Rate.start_date < end, Rate.end_date > first)
            # Most specific first: the latest start wins; among equal starts, the newest row.
            .order_by(Rate.start_date.desc(), Rate.id.desc())
        )
    ).all()
    quotes = []
    for room in rooms:
        booked = [(b.check_in, b.check_out) for b in bookings if b.room_id == room.id]
        ranges = [
            (r.start_date, r.end_date, r.rate_per_night) for r in rates if r.room_id == room.id
        ]
        taken = max(sum(start <= night < stop for start, stop in booked) for night in nights)
        prices = [_rate_on(night, ranges) for night in nights]
        known = [price for price in prices if price is not None]
        total = round(sum(known), 2) if len(known) == len(prices) else None
        nightly = [
            {"date": n.isoformat(), "rate": money(p)} for n, p in zip(nights, prices, strict=True)
        ]
        quotes.append(_Quote(room, max(room.inventory - taken, 0), nightly, total))
    return quotes


def money(amount: float | None) -> str | None:
    """An amount in US dollars as people read it: "$149", "$1,276", "$149.50"; None if unknown."""
    return None if amount is None else f"${amount:,.2f}".removesuffix(".00")


def _rate_on(night: date, ranges: list[tuple[date, date, float]]) -> float | None:
    """Return the first (most specific) rate covering `night`, or None if none does."""
    for start, stop, rate in ranges:
        if start <= night < stop:
            return rate
    return None


TOOLS = [get_availability, create_booking]
