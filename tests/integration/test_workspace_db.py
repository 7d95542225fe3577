"""The workspace database: migrations, the idempotent demo seed, ranked search, exactly-once."""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select

from core.db.models import MutationReceipt
from core.terms import terms
from tools.agency.models import Brand, Client
from tools.agency.search import search
from tools.idempotency import run_once
from tools.pack_data import seed_demo
from tools.pack_loading import enabled


async def test_seed_is_idempotent(workspace) -> None:
    assert await seed_demo(workspace, enabled(None)) == {}
    async with workspace.session() as session:
        assert await session.scalar(select(func.count()).select_from(Client)) == 2
        garlic = (await session.scalars(select(Brand).where(Brand.name == "Garlic Press"))).all()
        assert {b.destination_space for b in garlic} == {"Thorinox", None}


async def test_search_ranks_the_coupon_sop_first(workspace) -> None:
    async with workspace.session() as session:
        hits = await search(session, workspace.dialect, "coupon code SOP")
        assert hits[0].title == "Coupon code setup SOP"
        assert hits[0].score > hits[-1].score or len(hits) == 1
        assert "coupon" in hits[0].excerpt.lower()
        images = await search(session, workspace.dialect, "refresh the listing images")
        assert images[0].title == "Listing image refresh SOP"


async def test_search_is_safe_with_hostile_input(workspace) -> None:
    async with workspace.session() as session:
        for query in ["'; DROP TABLE kb_documents; --", 'NEAR("x" OR', "🍕🍕", "a" * 10_000, ""]:
            assert isinstance(await search(session, workspace.dialect, query), list)
        assert (await search(session, workspace.dialect, "coupon"))[0].title.startswith("Coupon")
    assert terms("The coupon, for Garlic-Press!") == ["coupon", "garlic", "press"]


async def test_run_once_applies_a_mutation_once(workspace, tool_ctx) -> None:
    ctx = tool_ctx(idempotency_key="proposal-123")
    applied = 0

    async def mutate(session) -> dict:
        nonlocal applied
        applied += 1
        session.add(Client(name="Acme", name_key="acme"))
        await session.flush()
        return {"created": "Acme"}

    results = await asyncio.gather(
        *(run_once(ctx, "create_client", {"name": "Acme"}, mutate) for _ in range(3))
    )
    assert sorted(r.get("replayed", False) for r in results) == [False, True, True]
    async with workspace.session() as session:
        assert await session.scalar(select(func.count()).where(Client.name_key == "acme")) == 1
        receipts = await session.scalar(select(func.count()).select_from(MutationReceipt))
        assert receipts == 1


async def test_name_resolution_tolerates_typos_and_nul_bytes(workspace) -> None:
    from tools.names import resolve

    async with workspace.session() as session:
        for query in ("Thorinix", "THORINOX", " thorinox ", "thori\x00nox"):
            found = await resolve(session, Client, query)
            assert found.status == "found" and found.match is not None, query
            assert found.match.name == "Thorinox"
        garlic = await resolve(session, Brand, "garlic pres")
        assert garlic.status == "ambiguous" and len(garlic.candidates) == 2
        nothing = await resolve(session, Client, "Zzyzx Corp")
        assert nothing.status == "not_found"


async def test_fuzzy_lookup_sees_a_brand_added_after_it_was_cached(workspace) -> None:
    from core.db.base import name_key
    from tools.names import resolve

    async with workspace.session() as session:
        assert (await resolve(session, Brand, "zesty grator")).status == "not_found"
        session.add(Brand(client_id=1, name="Zesty Grater", name_key=name_key("Zesty Grater")))
        await session.commit()
    async with workspace.session() as session:
        found = await resolve(session, Brand, "zesty grator")
    assert found.status == "found" and found.match is not None
    assert found.match.name == "Zesty Grater"
