"""What a proposed agency change would change, read before approval, on SQLite and PostgreSQL.

A change that cannot be made as given raises `ToolFailure` with why: it is never proposed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.agency_rows import run
from tools.agency.assignments import remove_assignment
from tools.agency.brands import apply_remediation, update_brand
from tools.declaration import Tool, ToolContext, ToolFailure


async def preview(tool: Tool, tool_ctx: Callable[..., ToolContext], args: dict[str, Any]) -> str:
    assert tool.previews is not None
    return await tool.previews(tool.validate(args), tool_ctx())


async def refusal(tool: Tool, tool_ctx: Callable[..., ToolContext], args: dict[str, Any]) -> str:
    """Why the preview says the change cannot be made (it fails when it can)."""
    with pytest.raises(ToolFailure) as refused:
        await preview(tool, tool_ctx, args)
    return str(refused.value)


async def test_a_brand_update_shows_its_brand_and_values_or_that_the_name_is_shared(
    workspace, tool_ctx
) -> None:
    shared = {"brand": "Garlic Press", "destination_list": "Press Queue"}
    line = await refusal(update_brand, tool_ctx, shared)
    assert line.startswith("nothing to change yet: brand 'Garlic Press' is ambiguous: which one, ")
    assert "Thorinox" in line and "Distex" in line and line.endswith("?")
    one = {**shared, "client": "Distex"}
    line = await preview(update_brand, tool_ctx, one)
    assert line == "→ Garlic Press of Distex: destination_list '(none)' → 'Press Queue'"
    await run(update_brand, tool_ctx, one, key="u1")
    line = await refusal(update_brand, tool_ctx, one)
    assert line == "Garlic Press of Distex already reads so: nothing to change"


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
    assert await refusal(apply_remediation, tool_ctx, {}) == (
        "nothing to fix: no mapping it can fill"
    )
    line = await refusal(apply_remediation, tool_ctx, {"client": "Nobody Inc"})
    assert line.startswith("nothing to fix: no client matches 'Nobody Inc'")


async def test_a_removal_shows_the_role_it_takes_away_or_the_roles_held(
    workspace, tool_ctx
) -> None:
    line = await preview(remove_assignment, tool_ctx, {"client": "Distex", "person": "Maya"})
    assert line == "→ Maya Chen as analyst on Distex"
    wrong = {"client": "Thorinox", "person": "Grace", "assignment_role": "designer"}
    assert await refusal(remove_assignment, tool_ctx, wrong) == (
        "nothing to remove: Grace Hopper is not designer on Thorinox; "
        "their roles there: account_manager"
    )


async def test_a_removal_of_a_role_said_short_takes_the_held_role_it_names(
    workspace, tool_ctx
) -> None:
    for said in ("AM", "manager", "Thorinox AM"):
        short = {"client": "Thorinox", "person": "Grace", "assignment_role": said}
        line = await preview(remove_assignment, tool_ctx, short)
        assert line == "→ Grace Hopper as account_manager on Thorinox"
    other = {"client": "Thorinox", "person": "Grace", "assignment_role": "ppc"}
    assert await refusal(remove_assignment, tool_ctx, other) == (
        "nothing to remove: Grace Hopper is not ppc on Thorinox; their roles there: account_manager"
    )
