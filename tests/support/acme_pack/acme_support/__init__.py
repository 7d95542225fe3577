"""Acme's support desk as an agentloop pack: tickets a person reads and closes."""

from pathlib import Path

from acme_support.tickets import TOOLS, seed_tickets, ticket_sources
from tools.packs import Pack

HERE = Path(__file__).parent

PACK = Pack(
    name="acme_support",
    summary="Acme's support tickets",
    tools=tuple(TOOLS),
    sources=(ticket_sources,),
    migrations=HERE / "migrations" / "versions",
    seed=seed_tickets,
    scenarios=HERE / "scenarios",
    docs=HERE / "README.md",
)
