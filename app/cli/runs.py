"""`agentloop runs`: the audit of runs — list them, show one with everything it did, rate one."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Annotated, Any

import typer
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from app.cli.bad_starts import shorten
from app.cli.config import workspace_or_exit
from app.cli.options import text_id
from app.cli.runs_feedback import Rating, record_vote
from core.db.engine import open_database
from core.observability import queries
from core.settings import Settings

runs_app = typer.Typer(help="The audit of runs: what the agent did and why.", no_args_is_help=True)
runs_app.command("feedback")(record_vote)
out = Console()

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


@runs_app.command("list")
def list_runs(
    thread: Annotated[
        str | None, typer.Option("--thread", "-t", help="Only this thread.", callback=text_id)
    ] = None,
    tool: Annotated[
        str | None, typer.Option("--tool", help="Only runs in which this tool was called.")
    ] = None,
    status: Annotated[
        str | None,
        typer.Option("--status", help="completed, needs_confirmation, refused, failed, running."),
    ] = None,
    feedback: Annotated[
        Rating | None,
        typer.Option("--feedback", help="Only runs someone rated so (positive or negative)."),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", help="At most this many, newest first.")] = 50,
    json_output: JsonOpt = False,
) -> None:
    """List runs, newest first."""
    settings = workspace_or_exit()
    rating = feedback.value if feedback is not None else None
    rows = _run(
        settings,
        queries.list_runs,
        thread=thread,
        tool=tool,
        status=status,
        feedback=rating,
        limit=limit,
    )
    votes = _run(settings, queries.votes_for, [r.id for r in rows])
    if json_output:
        listed = [
            {**queries.run_json(r), "feedback": [queries.vote_json(v) for v in votes.get(r.id, [])]}
            for r in rows
        ]
        sys.stdout.write(json.dumps(listed, default=str) + "\n")
        return
    table = Table(title=f"{len(rows)} run(s)", show_lines=False)
    columns = ("run", "kind", "thread", "user", "status", "started", "ms", "tokens in/out", "votes")
    for column in columns:
        table.add_column(column)
    for run in rows:
        table.add_row(
            run.id[:8],
            run.kind + (f" of {run.parent_run_id[:8]}" if run.parent_run_id else ""),
            run.thread_id,
            run.user_id,
            _status(run.status),
            run.started_at.strftime("%Y-%m-%d %H:%M:%S") if run.started_at else "",
            f"{run.duration_ms:.0f}" if run.duration_ms is not None else "",
            f"{run.input_tokens}/{run.output_tokens}",
            _tally(votes.get(run.id, [])),
        )
    out.print(table)


@runs_app.command("show")
def show_run(
    run_id: Annotated[
        str, typer.Argument(help="The run id (a unique prefix is enough).", callback=text_id)
    ],
    json_output: JsonOpt = False,
) -> None:
    """Show one run: messages, tool calls with results, timings, tokens, child runs."""
    settings = workspace_or_exit()
    detail = _run(settings, queries.show_run, run_id)
    if detail is None:
        raise typer.TyperException(f"no run {shorten(run_id)!r}")  # exit 1, one line
    data = queries.detail_json(detail)
    if json_output:
        sys.stdout.write(json.dumps(data, default=str, ensure_ascii=False) + "\n")
        return
    out.print(_render(data))


def _run(settings: Settings, query: Any, *args: Any, **kwargs: Any) -> Any:
    async def go() -> Any:
        db = open_database(settings)
        try:
            return await query(db, *args, **kwargs)
        finally:
            await db.dispose()

    try:
        return asyncio.run(go())
    except Exception as exc:
        raise typer.TyperException(f"could not read the audit: {exc}") from None


def _tally(votes: list[Any]) -> str:
    up = sum(1 for v in votes if v.rating == "positive")
    down = len(votes) - up
    return " ".join(part for part in (f"+{up}" if up else "", f"-{down}" if down else "") if part)


def _status(status: str) -> Text:
    style = {"completed": "green", "failed": "red", "refused": "yellow"}.get(status, "cyan")
    return Text(status, style=style)


def _votes(votes: list[dict[str, Any]]) -> Table:
    table = Table(title="feedback", show_lines=False, expand=True)
    for column in ("person", "rating", "comment", "from", "when"):
        table.add_column(column)
    for vote in votes:
        style = "green" if vote["rating"] == "positive" else "red"
        table.add_row(
            vote["person"],
            Text(vote["rating"], style=style),
            vote["comment"] or "",
            vote["channel"],
            (vote["voted_at"] or "")[:19].replace("T", " "),
        )
    return table


def _render(data: dict[str, Any]) -> Panel:
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    for label, value in (
        ("thread", data["thread_id"]),
        (
            "user",
            data["user_id"] + (f" (decided by {data['decided_by']})" if data["decided_by"] else ""),
        ),
        ("status", _status(data["status"])),
        ("trace", data["trace_id"]),
        ("model", data["model"] or ""),
        ("started", data["started_at"] or ""),
        ("duration", f"{data['duration_ms']:.0f} ms" if data["duration_ms"] is not None else ""),
        ("tokens", f"{data['input_tokens']} in / {data['output_tokens']} out"),
    ):
        head.add_row(label, value)
    if data["error"]:
        head.add_row("error", Text(data["error"], style="red"))
    messages = Table(title="messages", show_lines=True, expand=True)
    for column in ("#", "role", "content", "tokens"):
        messages.add_column(column)
    for m in data["messages"]:
        calls = ", ".join(f"{c['name']}({json.dumps(c['args'])})" for c in m["tool_calls"])
        content = m["content"] + (f"\n→ {calls}" if calls else "")
        tokens = (
            f"{m['input_tokens']}/{m['output_tokens']}" if m["input_tokens"] is not None else ""
        )
        messages.add_row(str(m["seq"]), m["role"], content, tokens)
    tool_calls = Table(title="tool calls", show_lines=True, expand=True)
    for column in ("tool", "args", "status", "ms", "result"):
        tool_calls.add_column(column)
    for call in data["tool_calls"]:
        result = json.dumps(call["result"], default=str, ensure_ascii=False)
        tool_calls.add_row(
            call["tool"],
            json.dumps(call["args"], ensure_ascii=False),
            call["status"] or "pending",
            f"{call['duration_ms']:.1f}" if call["duration_ms"] is not None else "",
            result if len(result) <= 400 else result[:400] + "…",
        )
    parts: list[Any] = [head, messages, tool_calls]
    if data["feedback"]:
        parts.append(_votes(data["feedback"]))
    parts += [_render(child) for child in data["children"]]
    title = f"{data['kind']} run {data['id']}"
    return Panel(Group(*parts), title=title, title_align="left")
