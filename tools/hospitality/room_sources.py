"""The hotel's gather source: the room types a message names, as context for the model."""

from __future__ import annotations

import re

from sqlalchemy import select

from core.state import Source
from tools.declaration import GatherContext
from tools.hospitality.models import Room


async def room_sources(message: str, ctx: GatherContext) -> list[Source]:
    """The room types a message names ("the Queen"), for gather.

    "Double Queen" names the Double Queen, not also the Queen.
    """
    if ctx.db is None:
        return []
    async with ctx.db.session() as session:
        rooms = list((await session.execute(select(Room).order_by(Room.id))).scalars())
    said = f" {' '.join(_WORDS.findall(message.casefold()))} "
    named = [r for r in rooms if f" {' '.join(_WORDS.findall(r.room_type.casefold()))} " in said]
    longest = [
        r
        for r in named
        if not any(o is not r and r.room_type.casefold() in o.room_type.casefold() for o in named)
    ]
    return [
        {
            "type": "room_type",
            "label": "hotel room type",
            "reference": room.room_type,
            "excerpt": f"room type {room.room_type}: {room.description} (up to {room.max_guests})",
        }
        for room in longest
    ]


_WORDS = re.compile(r"\w+")
