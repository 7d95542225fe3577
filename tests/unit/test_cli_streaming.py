"""`agentloop chat`'s live view of a streamed answer, event by event, as a person sees it."""

from __future__ import annotations

import io

from rich.console import Console

from app.cli.render import REWRITING, LiveStatus
from core import events


def piped() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=False, width=100), buffer


def test_off_a_terminal_each_fragment_is_written_the_moment_it_arrives() -> None:
    console, buffer = piped()
    with LiveStatus(console) as status:
        status(events.agent_state("thinking"))
        status(events.chunk("Garlic "))
        assert buffer.getvalue() == "Garlic "
        status(events.chunk("Press belongs "))
        assert buffer.getvalue() == "Garlic Press belongs "
        status(events.chunk("to Thorinox."))
        assert buffer.getvalue() == "Garlic Press belongs to Thorinox."
    assert buffer.getvalue() == "Garlic Press belongs to Thorinox.\n"


def test_off_a_terminal_a_withdrawn_draft_is_marked_and_the_next_starts_afresh() -> None:
    console, buffer = piped()
    with LiveStatus(console) as status:
        status(events.chunk("Garlic Press is **Thorinox's**."))
        status(events.draft_reset("rejected", 1))
        assert buffer.getvalue().endswith(f"\n{REWRITING}\n")
        status(events.chunk("Garlic Press belongs to Thorinox."))
    lines = buffer.getvalue().splitlines()
    assert lines == [
        "Garlic Press is **Thorinox's**.",
        REWRITING,
        "Garlic Press belongs to Thorinox.",
    ]


def test_a_tool_line_starts_on_its_own_line_after_a_preamble() -> None:
    console, buffer = piped()
    with LiveStatus(console) as status:
        status(events.chunk("Let me look."))
        status(events.draft_reset("tool_calls"))
        status(events.tool_call("echo", "c1", {"text": "x"}))
        status(events.tool_result("echo", "c1", "ok", 3.0, 0.0, 0.003))
    assert buffer.getvalue().splitlines() == ["Let me look.", '  → echo(text="x") ok 3 ms']


def test_on_a_terminal_the_draft_streams_under_the_spinner_and_is_wiped_at_the_end() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=100)
    with LiveStatus(console) as status:
        status(events.agent_state("thinking"))
        status(events.chunk("Garlic Press "))
        status(events.chunk("belongs to Thorinox."))
        assert "Garlic Press belongs to Thorinox." in _shown(status)
        status(events.draft_reset("rejected", 1))
        assert "Garlic" not in _shown(status)
    # The spinner is transient: its last act is to erase its lines (cursor up, erase line).
    assert buffer.getvalue().endswith("\x1b[1A\x1b[2K")


def _shown(status: LiveStatus) -> str:
    """What the spinner shows now (its renderable, as plain text)."""
    assert status._status is not None
    console = Console(file=io.StringIO(), width=100)
    with console.capture() as capture:
        console.print(status._status.renderable)
    return capture.get()


def test_ask_off_a_terminal_writes_no_draft_only_its_tool_lines() -> None:
    # `ask` and `resume` in a script: the answer is stdout's, stderr keeps errors one line.
    console, buffer = piped()
    with LiveStatus(console, drafts=False) as status:
        status(events.chunk("Let me look "))
        status(events.draft_reset("tool_calls"))
        status(events.tool_call("list_tasks", "call_1", {"client": "Thorinox"}))
        status(events.tool_result("list_tasks", "call_1", "ok", 12.0, 0.0, 0.012))
        status(events.chunk("One open task."))
    [line] = buffer.getvalue().splitlines()
    assert line.startswith("  → list_tasks(client=") and "Let me" not in buffer.getvalue()
