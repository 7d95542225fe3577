"""The hospitality pack on the seeded demo hotel, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any

import pytest
from sqlalchemy import func, select

from tools.declaration import ToolArgumentsError
from tools.hospitality.models import Booking
from tools.hospitality.rooms import (
    TOOLS,
    CreateBookingArgs,
    GetAvailabilityArgs,
    create_booking,
    get_availability,
    money,
)


async def availability(ctx, check_in: str, check_out: str, **extra: Any) -> dict[str, Any]:
    args = get_availability.validate({"check_in": check_in, "check_out": check_out, **extra})
    return await get_availability.run(args, ctx)


async def book(ctx, room_type: str, check_in: str, check_out: str, **extra: Any) -> dict:
    values = {
        "room_type": room_type,
        "check_in": check_in,
        "check_out": check_out,
        "guests": 2,
        "guest_name": "Dana Levi",
        **extra,
    }
    return await create_booking.run(create_booking.validate(values), ctx)


def by_type(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {room["room_type"]: room for room in result["rooms"]}


def rates(room: dict[str, Any]) -> list[str]:
    return [night["rate"] for night in room["nightly_rates"]]


def test_the_pack_declares_its_tools() -> None:
    assert [t.name for t in TOOLS] == ["get_availability", "create_booking"]
    assert {t.pack for t in TOOLS} == {"hospitality"}
    assert get_availability.read_only and get_availability.roles == {"viewer", "member", "admin"}
    assert create_booking.kind == "mutating" and create_booking.roles == {"member", "admin"}
    assert get_availability.args_schema is GetAvailabilityArgs
    assert create_booking.args_schema is CreateBookingArgs


async def test_january_weekend_is_free_at_base_rates(tool_ctx) -> None:
    result = await availability(tool_ctx(), "2027-01-17", "2027-01-19")
    assert {k: result[k] for k in ("check_in", "check_out", "nights", "guests")} == {
        "check_in": "2027-01-17",
        "check_out": "2027-01-19",
        "nights": 2,
        "guests": 2,
    }
    rooms = by_type(result)
    assert list(rooms) == ["Queen", "Double Queen", "King Suite"]
    assert {t: (r["free"], r["total"], r["available"]) for t, r in rooms.items()} == {
        "Queen": (5, "$298", True),
        "Double Queen": (3, "$398", True),
        "King Suite": (2, "$578", True),
    }
    assert rooms["King Suite"]["max_guests"] == 4
    assert rooms["Queen"]["nightly_rates"] == [
        {"date": "2027-01-17", "rate": "$149"},
        {"date": "2027-01-18", "rate": "$149"},
    ]


async def test_hanukkah_night_has_no_king_suite(tool_ctx) -> None:
    rooms = by_type(await availability(tool_ctx(), "2026-12-05", "2026-12-06"))
    # Both seeded King Suite bookings (Dec 4-6 and Dec 5-7) include the night of Dec 5.
    assert rooms["King Suite"]["free"] == 0
    assert rooms["King Suite"]["available"] is False
    assert rooms["King Suite"]["total"] == "$289"
    assert rooms["King Suite"]["booked"] == "fully booked" and rooms["Queen"]["booked"] is None
    assert rooms["Queen"]["free"] == 5 and rooms["Double Queen"]["free"] == 3


async def test_free_rooms_are_counted_night_by_night(tool_ctx) -> None:
    ctx = tool_ctx()
    # Only one seeded booking covers the night of Dec 6, and none covers Dec 7.
    assert by_type(await availability(ctx, "2026-12-06", "2026-12-08"))["King Suite"]["free"] == 1
    # A stay is only as free as its fullest night.
    assert by_type(await availability(ctx, "2026-12-03", "2026-12-08"))["King Suite"]["free"] == 0
    # Two bookings that overlap the stay but not each other take one room, not two.
    await book(ctx, "Double Queen", "2027-02-01", "2027-02-02")
    await book(ctx, "Double Queen", "2027-02-03", "2027-02-04")
    rooms = by_type(await availability(ctx, "2027-02-01", "2027-02-04"))
    assert rooms["Double Queen"]["free"] == 2


async def test_a_stay_across_dec_20_mixes_base_and_holiday_rates(tool_ctx) -> None:
    rooms = by_type(await availability(tool_ctx(), "2026-12-18", "2026-12-22"))
    assert rooms["Queen"]["nightly_rates"] == [
        {"date": "2026-12-18", "rate": "$149"},
        {"date": "2026-12-19", "rate": "$149"},
        {"date": "2026-12-20", "rate": "$189"},
        {"date": "2026-12-21", "rate": "$189"},
    ]
    assert rooms["Queen"]["total"] == "$676"
    assert rates(rooms["King Suite"]) == ["$289", "$289", "$349", "$349"]
    assert rooms["King Suite"]["total"] == "$1,276"
    # Double Queen has no holiday rate: the base rate covers every night.
    assert rates(rooms["Double Queen"]) == ["$199"] * 4
    # The holiday rate ends on Jan 3 (exclusive).
    late = by_type(await availability(tool_ctx(), "2027-01-02", "2027-01-04"))
    assert rates(late["Queen"]) == ["$189", "$149"]


async def test_guests_filter_room_types(tool_ctx) -> None:
    three = await availability(tool_ctx(), "2027-01-17", "2027-01-19", guests=3)
    assert [r["room_type"] for r in three["rooms"]] == ["Double Queen", "King Suite"]
    assert three["guests"] == 3
    five = await availability(tool_ctx(), "2027-01-17", "2027-01-19", guests=5)
    assert five["rooms"] == []
    with pytest.raises(ToolArgumentsError, match="guests"):
        get_availability.validate(
            {"check_in": "2027-01-17", "check_out": "2027-01-19", "guests": 11}
        )
    with pytest.raises(ToolArgumentsError, match="guests"):
        get_availability.validate(
            {"check_in": "2027-01-17", "check_out": "2027-01-19", "guests": 0}
        )


@pytest.mark.parametrize(
    ("check_in", "check_out", "message"),
    [
        ("2027-01-19", "2027-01-17", "check_out must be after check_in"),
        ("2027-01-17", "2027-01-17", "check_out must be after check_in"),
        ("2026-11-21", "2026-11-23", "in the past"),
        ("2027-01-01", "2027-02-01", "limited to 30 nights"),
    ],
)
async def test_invalid_stays_are_refused(tool_ctx, check_in, check_out, message) -> None:
    with pytest.raises(ValueError, match=message):
        await availability(tool_ctx(), check_in, check_out)
    with pytest.raises(ValueError, match=message):
        await book(tool_ctx(), "Queen", check_in, check_out)


async def test_boundaries_of_a_valid_stay(tool_ctx) -> None:
    today = await availability(tool_ctx(), "2026-11-22", "2026-11-23")
    assert today["nights"] == 1
    month = await availability(tool_ctx(), "2027-01-01", "2027-01-31")
    assert month["nights"] == 30


async def test_create_booking_reduces_availability(tool_ctx, workspace) -> None:
    ctx = tool_ctx()
    booking = await book(ctx, "queen", "2027-01-17", "2027-01-19", guest_name=" Dana Levi ")
    assert booking["room_type"] == "Queen"
    assert booking["guest_name"] == "Dana Levi"
    assert booking["status"] == "confirmed"
    assert booking["nights"] == 2 and booking["total"] == "$298"
    assert isinstance(booking["booking_id"], int)
    assert "replayed" not in booking
    rooms = by_type(await availability(ctx, "2027-01-17", "2027-01-19"))
    assert rooms["Queen"]["free"] == 4
    assert rooms["Double Queen"]["free"] == 3
    # Adjacent stays do not overlap: check-out day is free for the next check-in.
    after = by_type(await availability(ctx, "2027-01-19", "2027-01-20"))
    assert after["Queen"]["free"] == 5
    async with workspace.session() as session:
        row = await session.get(Booking, booking["booking_id"])
        assert row is not None and row.created_by == "U0GRACE"


async def test_the_same_idempotency_key_books_once(tool_ctx, workspace) -> None:
    ctx = tool_ctx(idempotency_key="proposal-booking-1")
    first = await book(ctx, "King Suite", "2027-01-17", "2027-01-19")
    second = await book(ctx, "King Suite", "2027-01-17", "2027-01-19")
    assert second["replayed"] is True
    assert second["booking_id"] == first["booking_id"]
    async with workspace.session() as session:
        count = await session.scalar(
            select(func.count()).where(Booking.check_in == date(2027, 1, 17))
        )
        assert count == 1
    rooms = by_type(await availability(ctx, "2027-01-17", "2027-01-19"))
    assert rooms["King Suite"]["free"] == 1


async def test_booking_a_full_room_type_fails(tool_ctx, workspace) -> None:
    with pytest.raises(ValueError, match="King Suite cannot be booked"):
        await book(tool_ctx(), "King Suite", "2026-12-05", "2026-12-06")
    async with workspace.session() as session:
        assert await session.scalar(select(func.count()).select_from(Booking)) == 2


async def test_booking_refuses_unknown_types_and_too_many_guests(tool_ctx) -> None:
    with pytest.raises(ValueError, match="unknown room type 'Penthouse'; room types: Queen"):
        await book(tool_ctx(), "Penthouse", "2027-01-17", "2027-01-19")
    with pytest.raises(ValueError, match="Queen sleeps at most 2 guests, not 3"):
        await book(tool_ctx(), "Queen", "2027-01-17", "2027-01-19", guests=3)


async def test_concurrent_bookings_cannot_take_the_last_room_twice(tool_ctx, workspace) -> None:
    # One King Suite is left on the night of Dec 6; three people try to book it at once.
    results = await asyncio.gather(
        *(
            book(tool_ctx(idempotency_key=f"race-{n}"), "King Suite", "2026-12-06", "2026-12-07")
            for n in range(3)
        ),
        return_exceptions=True,
    )
    booked = [r for r in results if isinstance(r, dict)]
    refused = [r for r in results if isinstance(r, ValueError)]
    assert len(booked) == 1 and len(refused) == 2, results
    rooms = by_type(await availability(tool_ctx(), "2026-12-06", "2026-12-07"))
    assert rooms["King Suite"]["free"] == 0


def test_amounts_read_as_people_write_them() -> None:
    assert [money(a) for a in (149.0, 1276.0, 149.5, None)] == ["$149", "$1,276", "$149.50", None]
