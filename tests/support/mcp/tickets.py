"""A ticket desk as an MCP server: reads, changes, an idempotent change and a failing one.

It keeps its tickets in the JSON file `TICKETS_STATE` and appends every tool call it receives
(tool, arguments, `_meta`) to `TICKETS_CALLS`, one JSON line each, so a test counts calls.
`TICKETS_SLOW_S` makes changes take that long (a process can be killed mid-call). Run with
`--http PORT` for streamable HTTP on 127.0.0.1, otherwise over stdio.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from mcp.server.fastmcp import Context, FastMCP
from mcp.types import ToolAnnotations

STATE = Path(os.environ["TICKETS_STATE"])
CALLS = Path(os.environ["TICKETS_CALLS"])
SLOW_S = float(os.environ.get("TICKETS_SLOW_S", "0"))
MANY = int(os.environ.get("TICKETS_MANY", "0"))
"""Extra generated open tickets (a listing too large for the conversation)."""
PORT = int(sys.argv[sys.argv.index("--http") + 1]) if "--http" in sys.argv else 0

desk = FastMCP("tickets", host="127.0.0.1", port=PORT or 8000, log_level="WARNING")


def _tickets() -> dict[str, Any]:
    if not STATE.exists():
        STATE.write_text(
            json.dumps(
                {
                    "41": {"title": "Printer on floor 3 jams", "status": "open"},
                    "42": {"title": "VPN drops every hour", "status": "open"},
                    "43": {"title": "New laptop for Maya", "status": "closed"},
                }
            ),
            encoding="utf-8",
        )
    tickets = json.loads(STATE.read_text(encoding="utf-8"))
    for n in range(100, 100 + MANY):
        tickets.setdefault(
            str(n), {"title": f"Generated ticket {n} about a slow laptop", "status": "open"}
        )
    return tickets


def _heard(tool: str, args: dict[str, Any], ctx: Context | None) -> None:
    meta = ctx.request_context.meta if ctx is not None else None
    seen = meta.model_dump(exclude_none=True) if meta is not None else {}
    with CALLS.open("a", encoding="utf-8") as calls:
        calls.write(json.dumps({"tool": tool, "args": args, "meta": seen}) + "\n")


def _set_status(ticket: str, status: str) -> dict[str, Any]:
    tickets = _tickets()
    if ticket not in tickets:
        raise ValueError(f"no ticket {ticket}")
    if SLOW_S:
        time.sleep(SLOW_S)
    tickets[ticket]["status"] = status
    STATE.write_text(json.dumps(tickets), encoding="utf-8")
    return {"ticket": ticket, **tickets[ticket]}


@desk.tool(annotations=ToolAnnotations(readOnlyHint=True))
def list_tickets(status: str = "open", ctx: Context | None = None) -> dict[str, Any]:
    """List the help desk's tickets with a status (open or closed)."""
    _heard("list_tickets", {"status": status}, ctx)
    found = [{"ticket": n, **t} for n, t in _tickets().items() if t["status"] == status]
    return {"status": status, "tickets": found}


@desk.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def close_ticket(ticket: str, ctx: Context | None = None) -> dict[str, Any]:
    """Close a help desk ticket."""
    _heard("close_ticket", {"ticket": ticket}, ctx)
    return _set_status(ticket, "closed")


@desk.tool(
    annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True)
)
def reopen_ticket(ticket: str, ctx: Context | None = None) -> dict[str, Any]:
    """Reopen a help desk ticket (reopening an open ticket changes nothing)."""
    _heard("reopen_ticket", {"ticket": ticket}, ctx)
    return _set_status(ticket, "open")


@desk.tool(annotations=ToolAnnotations(readOnlyHint=False))
def escalate_ticket(ticket: str, ctx: Context | None = None) -> dict[str, Any]:
    """Escalate a ticket to the on-call engineer."""
    _heard("escalate_ticket", {"ticket": ticket}, ctx)
    raise RuntimeError("the on-call rota is empty this week")


if __name__ == "__main__":
    if "TICKETS_PID" in os.environ:
        Path(os.environ["TICKETS_PID"]).write_text(str(os.getpid()), encoding="utf-8")
    desk.run(transport="streamable-http" if PORT else "stdio")
