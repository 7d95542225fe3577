"""Every tool declares its contract: schema, read_only|mutating, allowed roles."""

from __future__ import annotations

import re
from datetime import date

import pytest
from pydantic import BaseModel

from core.run_context import ROLES
from tools.declaration import ToolArgumentsError, ToolContext, declare
from tools.registry import ToolRegistry, default_registry


def test_every_registered_tool_declares_kind_and_roles() -> None:
    registry = default_registry()
    assert len(registry) > 0
    for tool in registry.tools():
        assert tool.kind in ("read_only", "mutating", "delegate"), tool.name
        assert tool.roles and tool.roles <= set(ROLES), tool.name
        assert tool.description.strip(), tool.name
        schema = tool.openai_schema()["function"]
        assert schema["name"] == tool.name
        assert schema["parameters"]["type"] == "object"


def test_every_registered_tool_declares_what_a_person_reads_in_its_result() -> None:
    for tool in default_registry().tools():
        assert tool.shows is not None, f"{tool.name} declares no `shows`"
        # Each key a declared path passes is one its description says the result holds.
        paths = [*tool.shows.fields, *([tool.shows.records] if tool.shows.records else [])]
        keys = {key for path in paths for step in path.split(".") for key in step.split("+")}
        for key in keys:
            assert re.search(rf"\b{key}\b", tool.description), (tool.name, key)


class Args(BaseModel):
    count: int


def test_undeclared_kind_counts_as_mutating() -> None:
    @declare(pack="x")
    async def bump(args: Args, ctx: ToolContext) -> dict[str, int]:
        """Bump a counter."""
        return {"count": args.count + 1}

    assert bump.kind == "mutating" and not bump.read_only


def test_declaration_errors() -> None:
    with pytest.raises(ValueError, match="unknown roles"):
        declare(pack="x", roles=["root"])
    with pytest.raises(TypeError, match="needs a docstring"):

        @declare(pack="x")
        async def undocumented(args: Args, ctx: ToolContext) -> None:
            return None

    with pytest.raises(TypeError, match="async"):

        @declare(pack="x")
        def sync(args: Args, ctx: ToolContext) -> None:  # type: ignore[arg-type]
            """Not async."""


def test_validation_names_fields() -> None:
    @declare(pack="x", kind="read_only")
    async def look(args: Args, ctx: ToolContext) -> dict[str, int]:
        """Look."""
        return {}

    with pytest.raises(ToolArgumentsError, match="count: Input should be a valid integer"):
        look.validate({"count": "many"})
    with pytest.raises(ToolArgumentsError, match="must be a JSON object"):
        look.validate(["count"])
    assert look.validate({"count": 3}) == Args(count=3)


async def test_tools_get_the_run_context() -> None:
    @declare(pack="x", kind="read_only")
    async def whoami(args: Args, ctx: ToolContext) -> dict[str, str]:
        """Who is asking."""
        return {"user": ctx.user_id, "today": ctx.today.isoformat()}

    ctx = ToolContext(date(2026, 1, 2), "UTC", "ada", "admin", "r1", "t1")
    assert await whoami.run(Args(count=1), ctx) == {"user": "ada", "today": "2026-01-02"}


def test_registry_rejects_duplicates_and_groups_by_pack() -> None:
    registry = default_registry()
    with pytest.raises(ValueError, match="registered twice"):
        registry.add(registry.tools()[0])
    assert set(registry.by_pack()) == {"agency", "memory", "calendar", "hospitality", "meta"}
    assert registry.openai_schemas() is registry.openai_schemas()
    assert ToolRegistry().openai_schemas() == []


def test_abilities_name_what_a_role_may_ask_for_in_a_line_per_tool() -> None:
    registry = default_registry()

    member = registry.abilities("member")
    admin = registry.abilities("admin")
    viewer = registry.abilities("viewer")

    assert "Look up a client by name" in member  # the aside in parentheses left out
    assert "Create a client task, grounded in the best-matching SOP (once you approve)" in member
    # The aside that "e.g." opens is left out with its parentheses.
    assert "Give a team member a role on a client account (once you approve)" in admin
    assert not any("Give a team member" in line for line in member)
    assert not any("once you approve" in line for line in viewer)
    # The planner and the result loader serve the conversation, not a request.
    assert not any("planner" in line or "earlier tool result" in line for line in admin)
    assert len(admin) == len(registry) - 2
