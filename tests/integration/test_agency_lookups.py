"""The agency pack's lookups (clients, brands) on the seeded demo workspace, on SQLite and
PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from tools.agency import audit, client_context, kb, lookup, tasks
from tools.agency.lookup import lookup_brand, lookup_client, resolve_brand
from tools.declaration import Tool, ToolArgumentsError


async def call(tool: Tool, ctx: Any, **args: Any) -> dict[str, Any]:
    return await tool.run(tool.validate(args), ctx)


def test_packs_export_their_tools() -> None:
    assert [t.name for t in lookup.TOOLS] == ["lookup_client", "lookup_brand", "resolve_brand"]
    reads = client_context.TOOLS + kb.TOOLS + tasks.TOOLS + audit.TOOLS
    assert [t.name for t in reads] == [
        "get_client_context",
        "search_kb",
        "list_tasks",
        "audit_brand_mappings",
    ]
    for tool in lookup.TOOLS + reads:
        assert tool.pack == "agency" and tool.read_only
        assert tool.roles == {"viewer", "member", "admin"}
        assert "Returns" in tool.description and "Examples" in tool.description


# lookup_client


@pytest.mark.parametrize("query", ["Thorinox", "THORINOX", "  thorinox ", "Thorinx"])
async def test_lookup_client_tolerates_case_and_typos(tool_ctx, query) -> None:
    result = await call(lookup_client, tool_ctx(), query=query)
    assert result["status"] == "found"
    client = result["client"]
    assert client["name"] == "Thorinox"
    assert "Kitchen tools" in client["notes"]
    brands = {b["name"]: b["mapped"] for b in client["brands"]}
    assert brands == {"Garlic Press": True, "Thorinox Cutlery": True, "Thorinox Peelers": False}
    team = {(m["name"], m["assignment_role"]) for m in client["team"]}
    assert ("Grace Hopper", "account_manager") in team and len(team) == 3


async def test_lookup_client_distx_finds_distex(tool_ctx) -> None:
    result = await call(lookup_client, tool_ctx(), query="distx")
    assert result["status"] == "found" and result["client"]["name"] == "Distex"


async def test_unknown_client_is_not_found_with_suggestions(tool_ctx) -> None:
    near = await call(lookup_client, tool_ctx(), query="Thorivax")
    assert near["status"] == "not_found" and near["field"] == "client"
    assert near["query"] == "Thorivax"
    assert near["suggestions"][0] == "Thorinox"
    # Nothing close: the clients there are, so the person can pick one or see what exists.
    far = await call(lookup_client, tool_ctx(), query="Zzyzx")
    assert far == {
        "status": "not_found",
        "field": "client",
        "query": "Zzyzx",
        "suggestions": [],
        "known": ["Distex", "Thorinox"],
    }


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_blank_names_are_rejected_naming_the_field(query) -> None:
    with pytest.raises(ValueError, match="query") as error:
        lookup_client.validate({"query": query})
    assert isinstance(error.value, ToolArgumentsError)
    assert "empty or whitespace" in str(error.value)


# lookup_brand and resolve_brand


async def test_lookup_brand_lists_brands_with_mapping_state(tool_ctx) -> None:
    everything = await call(lookup_brand, tool_ctx())
    assert everything["status"] == "found" and everything["count"] == 6
    distex = await call(lookup_brand, tool_ctx(), client="DISTEX")
    rows = {b["name"]: b for b in distex["brands"]}
    assert set(rows) == {"Garlic Press", "Distex Storage", "Distex Lighting"}
    assert rows["Distex Storage"]["mapped"] is True
    assert rows["Distex Lighting"]["mapped"] is False  # space set, list missing
    assert rows["Garlic Press"]["marketplace"] == "amazon_ca"
    assert {b["client"] for b in distex["brands"]} == {"Distex"}


async def test_lookup_brand_by_name(tool_ctx) -> None:
    peelers = await call(lookup_brand, tool_ctx(), query="peelers", client="thorinox")
    assert [b["name"] for b in peelers["brands"]] == ["Thorinox Peelers"]
    shared = await call(lookup_brand, tool_ctx(), query="garlic press")
    assert shared["status"] == "ambiguous"
    assert sorted(b["client"] for b in shared["brands"]) == ["Distex", "Thorinox"]
    unknown = await call(lookup_brand, tool_ctx(), client="Thorivax")
    assert unknown["status"] == "not_found" and unknown["field"] == "client"
    assert unknown["suggestions"] == ["Thorinox"]


async def test_resolve_brand_coupon_example_is_mapped(tool_ctx) -> None:
    result = await call(resolve_brand, tool_ctx(), brand="Garlic Press", client="Thorinox")
    assert result["status"] == "found"
    assert result["client"]["name"] == "Thorinox"
    assert result["destination"] == {
        "space": "Thorinox",
        "list": "Amazon US - Garlic Press",
        "mapped": True,
    }
    assert result["missing_mapping"] == []


async def test_resolve_brand_tolerates_typos_within_a_client(tool_ctx) -> None:
    result = await call(resolve_brand, tool_ctx(), brand="garlic pres", client="thorinox")
    assert result["status"] == "found"
    assert result["brand"]["name"] == "Garlic Press"
    assert result["client"]["name"] == "Thorinox"


async def test_resolve_brand_without_client_is_ambiguous(tool_ctx) -> None:
    for query in ["Garlic Press", "garlic pres"]:
        result = await call(resolve_brand, tool_ctx(), brand=query)
        assert result["status"] == "ambiguous"
        candidates = result["candidates"]
        assert len(candidates) == 2
        assert sorted(c["client"] for c in candidates) == ["Distex", "Thorinox"]
        assert {c["name"] for c in candidates} == {"Garlic Press"}
        mapped = {c["client"]: c["mapped"] for c in candidates}
        assert mapped == {"Thorinox": True, "Distex": False}


async def test_resolve_brand_reports_missing_mapping(tool_ctx) -> None:
    unmapped = await call(resolve_brand, tool_ctx(), brand="Garlic Press", client="distex")
    assert unmapped["destination"]["mapped"] is False
    assert unmapped["missing_mapping"] == ["destination_space", "destination_list"]
    lighting = await call(resolve_brand, tool_ctx(), brand="distex lighting")
    assert lighting["status"] == "found"
    assert lighting["missing_mapping"] == ["destination_list"]
    nothing = await call(resolve_brand, tool_ctx(), brand="Zzyzx Blenders")
    assert nothing["status"] == "not_found" and nothing["field"] == "brand"


# get_client_context
