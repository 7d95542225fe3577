"""The agency pack's brand changes and hostile input, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from tests.support.agency_rows import brand_row, count, run
from tools.agency.assignments import assign_person
from tools.agency.brands import apply_remediation, create_brand, update_brand
from tools.agency.models import Brand, Client, Task
from tools.agency.mutations import create_task
from tools.declaration import ToolArgumentsError

COUPON_STEPS = [
    "1. Confirm the brand, the marketplace and the destination list for the task.",
    "2. Collect the ASINs the coupon applies to; a coupon cannot be created without them.",
]


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
        # A list's name is no marketplace: a channel and a two-letter country is.
        (
            update_brand,
            {"brand": "Distex Storage", "marketplace": "Bins Intake"},
            "marketplace is a channel and a two-letter country",
        ),
        (create_brand, {"client": "Distex", "name": "x", "marketplace": "amazon"}, "marketplace"),
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
