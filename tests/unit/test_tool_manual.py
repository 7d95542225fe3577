"""How a tool works, told to a person from its declaration (tools/manual.py)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tools.declaration import ToolContext, declare
from tools.manual import manual


class ShelfArgs(BaseModel):
    shelf: str = Field(description="the shelf's label, e.g. A3")
    label_colour: str | None = None


def test_a_change_is_told_with_what_it_needs_may_take_and_waits_for() -> None:
    @declare(pack="x", roles=["admin"])
    async def relabel_shelf(args: ShelfArgs, ctx: ToolContext) -> dict[str, str]:
        """Relabel a shelf in the stockroom.

        A shelf keeps its `shelf` label until the new one is approved.

        Returns:
            {"status": "relabelled"}.
        """
        return {"status": "relabelled"}

    told = manual(relabel_shelf).splitlines()
    assert told[0] == "Relabel a shelf in the stockroom."
    assert told[1] == "A shelf keeps its shelf label until the new one is approved."
    assert "It needs: shelf (the shelf's label, e.g. A3)." in told
    assert "It can also take: label colour." in told
    assert any("once you approve" in line for line in told)
    assert "Who may ask for it: admin." in told
    assert not any("Returns" in line or "relabelled" in line for line in told)


def test_a_look_up_waits_for_nobody() -> None:
    @declare(pack="x", kind="read_only")
    async def count_shelves(args: ShelfArgs, ctx: ToolContext) -> dict[str, int]:
        """Count the shelves that carry a label.

        Examples:
            {"shelf": "A3"}.
        """
        return {"count": 1}

    told = manual(count_shelves)
    assert told.startswith("Count the shelves that carry a label.\nIt needs: shelf")
    assert "approve" not in told and "Examples" not in told and "Who may" not in told
