"""The agency pack's mutations on the seeded workspace (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from app.db.models import Assignment, Brand, Client, MutationReceipt, Task, TeamMember
from tools.agency.brands import apply_remediation, create_brand, update_brand
from tools.agency.mutations import assign_person, create_task, remove_assignment
from tools.declaration import Tool, ToolArgumentsError

COUPON_STEPS = [
    "1. Confirm the brand, the marketplace and the destination list for the task.",
    "2. Collect the ASINs the coupon applies to; a coupon cannot be created without them.",
]


async def run(tool: Tool, tool_ctx: Any, args: dict[str, Any], key: str = "k1") -> Any:
    return await tool.run(tool.validate(args), tool_ctx(idempotency_key=key))


async def count(workspace: Any, model: Any, *where: Any) -> int:
    async with workspace.session() as session:
        return await session.scalar(select(func.count()).select_from(model).where(*where)) or 0


async def brand_row(workspace: Any, client: str, name: str) -> Brand:
    async with workspace.session() as session:
        return (
            await session.scalars(
                select(Brand).join(Client).where(Client.name == client, Brand.name == name)
            )
        ).one()


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


async def test_create_brand_and_reject_duplicates(workspace, tool_ctx) -> None:
    args = {"client": "Distex", "name": "Distex Outdoor", "marketplace": "Amazon US"}
    result = await run(create_brand, tool_ctx, args, key="b1")
    assert result["status"] == "created" and result["mapping_complete"] is False
    row = await brand_row(workspace, "Distex", "Distex Outdoor")
    assert (row.marketplace, row.destination_space, row.name_key) == (
        "amazon_us",
        None,
        "distex outdoor",
    )
    with pytest.raises(ValueError, match="Distex already has a brand named 'Distex Outdoor'"):
        await run(create_brand, tool_ctx, {"client": "Distex", "name": "distex  OUTDOOR"}, key="b2")
    # Garlic Press exists under both clients: a third client may have it too, a second copy not.
    with pytest.raises(ValueError, match="already has a brand named 'Garlic Press'"):
        await run(create_brand, tool_ctx, {"client": "Thorinox", "name": "Garlic Press"}, key="b3")


async def test_update_brand_changes_only_the_given_fields(workspace, tool_ctx) -> None:
    args = {
        "brand": "Garlic Press",
        "client": "Distex",
        "destination_space": "Distex",
        "destination_list": "Amazon CA - Garlic Press",
    }
    result = await run(update_brand, tool_ctx, args, key="u1")
    assert result["status"] == "updated"
    assert result["changes"]["destination_space"] == {"from": None, "to": "Distex"}
    row = await brand_row(workspace, "Distex", "Garlic Press")
    assert (row.marketplace, row.destination_space, row.destination_list) == (
        "amazon_ca",
        "Distex",
        "Amazon CA - Garlic Press",
    )
    thorinox = await brand_row(workspace, "Thorinox", "Garlic Press")
    assert thorinox.destination_list == "Amazon US - Garlic Press"
    again = await run(update_brand, tool_ctx, args, key="u2")
    assert again["status"] == "unchanged" and again["changes"] == {}


async def test_apply_remediation_fills_missing_mappings(workspace, tool_ctx) -> None:
    result = await run(apply_remediation, tool_ctx, {}, key="fix")
    assert result["status"] == "applied" and result["skipped"] == []
    changed = {(c["client"], c["brand"]): c["set"] for c in result["changed"]}
    assert changed == {
        ("Distex", "Distex Lighting"): {"destination_list": "Amazon US - Distex Lighting"},
        ("Distex", "Garlic Press"): {
            "destination_space": "Distex",
            "destination_list": "Amazon CA - Garlic Press",
        },
        ("Thorinox", "Thorinox Peelers"): {
            "destination_space": "Thorinox",
            "destination_list": "Amazon US - Thorinox Peelers",
        },
    }
    peelers = await brand_row(workspace, "Thorinox", "Thorinox Peelers")
    assert (peelers.destination_space, peelers.destination_list) == (
        "Thorinox",
        "Amazon US - Thorinox Peelers",
    )
    assert (
        await brand_row(workspace, "Distex", "Distex Storage")
    ).destination_list == "Amazon US - Storage"
    assert await count(workspace, Brand, Brand.destination_list.is_(None)) == 0
    again = await run(apply_remediation, tool_ctx, {}, key="fix-again")
    assert again == {"status": "nothing_to_fix", "changed": [], "skipped": []}


async def test_apply_remediation_for_one_client_with_a_suffix(workspace, tool_ctx) -> None:
    await run(create_brand, tool_ctx, {"client": "Thorinox", "name": "Pans"}, key="b")
    result = await run(
        apply_remediation, tool_ctx, {"client": "Thorinox", "default_list_suffix": "Tasks"}, key="f"
    )
    assert {c["brand"]: c["set"]["destination_list"] for c in result["changed"]} == {
        "Pans": "Pans Tasks",
        "Thorinox Peelers": "Thorinox Peelers Tasks",
    }
    assert (await brand_row(workspace, "Distex", "Garlic Press")).destination_space is None


async def test_apply_remediation_skips_a_client_without_a_space(workspace, tool_ctx) -> None:
    async with workspace.session() as session:
        session.add(Client(name="Nova", name_key="nova"))
        await session.commit()
    await run(create_brand, tool_ctx, {"client": "Nova", "name": "Nova One"}, key="b")
    result = await run(apply_remediation, tool_ctx, {"client": "Nova"}, key="f1")
    assert (
        result["status"] == "nothing_to_fix" and "default_space" in result["skipped"][0]["reason"]
    )
    result = await run(
        apply_remediation, tool_ctx, {"client": "Nova", "default_space": "Nova"}, key="f2"
    )
    assert result["changed"] == [
        {
            "client": "Nova",
            "brand": "Nova One",
            "set": {"destination_space": "Nova", "destination_list": "Nova One"},
        }
    ]


HOSTILE = [
    'He said "hi" and it\'s fine',
    "'; DROP TABLE tasks; --",
    "Coupon 🎉🍕 für Knoblauchpresse — ½ off",
    "x" * 10_240,
]


@pytest.mark.parametrize("text", HOSTILE, ids=["quotes", "sql", "emoji", "10kB"])
async def test_hostile_strings_are_stored_verbatim(workspace, tool_ctx, text) -> None:
    result = await run(
        create_task, tool_ctx, {"client": "Thorinox", "title": text, "details": text}
    )
    async with workspace.session() as session:
        row = await session.get_one(Task, result["task"]["id"])
    assert row.title == text and result["task"]["title"] == text
    assert row.description.startswith(text)
    name = text[:200]
    await run(
        create_brand,
        tool_ctx,
        {"client": "Distex", "name": name, "destination_list": text[:200]},
        key="b",
    )
    assert (await brand_row(workspace, "Distex", name)).destination_list == text[:200]
    assert await count(workspace, Task) >= 5


async def test_validation_errors_name_the_field() -> None:
    cases = [
        (create_task, {"client": "Thorinox"}, "title"),
        (create_task, {"client": "Thorinox", "title": "   "}, "title"),
        (create_task, {"client": "Thorinox", "title": "x", "due_date": "soon"}, "due_date"),
        (create_task, {"client": "Thorinox", "title": "x", "product_ids": [""]}, "product_ids"),
        (create_task, {"client": "", "title": "x"}, "client"),
        (
            assign_person,
            {"client": "Distex", "person": "Ada", "assignment_role": "!!"},
            "assignment_role",
        ),
        (create_brand, {"client": "Distex", "name": "a\x00b"}, "name"),
        (update_brand, {"brand": "Garlic Press"}, "at least one of marketplace"),
        (apply_remediation, {"client": 3}, "client"),
    ]
    for tool, args, field in cases:
        with pytest.raises(ToolArgumentsError, match=field):
            tool.validate(args)


@pytest.mark.parametrize(
    "name",
    ['O\'Brien "Quoted" Co', "'; DROP TABLE brands; --", "Café 🍕 Pizza", "%_wild\\card_%"],
    ids=["quotes", "sql", "emoji", "like-wildcards"],
)
async def test_hostile_brand_names_are_matched_back(workspace, tool_ctx, name) -> None:
    from tools.agency.lookup import resolve_brand

    await run(create_brand, tool_ctx, {"client": "Distex", "name": name}, key=f"b-{name}")
    found = await resolve_brand.run(
        resolve_brand.validate({"brand": name, "client": "Distex"}), tool_ctx()
    )
    assert found["status"] == "found" and found["brand"]["name"] == name
    assert await count(workspace, Brand) == 7


def test_a_10_kb_name_is_refused_naming_the_field() -> None:
    with pytest.raises(ToolArgumentsError, match="name: String should have at most 200"):
        create_brand.validate({"client": "Distex", "name": "x" * 10_000})
