"""A change whose tool previews it is proposed with what it would change (SQLite and Postgres).

A person approves the record itself: "forget the stale coupon note" is shown with the note it
archives. One that matches no note is never proposed: its call is answered with why.
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


async def test_a_change_that_would_forget_nothing_is_answered_with_why_not_proposed(
    open_runner, write_script, workspace_url
) -> None:
    done = {"content": "There is no such note."}
    spec = write_script([forgets("quarterly revenue forecast"), done])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        answered = await runner.run_turn(ask("forget the forecast note"))
        assert answered.status == "completed" and not answered.interrupts
        [call] = answered.tool_calls
        assert call.status == "error"
        assert str(call.result).startswith(
            "error: nothing to forget: "
            "no active note of Thorinox matches 'quarterly revenue forecast'"
        )
        assert answered.text == "There is no such note."


async def test_of_two_changes_only_the_one_that_can_be_made_waits_for_approval(
    open_runner, write_script, workspace_url
) -> None:
    both = forgets("quarterly revenue forecast")
    both["tool_calls"].append(
        {
            "name": "forget_client_note",
            "id": "call_real",
            "args": {"client": "Thorinox", "note": "coupon"},
        }
    )
    spec = write_script([both, {"content": "Forgot the coupon note."}])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        paused = await runner.run_turn(ask("forget the forecast and coupon notes"))
        [proposal] = paused.interrupts[0]["proposals"]
        assert proposal["args"]["note"] == "coupon"
        approved = await runner.resume(ask("yes"), {"decision": "approve"})
        statuses = {c.args["note"]: c.status for c in approved.tool_calls}
        assert statuses == {"quarterly revenue forecast": "error", "coupon": "ok"}
