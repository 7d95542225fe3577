"""Rich rendering for the CLI: live status from run events, answers, tool calls."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.status import Status
from rich.text import Text

from graph.runner import TurnResult

_STATE_LABELS = {
    "thinking": "thinking…",
    "executing_tools": "running tools…",
    "executing_plan": "working through a plan…",
    "waiting_on_user": "waiting for your confirmation…",
    "verifying": "checking the answer…",
}


class LiveStatus:
    """Turns run events into a spinner line and one line per finished tool call."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._status: Status | None = None
        self._args: dict[str, Any] = {}

    def __enter__(self) -> LiveStatus:
        self._status = self._console.status("starting…", spinner="dots")
        self._status.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._status is not None:
            self._status.stop()

    def __call__(self, event: dict[str, Any]) -> None:
        """Handle one run event."""
        kind = event.get("type")
        if kind == "agent_state" and self._status is not None:
            label = _STATE_LABELS.get(event["state"], event["state"])
            detail = f" ({event['detail']})" if event.get("detail") else ""
            self._status.update(f"{label}{detail}")
        elif kind == "tool.call":
            self._args[event["id"]] = event.get("args")
        elif kind == "tool.result":
            args = _compact(self._args.pop(event["id"], None))
            style = "green" if event["outcome"] == "ok" else "yellow"
            line = Text("  → ", style="dim")
            line.append(f"{event['name']}({args})", style="dim")
            line.append(f" {event['outcome']}", style=style)
            line.append(f" {event['duration_ms']:.0f} ms", style="dim")
            self._console.print(line)


def print_result(console: Console, result: TurnResult) -> None:
    """Print the answer (or the failure) of a turn for a person."""
    if result.status in ("failed", "refused"):
        console.print(Text(result.text, style="red" if result.status == "failed" else "yellow"))
        return
    if result.text:
        console.print(Text("agentloop: ", style="bold cyan") + Text(result.text))
    elif result.status == "completed":
        console.print(Text("(no reply)", style="dim"))
    for interrupt in result.interrupts:
        for proposal in interrupt.get("proposals", []):
            console.print(
                Text(
                    f"  {proposal['tool']} · expires {proposal['expires_at']} · "
                    f"fingerprint {proposal['proposal_fingerprint'][:12]}",
                    style="dim",
                )
            )


def _compact(args: Any, limit: int = 80) -> str:
    if isinstance(args, dict):
        text = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    else:
        text = json.dumps(args, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
