"""`agentloop tools`: the installed packs (enabled, not, refused and why) and every tool offered."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from app.cli.bad_starts import BadStart
from app.cli.config import settings_or_exit
from core.settings import Settings
from tools.declaration import Tool
from tools.pack_loading import Installed, PackError, chosen, declared, installed
from tools.registry import ToolRegistry, open_registry, registry_of

out = Console()
err = Console(stderr=True, soft_wrap=True)

KINDS = {"read_only": "reads", "mutating": "changes", "delegate": "delegate"}
"""How a tool's kind is shown: a change waits for a person's approval."""


def tools(
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """List the installed packs and MCP servers, and the tools the agent is offered.

    Each tool shows its pack, its kind (reads, changes, delegate), the roles allowed and where
    it came from. Exit status: 0, or 2 when an enabled pack or server cannot be used.
    """
    settings = settings_or_exit()
    try:
        available = installed()
    except PackError as exc:
        raise BadStart(str(exc)) from None
    warnings: list[str] = []
    try:
        registry, problem = asyncio.run(_offered(settings, warnings.append)), None
    except PackError as exc:
        registry, problem = registry_of([]), str(exc)
    wanted = chosen(settings.packs, available)
    rows = [_installed_row(found, found.name in wanted) for found in available.values()]
    rows += [
        {"name": pack.name, "status": "enabled", "from": pack.origin, "summary": pack.summary}
        for pack in registry.packs
        if pack.name not in available
    ]
    listing = {
        "setting": settings.packs,
        "packs": sorted(rows, key=lambda row: row["name"]),
        "tools": [_tool_row(tool, registry) for tool in registry.tools()],
        "warnings": warnings,
    }
    if json_output:
        sys.stdout.write(json.dumps(listing) + "\n")
    else:
        _print(listing)
    if problem is not None:
        raise BadStart(problem)


async def _offered(settings: Settings, warn: Callable[[str], None]) -> ToolRegistry:
    async with open_registry(settings, warn) as registry:
        return registry


def _installed_row(found: Installed, wanted: bool) -> dict[str, Any]:
    row: dict[str, Any] = {
        "name": found.name,
        "from": f"{found.distribution} ({found.target})",
        "status": "enabled" if wanted else "not enabled",
    }
    try:
        pack = declared(found)
    except PackError as exc:
        return {**row, "status": "refused", "why": str(exc)}
    return {**row, "summary": pack.summary, "requires": list(pack.requires)}


def _tool_row(tool: Tool, registry: ToolRegistry) -> dict[str, Any]:
    origin = next((p.origin for p in registry.packs if p.name == tool.pack), "agentloop runtime")
    return {
        "name": tool.name,
        "pack": tool.pack,
        "kind": KINDS[tool.kind],
        "roles": sorted(tool.roles),
        "from": origin,
    }


def _print(listing: dict[str, Any]) -> None:
    if not out.is_terminal:
        out.width = max(out.width, 140)  # piped: nothing to fit, so names are never cut
    setting = listing["setting"]
    which = "unset: the packs agentloop ships" if setting is None else repr(setting)
    packs = Table(title=f"Packs (AGENTLOOP_PACKS {which})", title_justify="left")
    for column in ("pack", "status", "from"):
        packs.add_column(column, no_wrap=True)
    packs.add_column("what it is")
    for row in listing["packs"]:
        packs.add_row(
            row["name"], row["status"], row.get("from", ""), row.get("why") or row.get("summary")
        )
    out.print(packs)
    table = Table(title="Tools offered", title_justify="left")
    for column in ("tool", "pack", "kind"):
        table.add_column(column, no_wrap=True)
    table.add_column("roles")
    table.add_column("from")
    for row in listing["tools"]:
        table.add_row(row["name"], row["pack"], row["kind"], ", ".join(row["roles"]), row["from"])
    out.print(table)
    for warning in listing["warnings"]:
        err.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
