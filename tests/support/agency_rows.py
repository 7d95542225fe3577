"""Reading the seeded workspace in the agency tests: run a tool under a key, count rows."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from tools.agency.models import Brand, Client
from tools.declaration import Tool


async def run(tool: Tool, tool_ctx: Any, args: dict[str, Any], key: str = "k1") -> Any:
    """Run a mutating tool on validated arguments under the idempotency key `key`."""
    return await tool.run(tool.validate(args), tool_ctx(idempotency_key=key))


async def count(workspace: Any, model: Any, *where: Any) -> int:
    """Count the rows of `model` matching `where`."""
    async with workspace.session() as session:
        return await session.scalar(select(func.count()).select_from(model).where(*where)) or 0


async def brand_row(workspace: Any, client: str, name: str) -> Brand:
    """Return the brand `name` of the client `client`."""
    async with workspace.session() as session:
        return (
            await session.scalars(
                select(Brand).join(Client).where(Client.name == client, Brand.name == name)
            )
        ).one()
