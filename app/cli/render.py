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


DRAFT_SHOWN_CHARS = 1_200
"""The tail of a long draft the spinner shows while it streams."""
REWRITING = "(that draft did not pass the checks; writing it again)"


class LiveStatus:
    """Turns run events into a spinner line, the draft as it streams, and tool-call lines.

    On a terminal the draft streams under the spinner, which vanishes at the end: the
    answer printed then is the turn's final, checked text, and a draft the checks sent back
    is wiped as soon as they do. Elsewhere (a pipe, a log) there is no spinner: `chat` writes
    the fragments as they come, a withdrawn draft marked so, and the answer follows on stdout;
    `ask` and `resume` (`drafts=False`) keep what they write there to tool lines and errors, so
    a script reads one answer on stdout and a failure as one line on stderr.
    """

    def __init__(self, console: Console, *, drafts: bool = True) -> None:
        self._console = console
        self._drafts = drafts
        self._status: Status | None = None
        self._args: dict[str, Any] = {}
        self._label = "starting…"
        self._draft = ""
        self._live = console.is_terminal
        self._line_open = False
        """A fragment was written without a line end yet (not on a terminal)."""

    def __enter__(self) -> LiveStatus:
        self._status = self._console.status("starting…", spinner="dots")
        self._status.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._status is not None:
            self._status.stop()
        self._end_line()

    def __call__(self, event: dict[str, Any]) -> None:
        """Handle one run event."""
        kind = event.get("type")
        if kind == "agent_state":
            label = _STATE_LABELS.get(event["state"], event["state"])
            detail = f" ({event['detail']})" if event.get("detail") else ""
            self._label = f"{label}{detail}"
            self._refresh()
        elif kind == "chunk":
            self._chunk(str(event.get("text", "")))
        elif kind == "draft.reset":
            self._draft = ""
            if self._line_open and event.get("reason") == "rejected":
                self._console.file.write(f"\n{REWRITING}")
            self._end_line()
            self._refresh()
        elif kind == "tool.call":
            self._args[event["id"]] = event.get("args")
        elif kind == "tool.result":
            self._end_line()
            args = _compact(self._args.pop(event["id"], None))
            style = "green" if event["outcome"] == "ok" else "yellow"
            line = Text("  → ", style="dim")
            line.append(f"{event['name']}({args})", style="dim")
            line.append(f" {event['outcome']}", style=style)
            line.append(f" {event['duration_ms']:.0f} ms", style="dim")
            self._console.print(line)

    def _chunk(self, text: str) -> None:
        self._draft += text
        if self._live:
            self._refresh()
            return
        if not self._drafts:
            return
        self._console.file.write(text)
        self._console.file.flush()
        self._line_open = True

    def _refresh(self) -> None:
        if self._status is None:
            return
        if not self._draft:
            self._status.update(self._label)
            return
        shown = self._draft[-DRAFT_SHOWN_CHARS:]
        self._status.update(Text(f"{self._label}\n", style="dim") + Text(shown))

    def _end_line(self) -> None:
        if self._line_open:
            self._console.file.write("\n")
            self._console.file.flush()
            self._line_open = False


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
