"""The agency pack's task and assignment changes on the seeded workspace (SQLite, PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from core.db.models import MutationReceipt, TeamMember
from tests.support.agency_rows import count, run
from tools.agency.assignments import assign_person, remove_assignment
from tools.agency.brands import apply_remediation, create_brand, update_brand
from tools.agency.models import Assignment, Brand, Client, Task
from tools.agency.mutations import create_task

COUPON_STEPS = [
    "1. Confirm the brand, the marketplace and the destination list for the task.",
    "2. Collect the ASINs the coupon applies to; a coupon cannot be created without them.",
]


def test_roles_and_kinds() -> None:
    assert create_task.roles == {"member", "admin"}
    for tool in (assign_person, remove_assignment, create_brand, update_brand, apply_remediation):
        assert tool.roles == {"admin"}, tool.name
    for tool in (create_task, assign_person, create_brand, apply_remediation):
        assert tool.kind == "mutating" and tool.pack == "agency"


async def test_coupon_task_is_grounded_in_the_sop_and_asks_for_asins(workspace, tool_ctx) -> None:
    args = {
        "client": "Thorinox",
        "brand": "Garlic Press",
        "title": "Create a coupon code for Garlic Press",
    }
    result = await run(create_task, tool_ctx, args)
    assert result["status"] == "created"
    draft, task = result["draft"], result["task"]
    assert draft["sop"]["title"] == "Coupon code setup SOP"
    assert "Checklist (from Coupon code setup SOP):" in draft["description"]
    for step in COUPON_STEPS:
        assert step in draft["description"]
    assert draft["product_ids"] == []
    assert any("ASINs" in hint and "Coupon code setup SOP" in hint for hint in draft["missing"])
    assert task["client"] == "Thorinox" and task["brand"] == "Garlic Press"
    assert task["description"] == draft["description"] and task["created_by"] == "U0GRACE"
    async with workspace.session() as session:
        row = await session.get_one(Task, task["id"])
        brand = await session.get_one(Brand, row.brand_id)
        client = await session.get_one(Client, row.client_id)
    assert (client.name, brand.name, brand.client_id) == ("Thorinox", "Garlic Press", client.id)
    assert row.status == "open" and row.description == draft["description"]


async def test_asins_in_the_details_become_product_ids(workspace, tool_ctx) -> None:
    args = {
        "client": "thorinox",
        "brand": "garlic press",
        "title": "Create a coupon code for Garlic Press",
        "details": "20% off, ASIN b0cgp12345",
        "product_ids": ["b0cgp12345"],
        "assignee": "grace hopper",
        "due_date": "2026-12-01",
    }
    result = await run(create_task, tool_ctx, args)
    assert result["draft"]["product_ids"] == ["B0CGP12345"]
    assert not any("ASIN" in hint for hint in result["draft"]["missing"])
    assert result["draft"]["description"].startswith("20% off, ASIN b0cgp12345\n\nChecklist")
    assert result["task"]["assignee"] == "Grace Hopper"
    assert result["task"]["due_date"] == "2026-12-01"
    async with workspace.session() as session:
        row = await session.get_one(Task, result["task"]["id"])
    assert row.product_ids == ["B0CGP12345"] and str(row.due_date) == "2026-12-01"


async def test_unmapped_brand_and_unrelated_title(workspace, tool_ctx) -> None:
    result = await run(
        create_task, tool_ctx, {"client": "Distex", "brand": "Garlic Press", "title": "Call Bob"}
    )
    assert result["draft"]["sop"] is None
    assert result["draft"]["description"] == ""
    assert any("destination mapping" in hint for hint in result["draft"]["missing"])


async def test_the_same_key_creates_one_task(workspace, tool_ctx) -> None:
    args = {"client": "Thorinox", "title": "Q1 PPC budget review follow-up"}
    before = await count(workspace, Task)
    first = await run(create_task, tool_ctx, args, key="same")
    second = await run(create_task, tool_ctx, args, key="same")
    assert "replayed" not in first and second["replayed"] is True
    assert second["task"] == first["task"]
    assert first["draft"]["sop"]["title"] == "PPC weekly budget review SOP"
    assert await count(workspace, Task) == before + 1
    assert await count(workspace, MutationReceipt, MutationReceipt.idempotency_key == "same") == 1


async def test_unknown_or_ambiguous_names_are_errors_with_candidates(workspace, tool_ctx) -> None:
    with pytest.raises(ValueError, match="Distex") as ambiguous:
        await run(update_brand, tool_ctx, {"brand": "Garlic Press", "marketplace": "amazon_us"})
    assert "Thorinox" in str(ambiguous.value) and "ambiguous" in str(ambiguous.value)
    with pytest.raises(ValueError, match="did you mean: Thorinox"):
        await run(create_task, tool_ctx, {"client": "Torinoks", "title": "x"})
    with pytest.raises(ValueError, match="known: Distex, Thorinox"):
        await run(create_task, tool_ctx, {"client": "Zzyzx Qwv", "title": "x"})
    with pytest.raises(ValueError, match="brand"):
        await run(create_task, tool_ctx, {"client": "Distex", "brand": "Cutlery", "title": "x"})
    with pytest.raises(ValueError, match="in the past"):
        await run(
            create_task, tool_ctx, {"client": "Distex", "title": "x", "due_date": "2020-01-01"}
        )
    assert await count(workspace, MutationReceipt) == 0


async def test_assign_and_remove_a_person(workspace, tool_ctx) -> None:
    args = {"client": "Distex", "person": "Linus Park", "assignment_role": "PPC Specialist"}
    result = await run(assign_person, tool_ctx, args, key="a1")
    assert result["status"] == "assigned"
    assert result["assignment"]["assignment_role"] == "ppc_specialist"
    linus = (
        Assignment.team_member_id
        == select(TeamMember.id).where(TeamMember.name == "Linus Park").scalar_subquery()
    )
    assert await count(workspace, Assignment, linus) == 2
    with pytest.raises(ValueError, match="already ppc_specialist on Distex"):
        await run(assign_person, tool_ctx, args, key="a2")
    assert (await run(assign_person, tool_ctx, args, key="a1"))["replayed"] is True

    removed = await run(remove_assignment, tool_ctx, args, key="r1")
    assert removed["status"] == "removed" and await count(workspace, Assignment, linus) == 1
    with pytest.raises(ValueError, match="not ppc_specialist on Distex; their roles there: none"):
        await run(remove_assignment, tool_ctx, args, key="r2")
    with pytest.raises(
        ValueError, match=r"Grace Hopper is not designer on Thorinox.*account_manager"
    ):
        await run(
            remove_assignment,
            tool_ctx,
            {"client": "Thorinox", "person": "Grace", "assignment_role": "designer"},
            key="r3",
        )
    # Unsaid, the role is the one the person holds there; none or several is an error.
    alone = await run(remove_assignment, tool_ctx, {"client": "Distex", "person": "Maya Chen"})
    assert alone["assignment"]["assignment_role"] == "analyst"
    with pytest.raises(
        ValueError, match="Maya Chen holds no role on Distex; their roles there: none"
    ):
        await run(remove_assignment, tool_ctx, {"client": "Distex", "person": "Maya"}, key="r4")
    await run(assign_person, tool_ctx, {**args, "person": "Omar Haddad"}, key="a3")
    designer = {**args, "person": "Omar", "assignment_role": "designer"}
    await run(assign_person, tool_ctx, designer, key="a4")
    with pytest.raises(ValueError, match=r"holds several roles on Distex.*ppc_specialist"):
        await run(remove_assignment, tool_ctx, {"client": "Distex", "person": "Omar"}, key="r5")
