"""The agency pack's context reads (client context, KB, tasks, audit), hostile strings and
argument errors, on the seeded demo workspace, on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from tools.agency.audit import audit_brand_mappings
from tools.agency.client_context import get_client_context
from tools.agency.kb import search_kb
from tools.agency.lookup import lookup_brand, lookup_client, resolve_brand
from tools.agency.models import Brand, Client, KbDocument, Task
from tools.agency.tasks import list_tasks
from tools.declaration import Tool, ToolArgumentsError

HOSTILE = [
    'O\'Brien "quoted"',
    "'; DROP TABLE clients; --",
    "Robert'); DELETE FROM brands WHERE ('1'='1",
    "🧄🔪🎉",
    "💥 Zzyzx 🍕",
    "nul\x00byte",
    "%_%",
    "x" * 10_000,
]


async def call(tool: Tool, ctx: Any, **args: Any) -> dict[str, Any]:
    return await tool.run(tool.validate(args), ctx)


async def test_client_context_holds_the_whole_pack(tool_ctx) -> None:
    pack = await call(get_client_context, tool_ctx(), client="thorinox")
    assert pack["status"] == "found" and pack["client"]["name"] == "Thorinox"
    assert pack["truncated"] is False and 0 < pack["tokens"] <= 1500
    assert {(a["person"], a["role"]) for a in pack["assignments"]} >= {
        ("Grace Hopper", "account_manager")
    }
    assert {a["title"] for a in pack["assignments"]} >= {"Designer"}
    brands = {b["name"]: b["missing_mapping"] for b in pack["brands"]}
    assert brands["Thorinox Peelers"] == ["destination_space", "destination_list"]
    assert brands["Garlic Press"] == []
    titles = [s["title"] for s in pack["sops"]]
    assert titles[0] == "Thorinox brand guidelines"  # the client's own doc comes first
    assert "Coupon code setup SOP" in titles
    assert all(s["excerpt"] for s in pack["sops"])
    assert {t["title"] for t in pack["tasks"]} == {
        "Refresh Garlic Press main images",
        "Q1 PPC budget review",
    }
    assert pack["tasks"][0]["id"] > pack["tasks"][1]["id"]  # newest first
    assert pack["memory_notes"] == [
        {"note": "Thorinox caps coupon discounts at 15%.", "confidence": 0.9, "source": "meeting"}
    ]
    shown = get_client_context.shows.read(pack)  # type: ignore[union-attr]
    assert shown is not None and ("assignments", ["Grace Hopper (account manager)"]) in [
        (label, [v for v in value if v.startswith("Grace")]) for label, value in shown.rows[0]
    ]  # a person reads who does what, not the names alone


async def test_client_context_truncates_to_a_tiny_budget(tool_ctx) -> None:
    full = await call(get_client_context, tool_ctx(), client="Thorinox")
    for budget in (200, 300, 450):
        pack = await call(get_client_context, tool_ctx(), client="Thorinox", max_tokens=budget)
        assert pack["truncated"] is True
        assert pack["tokens"] <= budget
        assert pack["client"]["name"] == "Thorinox"
        assert pack["omitted"]
    # Older tasks go first: a budget a little under the full size drops a task and nothing else.
    pack = await call(
        get_client_context, tool_ctx(), client="Thorinox", max_tokens=full["tokens"] - 5
    )
    assert pack["omitted"] == {"tasks": 1}
    assert pack["tasks"] == full["tasks"][:1]


async def test_client_context_skips_archived_notes(tool_ctx, workspace) -> None:
    from datetime import UTC, datetime

    from tools.agency.models import ClientMemoryNote

    async with workspace.session() as session:
        distex = await session.scalar(select(Client).where(Client.name == "Distex"))
        session.add_all(
            [
                ClientMemoryNote(
                    client_id=distex.id,
                    note="Old fact",
                    confidence=0.95,
                    archived_at=datetime.now(UTC),
                ),
                ClientMemoryNote(client_id=distex.id, note="Low fact", confidence=0.3),
                ClientMemoryNote(client_id=distex.id, note="Sure fact", confidence=0.99),
            ]
        )
        await session.commit()
    pack = await call(get_client_context, tool_ctx(), client="Distex")
    notes = [n["note"] for n in pack["memory_notes"]]
    assert notes == ["Sure fact", "Distex prefers concise task titles.", "Low fact"]


# search_kb


async def test_search_kb_coupon_code(tool_ctx) -> None:
    result = await call(search_kb, tool_ctx(), query="coupon code")
    assert result["query"] == "coupon code"
    top = result["results"][0]
    assert top["title"] == "Coupon code setup SOP"
    assert top["kind"] == "sop" and top["client"] is None
    assert "coupon" in top["excerpt"].lower() and top["score"] > 0


async def test_search_kb_takes_a_question_in_words(tool_ctx) -> None:
    asked = "what do we do when a client wants a coupon for the holidays? " * 10
    result = await call(search_kb, tool_ctx(), query=asked)
    assert result["results"][0]["title"] == "Coupon code setup SOP"
    assert len(result["query"]) == 200  # echoed cut short


async def test_search_kb_scopes_to_a_client_and_kind(tool_ctx, workspace) -> None:
    thorinox = await call(search_kb, tool_ctx(), query="brand guidelines", client="thorinox")
    assert thorinox["results"][0]["title"] == "Thorinox brand guidelines"
    assert thorinox["results"][0]["client"] == "Thorinox"
    distex = await call(search_kb, tool_ctx(), query="brand guidelines", client="distex")
    assert "Thorinox brand guidelines" not in {r["title"] for r in distex["results"]}
    docs = await call(search_kb, tool_ctx(), query="coupon", kind="doc")
    assert [r["title"] for r in docs["results"]] == ["Thorinox brand guidelines"]
    one = await call(search_kb, tool_ctx(), query="sop", limit=1)
    assert len(one["results"]) == 1
    missing = await call(search_kb, tool_ctx(), query="coupon", client="Zzyzx")
    assert missing["status"] == "not_found"


async def test_search_kb_shows_other_kinds_when_none_of_the_kind_matches(tool_ctx) -> None:
    # "any docs on lightning deals?": the one match is an SOP, so a doc filter finds nothing
    widened = await call(search_kb, tool_ctx(), query="lightning deal", kind="doc")
    assert [r["kind"] for r in widened["results"]] == ["sop"]
    assert widened["status"] == "other_kinds" and widened["no_match_of_kind"] == "doc"
    lead = search_kb.shows.read(widened).lead  # type: ignore[union-attr]
    assert lead.startswith('1 document matching "lightning deal" (no doc matched')
    nothing = await call(search_kb, tool_ctx(), query="zzyzx quux", kind="doc")
    assert nothing == {"query": "zzyzx quux", "results": []}


# list_tasks


async def test_list_tasks_orders_by_due_date(tool_ctx) -> None:
    result = await call(list_tasks, tool_ctx())
    assert result["count"] == 4 and result["more"] is False
    dates = [t["due_date"] for t in result["tasks"]]
    assert dates == ["2026-11-10", "2026-12-04", "2026-12-15", None]
    first = result["tasks"][0]
    assert first["client"] == "Distex" and first["brand"] == "Distex Storage"
    assert first["assignee"] == "Maya Chen" and first["status"] == "done"
    assert first["product_ids"] == ["B0DSTOR001", "B0DSTOR002"]


async def test_list_tasks_filters(tool_ctx) -> None:
    async def titles(**args: Any) -> list[str]:
        result = await call(list_tasks, tool_ctx(), **args)
        assert result["count"] == len(result["tasks"]), result
        return [t["title"] for t in result["tasks"]]

    assert await titles(client="thorinox") == [
        "Refresh Garlic Press main images",
        "Q1 PPC budget review",
    ]
    assert await titles(status="blocked") == ["Map Distex Lighting destination"]
    assert await titles(assignee="omar hadad") == ["Refresh Garlic Press main images"]
    assert await titles(brand="garlic press", client="Thorinox") == [
        "Refresh Garlic Press main images"
    ]
    assert await titles(brand="Garlic Press") == ["Refresh Garlic Press main images"]
    assert await titles(client="Distex", brand="Garlic Press") == []
    assert await titles(due_before="2026-12-05") == [
        "Storage bins listing audit",
        "Refresh Garlic Press main images",
    ]
    assert await titles(client="Thorinox", status="in_progress", assignee="Linus Park") == [
        "Q1 PPC budget review"
    ]
    # By words of the title, any case; LIKE's wildcards are taken as written.
    assert await titles(task="ppc BUDGET review") == ["Q1 PPC budget review"]
    assert await titles(task="%") == [] and await titles(task="budget_review") == []
    limited = await call(list_tasks, tool_ctx(), limit=1)
    assert limited["count"] == 1 and limited["more"] is True
    nobody = await call(list_tasks, tool_ctx(), assignee="Zzyzx Qwerty")
    assert nobody["status"] == "not_found" and nobody["field"] == "assignee"


async def test_list_tasks_shows_other_statuses_when_none_has_the_status(tool_ctx) -> None:
    # "what is still open for Distex?": none of its tasks is open, one is blocked, one done.
    widened = await call(list_tasks, tool_ctx(), client="Distex", status="open")
    assert {t["status"] for t in widened["tasks"]} == {"blocked", "done"}
    assert widened["status"] == "other_statuses" and widened["no_match_of_status"] == "open"
    lead = list_tasks.shows.read(widened).lead  # type: ignore[union-attr]
    assert lead == "2 tasks (none is open: the other statuses shown)"
    # The other filters still hold; with no task at all, nothing is shown.
    same = await call(list_tasks, tool_ctx(), assignee="Maya Chen", status="blocked")
    assert [t["title"] for t in same["tasks"]] == ["Storage bins listing audit"]
    none = await call(list_tasks, tool_ctx(), task="zzyzx", status="open")
    assert none == {"count": 0, "more": False, "tasks": []}


# audit_brand_mappings


async def test_audit_lists_incomplete_mappings(tool_ctx) -> None:
    result = await call(audit_brand_mappings, tool_ctx())
    assert result["checked"] == 6 and result["complete"] == 3
    gaps = {(m["client"], m["brand"]): m for m in result["missing"]}
    assert set(gaps) == {
        ("Thorinox", "Thorinox Peelers"),
        ("Distex", "Garlic Press"),
        ("Distex", "Distex Lighting"),
    }
    peelers = gaps[("Thorinox", "Thorinox Peelers")]
    assert peelers["missing"] == ["destination_space", "destination_list"]
    assert peelers["suggested_space"] == "Thorinox"
    assert "'Thorinox'" in peelers["remediation"]
    assert gaps[("Distex", "Garlic Press")]["suggested_space"] == "Distex"
    lighting = gaps[("Distex", "Distex Lighting")]
    assert lighting["missing"] == ["destination_list"]
    assert "destination_list" in lighting["remediation"]


async def test_audit_one_client(tool_ctx) -> None:
    result = await call(audit_brand_mappings, tool_ctx(), client="distex")
    assert result["checked"] == 3 and result["complete"] == 1
    assert {m["brand"] for m in result["missing"]} == {"Garlic Press", "Distex Lighting"}
    unknown = await call(audit_brand_mappings, tool_ctx(), client="Thorivax")
    assert unknown["status"] == "not_found" and "Thorinox" in unknown["suggestions"]


# hostile input and argument validation


async def test_hostile_strings_are_safe(tool_ctx, workspace) -> None:
    ctx = tool_ctx()
    for text in HOSTILE:
        assert (await call(lookup_client, ctx, query=text))["status"] == "not_found"
        assert (await call(lookup_brand, ctx, client=text))["status"] == "not_found"
        assert (await call(lookup_brand, ctx, query=text))["status"] == "not_found"
        assert (await call(resolve_brand, ctx, brand=text))["status"] == "not_found"
        assert (await call(resolve_brand, ctx, brand="Garlic Press", client=text))[
            "status"
        ] == "not_found"
        assert (await call(get_client_context, ctx, client=text))["status"] == "not_found"
        assert isinstance((await call(search_kb, ctx, query=text))["results"], list)
        assert (await call(list_tasks, ctx, assignee=text))["status"] == "not_found"
        assert (await call(list_tasks, ctx, brand=text))["status"] == "not_found"
        assert (await call(audit_brand_mappings, ctx, client=text))["status"] == "not_found"
    async with workspace.session() as session:
        for model, rows in ((Client, 2), (Brand, 6), (Task, 4), (KbDocument, 6)):
            assert await session.scalar(select(func.count()).select_from(model)) == rows


async def test_not_found_echo_is_bounded(tool_ctx) -> None:
    result = await call(lookup_client, tool_ctx(), query="x" * 10_000)
    assert len(result["query"]) <= 200


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        (search_kb, {"query": "coupon", "limit": 0}, "limit"),
        (search_kb, {"query": "coupon", "limit": 21}, "limit"),
        (search_kb, {"query": "coupon", "kind": "memo"}, "kind"),
        (search_kb, {"query": " "}, "query"),
        (list_tasks, {"limit": 0}, "limit"),
        (list_tasks, {"status": "closed"}, "status"),
        (list_tasks, {"due_before": "next week"}, "due_before"),
        (list_tasks, {"assignee": ""}, "assignee"),
        (get_client_context, {"client": "Thorinox", "max_tokens": 10}, "max_tokens"),
        (get_client_context, {}, "client"),
        (resolve_brand, {"brand": "Garlic Press", "client": "  "}, "client"),
        (lookup_brand, {"query": 42}, "query"),
        (audit_brand_mappings, {"client": ""}, "client"),
    ],
)
def test_invalid_arguments_name_the_field(tool: Tool, args: dict[str, Any], field: str) -> None:
    with pytest.raises(ToolArgumentsError, match=rf"\b{field}:"):
        tool.validate(args)
