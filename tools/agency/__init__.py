"""The agency pack: clients, brands, the team's assignments, tasks and the knowledge base."""

from pathlib import Path

from tools.agency import assignments, audit, brands, client_context, kb, lookup, mutations, tasks
from tools.agency.mentions import workspace_names, workspace_sources
from tools.agency.seed import seed_agency
from tools.packs import Pack

HERE = Path(__file__).parent

PACK = Pack(
    name="agency",
    summary="An agency's clients, brands, team assignments, tasks and SOPs (the AgencyClaw demo)",
    tools=(
        *lookup.TOOLS,
        *client_context.TOOLS,
        *kb.TOOLS,
        *tasks.TOOLS,
        *audit.TOOLS,
        *mutations.TOOLS,
        *assignments.TOOLS,
        *brands.TOOLS,
    ),
    sources=(workspace_sources,),
    listers=(workspace_names,),
    records=("client", "brand", "team_member", "task"),
    # names the examples use across the tools: the kind's words lean to the look-ups' examples
    read_as=(("client", "Acme"), ("brand", "Fern Candles"), ("team_member", "Jo Kim")),
    migrations=HERE / "migrations" / "versions",
    seed=seed_agency,
    scenarios=HERE / "scenarios",
    docs=HERE / "README.md",
    asks=HERE / "asks.toml",
    starters=(
        ("Open tasks", "what's still open for Thorinox?"),
        ("Who owns a brand?", "which client owns the Garlic Press brand?"),
        ("Make a task", "create a task to refresh the Garlic Press images for Thorinox"),
    ),
)
