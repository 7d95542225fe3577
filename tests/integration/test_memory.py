"""The memory pack: confident notes are saved, forgotten ones archived (SQLite and Postgres)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from core.db.models import MutationReceipt
from tools.agency.models import ClientMemoryNote
from tools.declaration import Tool, ToolArgumentsError
from tools.memory.notes import forget_client_note, remember_client_note


async def run(tool: Tool, tool_ctx: Any, args: dict[str, Any], key: str = "k1") -> Any:
    return await tool.run(tool.validate(args), tool_ctx(idempotency_key=key))


async def notes(workspace: Any) -> list[ClientMemoryNote]:
    async with workspace.session() as session:
        return list(await session.scalars(select(ClientMemoryNote).order_by(ClientMemoryNote.id)))


def test_roles_and_kinds() -> None:
    for tool in (remember_client_note, forget_client_note):
        assert tool.roles == {"member", "admin"} and tool.kind == "mutating"
        assert tool.pack == "memory"


async def test_a_note_below_the_confidence_bar_is_not_saved(workspace, tool_ctx) -> None:
    before = await notes(workspace)
    args = {"client": "Thorinox", "note": "Maybe they want a sale?", "confidence": 0.69}
    result = await run(remember_client_note, tool_ctx, args)
    assert result["status"] == "not_saved" and "0.7" in result["reason"]
    assert len(await notes(workspace)) == len(before)
    async with workspace.session() as session:
        assert await session.scalar(select(func.count()).select_from(MutationReceipt)) == 0


async def test_a_confident_note_is_saved_with_its_context(workspace, tool_ctx) -> None:
    args = {
        "client": "thorinox",
        "note": "  Thorinox ships from the Reno warehouse.  ",
        "confidence": 0.7,
        "tags": ["Logistics", "logistics", " warehouse "],
        "source": "meeting",
    }
    result = await run(remember_client_note, tool_ctx, args)
    assert result["status"] == "saved"
    saved = result["note"]
    assert (
        saved["client"] == "Thorinox" and saved["note"] == "Thorinox ships from the Reno warehouse."
    )
    row = (await notes(workspace))[-1]
    assert (row.id, row.note, row.confidence) == (saved["id"], saved["note"], 0.7)
    assert (row.tags, row.source, row.author) == (["logistics", "warehouse"], "meeting", "U0GRACE")
    assert row.archived_at is None
    again = await run(remember_client_note, tool_ctx, args, key="k2")
    assert again["status"] == "already_known" and again["note"]["id"] == saved["id"]
    replay = await run(remember_client_note, tool_ctx, args)
    assert replay["replayed"] is True and replay["note"]["id"] == saved["id"]


async def test_forget_archives_by_id_and_by_text(workspace, tool_ctx) -> None:
    seeded = {n.note: n for n in await notes(workspace)}
    cap = seeded["Thorinox caps coupon discounts at 15%."]
    result = await run(forget_client_note, tool_ctx, {"client": "Thorinox", "note": f"#{cap.id}"})
    assert result["status"] == "archived" and result["note"]["archived_at"]
    by_text = await run(
        forget_client_note, tool_ctx, {"client": "Distex", "note": "concise titles"}, key="k2"
    )
    assert by_text["note"]["note"] == "Distex prefers concise task titles."
    rows = {n.id: n for n in await notes(workspace)}
    assert rows[cap.id].archived_at is not None and rows[by_text["note"]["id"]].archived_at
    assert len(rows) == len(seeded)
    replay = await run(forget_client_note, tool_ctx, {"client": "Thorinox", "note": f"#{cap.id}"})
    assert replay["replayed"] is True


async def test_a_note_described_in_other_words_is_the_one_sharing_most_of_them(
    workspace, tool_ctx
) -> None:
    described = {"client": "Thorinox", "note": "the one we kept on coupon limits"}
    result = await run(forget_client_note, tool_ctx, described)
    assert result["note"]["note"] == "Thorinox caps coupon discounts at 15%."
    # Words no note shares, or only its client's name, pick none.
    for note in ("what we kept on quarterly revenue", "the Thorinox one we kept"):
        with pytest.raises(ValueError, match="no active note of Thorinox matches"):
            await run(forget_client_note, tool_ctx, {"client": "Thorinox", "note": note}, "k2")


async def test_forgetting_an_unknown_note_is_an_error(workspace, tool_ctx) -> None:
    cap = next(n for n in await notes(workspace) if n.note.startswith("Thorinox caps"))
    with pytest.raises(ValueError, match="no active note #9999"):
        await run(forget_client_note, tool_ctx, {"client": "Thorinox", "note": "#9999"})
    with pytest.raises(ValueError, match="Thorinox has no active note"):
        # Another client's note is not this client's to forget.
        distex = next(n for n in await notes(workspace) if n.note.startswith("Distex"))
        await run(forget_client_note, tool_ctx, {"client": "Thorinox", "note": str(distex.id)})
    with pytest.raises(
        ValueError, match="no active note of Thorinox matches 'quarterly revenue forecast'"
    ):
        await run(
            forget_client_note,
            tool_ctx,
            {"client": "Thorinox", "note": "quarterly revenue forecast"},
        )
    by_id = {"client": "Thorinox", "note": f"#{cap.id}"}
    await run(forget_client_note, tool_ctx, by_id, key="f")
    with pytest.raises(ValueError, match="active notes: none"):
        await run(forget_client_note, tool_ctx, by_id, key="g")
    with pytest.raises(ValueError, match="no client matches"):
        await run(forget_client_note, tool_ctx, {"client": "Nobody Inc", "note": "#1"}, key="h")


async def test_hostile_notes_are_stored_verbatim(workspace, tool_ctx) -> None:
    text = '\'; DROP TABLE client_memory_notes; -- "quoted" 🎉'
    args = {"client": "Distex", "note": text, "confidence": 1, "tags": ["🎉"]}
    result = await run(remember_client_note, tool_ctx, args)
    row = (await notes(workspace))[-1]
    assert row.note == text == result["note"]["note"] and row.tags == ["🎉"]


def test_validation_errors_name_the_field() -> None:
    cases = [
        (remember_client_note, {"client": "Distex", "note": "x", "confidence": 1.5}, "confidence"),
        (
            remember_client_note,
            {"client": "Distex", "note": "x", "confidence": 0.9, "source": "rumor"},
            "source",
        ),
        (remember_client_note, {"client": "Distex", "note": " ", "confidence": 0.9}, "note"),
        (
            remember_client_note,
            {"client": "Distex", "note": "x", "confidence": 0.9, "tags": [""]},
            "tags",
        ),
        (forget_client_note, {"client": "Distex"}, "note"),
        (forget_client_note, {"client": "Distex", "note": ""}, "note"),
    ]
    for tool, args, field in cases:
        with pytest.raises(ToolArgumentsError, match=field):
            tool.validate(args)


def test_a_proposal_made_with_the_earlier_argument_names_still_reads() -> None:
    by_text = forget_client_note.validate({"client": "Distex", "matching": "concise titles"})
    by_id = forget_client_note.validate({"client": "Distex", "note_id": 12})

    assert by_text.model_dump() == {"client": "Distex", "note": "concise titles"}
    assert by_id.note_id == 12
