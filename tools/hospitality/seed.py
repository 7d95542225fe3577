"""Loads the hotel's part of the demo workspace; running it again changes nothing."""

from __future__ import annotations

from collections import Counter

from core.db.engine import Database
from tools.hospitality import demo_data
from tools.hospitality.models import Booking, Rate, Room
from tools.seeding import get_or_add, without


async def seed_hotel(db: Database) -> dict[str, int]:
    """Insert whatever part of the hotel's demo data is missing; return rows added per table."""
    added: Counter[str] = Counter()
    async with db.session() as session:
        rooms = {}
        for r in demo_data.ROOMS:
            rooms[r["room_type"]] = await get_or_add(
                session,
                added,
                Room,
                match={"room_type": r["room_type"]},
                **without(r, "room_type"),
            )
        for rate in demo_data.RATES:
            await get_or_add(
                session,
                added,
                Rate,
                room_id=rooms[rate["room"]].id,
                start_date=rate["start"],
                end_date=rate["end"],
                rate_per_night=rate["rate"],
            )
        for bk in demo_data.BOOKINGS:
            await get_or_add(
                session,
                added,
                Booking,
                match={
                    "room_id": rooms[bk["room"]].id,
                    "check_in": bk["check_in"],
                    "guest_name": bk["guest_name"],
                },
                check_out=bk["check_out"],
                guests=bk["guests"],
                created_by="seed",
            )
        await session.commit()
    return dict(added)
