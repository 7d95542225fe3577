"""The calendar pack: holidays and date phrases read against the run's date (no tables)."""

from pathlib import Path

from tools.calendar.dates import TOOLS, dates_said
from tools.packs import Pack

HERE = Path(__file__).parent

PACK = Pack(
    name="calendar",
    summary="Holidays (Hanukkah, Thanksgiving, …) and date phrases ('next weekend') as dates",
    tools=tuple(TOOLS),
    sources=(dates_said,),
    scenarios=HERE / "scenarios",
    docs=HERE / "README.md",
    asks=HERE / "asks.toml",
    starters=(("Holiday dates", "When is Hanukkah this year?"),),
)
