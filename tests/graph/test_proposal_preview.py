"""A change whose tool previews it is proposed with what it would change (SQLite and Postgres).

A person approves the record itself: "forget the stale coupon note" is shown with the note it
archives, and one that matches no note says, before anyone approves it, that it forgets none.
"""

from __future__ import annotations

from typing import Any

from graph.runner import TurnRequest


def forgets(note: str) -> dict[str, Any]:
    """One model turn proposing to forget a Thorinox note picked by `note`."""
    args = {"client": "Thorinox", "note": note}
    return {"tool_calls": [{"name": "forget_client_note", "id": "call_forget", "args": args}]}


def ask(text: str) -> TurnRequest:
    return TurnRequest(thread_id="t1", user_id="U0GRACE", message=text, today="2026-11-22")


async def test_the_proposal_names_the_note_it_archives(
    open_runner, write_script, workspace_url
) -> None:
    done = {"content": "Forgot it."}
    spec = write_script([forgets("the coupon note is stale"), done])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        paused = await runner.run_turn(ask("the coupon note is stale, drop it"))
        [proposal] = paused.interrupts[0]["proposals"]
        assert proposal["args"]["note"] == "the coupon note is stale"  # the call is as written
        first, line = proposal["description"].split("\n")
        assert first.endswith("note: the coupon note is stale")
        assert line.startswith("→ the note #") and "caps coupon discounts at 15%." in line
        assert "→ the note #" in paused.text
        approved = await runner.resume(ask("yes"), {"decision": "approve"})
        assert approved.tool_calls[0].result["note"]["note"] in line


async def test_a_proposal_that_would_forget_nothing_says_so(
    open_runner, write_script, workspace_url
) -> None:
    spec = write_script([forgets("quarterly revenue forecast")])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        paused = await runner.run_turn(ask("forget the forecast note"))
        [proposal] = paused.interrupts[0]["proposals"]
        line = proposal["description"].split("\n")[-1]
        assert line == (
            "⚠ as proposed it would forget nothing: "
            "no active note of Thorinox matches 'quarterly revenue forecast'"
        )
