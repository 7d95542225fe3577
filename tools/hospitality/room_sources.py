"""The hotel's gather source: the room types a message names, as context for the model."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from core.state import Source
from tools.declaration import GatherContext
from tools.hospitality.models import Room


async def room_sources(message: str, ctx: GatherContext) -> list[Source]:
    """The room types a message names ("the Queen", "any Queens"), for gather.

    "Double Queen" names the Double Queen, not also the Queen.
    """
    if ctx.db is None:
        return []
    async with ctx.db.session() as session:
        rooms = list((await session.execute(select(Room).order_by(Room.id))).scalars())
    said = " ".join(_WORDS.findall(message.casefold()))
    named = [r for r in rooms if re.search(_named(r.room_type), said)]
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


async def room_types(ctx: GatherContext) -> dict[str, list[str]]:
    """Every room type's name, for `Pack.listers`."""
    if ctx.db is None:
        return {}
    async with ctx.db.session() as session:
        kinds = select(Room.room_type).group_by(Room.room_type).order_by(func.min(Room.id))
        return {"room_type": list((await session.execute(kinds)).scalars())}


_WORDS = re.compile(r"\w+")


def _named(room_type: str) -> str:
    """A pattern for the room type's words in a message's words, its last word plural or not."""
    words = _WORDS.findall(room_type.casefold())
    return rf"\b{' '.join(map(re.escape, words))}s?\b"
