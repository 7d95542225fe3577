"""What a proposed agency change would change, read before approval, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.agency_rows import run
from tools.agency.assignments import remove_assignment
from tools.agency.brands import apply_remediation, update_brand
from tools.declaration import Tool, ToolContext


async def preview(tool: Tool, tool_ctx: Callable[..., ToolContext], args: dict[str, Any]) -> str:
    assert tool.previews is not None
    return await tool.previews(tool.validate(args), tool_ctx())


async def test_a_brand_update_shows_its_brand_and_values_or_that_the_name_is_shared(
    workspace, tool_ctx
) -> None:
    shared = {"brand": "Garlic Press", "destination_list": "Press Queue"}
    line = await preview(update_brand, tool_ctx, shared)
    assert line.startswith("⚠ as proposed it would change nothing: brand 'Garlic Press' is")
    assert "Thorinox" in line and "Distex" in line
    one = {**shared, "client": "Distex"}
    line = await preview(update_brand, tool_ctx, one)
    assert line == "→ Garlic Press of Distex: destination_list '(none)' → 'Press Queue'"
    await run(update_brand, tool_ctx, one, key="u1")
    line = await preview(update_brand, tool_ctx, one)
    assert line == "⚠ Garlic Press of Distex already reads so: nothing would change"


async def test_a_bulk_fix_shows_what_it_would_set_and_then_that_nothing_is_left(
    workspace, tool_ctx
) -> None:
    line = await preview(apply_remediation, tool_ctx, {"client": "Thorinox"})
    assert line == (
        "→ would set 1 brand(s): Thorinox Peelers of Thorinox: destination_space 'Thorinox', "
        "destination_list 'Amazon US - Thorinox Peelers'"
    )
    everyone = await preview(apply_remediation, tool_ctx, {})
    applied = await run(apply_remediation, tool_ctx, {}, key="fix")
    assert everyone.startswith(f"→ would set {len(applied['changed'])} brand(s): ")
    assert all(f"{c['brand']} of {c['client']}" in everyone for c in applied["changed"])
    assert await preview(apply_remediation, tool_ctx, {}) == (
        "⚠ as proposed it would fix nothing: no mapping it can fill"
    )
    line = await preview(apply_remediation, tool_ctx, {"client": "Nobody Inc"})
    assert line.startswith("⚠ as proposed it would fix nothing: no client matches 'Nobody Inc'")


async def test_a_removal_shows_the_role_it_takes_away_or_the_roles_held(
    workspace, tool_ctx
) -> None:
    line = await preview(remove_assignment, tool_ctx, {"client": "Distex", "person": "Maya"})
    assert line == "→ Maya Chen as analyst on Distex"
    wrong = {"client": "Thorinox", "person": "Grace", "assignment_role": "designer"}
    assert await preview(remove_assignment, tool_ctx, wrong) == (
        "⚠ as proposed it would remove nothing: Grace Hopper is not designer on Thorinox; "
        "their roles there: account_manager"
    )
