"""The embedded model and an MCP server's tools, which declare no example asks.

The shipped packs and the ticket desk (tests/support/mcp/tickets.py, over stdio, annotations
trusted) are offered together; each ask runs as a new thread on the `local` model, and the
first tool it calls or proposes is compared with the one the ask is for. The asks were
written for this measure, in a person's words, and are not in any tool's examples.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from core.settings import Settings
from graph.runner import Runner, TurnRequest
from tests.support.mcp.desk import Desk
from tools.pack_data import seed_demo, upgrade_workspace
from tools.pack_loading import enabled

ASKS: tuple[tuple[str, str], ...] = (
    ("which help desk tickets are still open?", "tickets__list_tickets"),
    ("show me the tickets that were closed", "tickets__list_tickets"),
    ("anything open on the help desk right now?", "tickets__list_tickets"),
    ("close help desk ticket 41", "tickets__close_ticket"),
    ("the VPN ticket is fixed, please close it (42)", "tickets__close_ticket"),
    ("reopen ticket 43", "tickets__reopen_ticket"),
    ("ticket 43 came back, open it again", "tickets__reopen_ticket"),
    ("escalate ticket 41 to the on-call engineer", "tickets__escalate_ticket"),
    ("this printer ticket needs the on-call person: escalate 41", "tickets__escalate_ticket"),
    ("when is Hanukkah this year?", "resolve_holiday"),
    ("which tasks are open for Thorinox?", "list_tasks"),
    ("is a King Suite free Jan 5-7?", "get_availability"),
)
"""(ask, the tool it is for): nine for the desk, three for shipped tools beside it."""


@dataclass
class McpLocalResult:
    """What the model called first for each ask, and how long each turn took."""

    picks: list[tuple[str, str, str]] = field(default_factory=list)
    """(ask, expected tool, first tool called or proposed, or "" for none)."""
    answers: list[str] = field(default_factory=list)
    """What it said, for each ask (its question, when it called nothing)."""
    seconds: list[float] = field(default_factory=list)

    def right(self, mcp: bool) -> tuple[int, int]:
        """(right, asked) among the desk's asks (`mcp`) or the shipped tools' asks."""
        rows = [p for p in self.picks if p[1].startswith("tickets__") == mcp]
        return sum(expected == got for _, expected, got in rows), len(rows)


async def _measure(folder: Path) -> McpLocalResult:
    desk = Desk(folder)
    config = desk.write_config({"tickets": desk.stdio(trust="annotations")})
    settings = Settings(_env_file=None, data_dir=folder / "data", model="local", mcp_config=config)
    await asyncio.to_thread(upgrade_workspace, settings)
    async with Runner.open(settings) as runner:
        assert runner.db is not None
        await seed_demo(runner.db, enabled(None))
        result = McpLocalResult()
        for ask, expected in ASKS:
            request = TurnRequest(thread_id=str(uuid.uuid4()), user_id="U0GRACE", message=ask)
            started = time.perf_counter()
            turn = await runner.run_turn(request)
            result.seconds.append(time.perf_counter() - started)
            proposed = [p["tool"] for i in turn.interrupts for p in i.get("proposals", [])]
            called = [call.name for call in turn.tool_calls] + proposed
            result.picks.append((ask, expected, called[0] if called else ""))
            result.answers.append(" ".join(turn.text.split())[:90])
    return result


def run() -> McpLocalResult:
    """Run every ask once on the embedded model, in a workspace of its own."""
    with tempfile.TemporaryDirectory(prefix="agentloop-bench-mcp-") as tmp:
        return asyncio.run(_measure(Path(tmp)))


def render(result: McpLocalResult) -> list[str]:
    """The section for bench/RESULTS.md."""
    desk_right, desk_asked = result.right(mcp=True)
    shipped_right, shipped_asked = result.right(mcp=False)
    lines = [
        "## The embedded model and an MCP server's tools",
        "",
        "The shipped packs and the ticket desk MCP server (stdio, annotations trusted: one "
        "read, three changes, none with example asks) offered together to the `local` model; "
        "each ask a new thread. *First call*: the tool it called or proposed first.",
        "",
        "| ask | for | first call | right |",
        "|---|---|---|---|",
    ]
    for ask, expected, got in result.picks:
        lines.append(
            f"| {ask} | `{expected}` | `{got or 'none'}` | {'yes' if got == expected else 'no'} |"
        )
    median = sorted(result.seconds)[len(result.seconds) // 2]
    lines += [
        "",
        f"Result: the desk's tools were picked for {desk_right} of {desk_asked} asks meant for "
        f"them; the shipped tools for {shipped_right} of {shipped_asked} asks beside them. "
        f"Median turn {median:.1f} s.",
    ]
    return lines
