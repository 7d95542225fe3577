"""The client memory pack: the agent remembers and forgets durable facts about clients."""

from pathlib import Path

from tools.memory.notes import TOOLS
from tools.packs import Pack

HERE = Path(__file__).parent

PACK = Pack(
    name="memory",
    summary="Durable client notes the agent saves and archives (the notes live with the agency's "
    "clients)",
    tools=tuple(TOOLS),
    requires=("agency",),
    scenarios=HERE / "scenarios",
    docs=HERE / "README.md",
    asks=HERE / "asks.toml",
)
