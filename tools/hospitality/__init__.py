"""The hospitality pack: a hotel's room types, nightly rates and bookings."""

from pathlib import Path

from tools.hospitality.room_sources import room_sources, room_types
from tools.hospitality.rooms import TOOLS
from tools.hospitality.seed import seed_hotel
from tools.packs import Pack

HERE = Path(__file__).parent

PACK = Pack(
    name="hospitality",
    summary="A hotel's room types, rates and bookings (the hotel-wave demo)",
    tools=tuple(TOOLS),
    sources=(room_sources,),
    listers=(room_types,),
    records=("room_type",),
    migrations=HERE / "migrations" / "versions",
    seed=seed_hotel,
    scenarios=HERE / "scenarios",
    docs=HERE / "README.md",
    asks=HERE / "asks.toml",
    starters=(
        ("Rooms free", "Do we have a room free next weekend?"),
        ("Book a room", "book a room for Dana Levi next weekend"),
    ),
)
