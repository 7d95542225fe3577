"""The event ledger on SQLite and PostgreSQL: one claim per id, again after the TTL."""

from __future__ import annotations

import asyncio

from app.slack.dedupe import EventLedger


async def test_an_event_id_is_claimed_once_until_it_expires(workspace) -> None:
    ledger = EventLedger(workspace, ttl_s=0.3)
    assert [await ledger.claim(f"Ev{i}") for i in range(3)] == [True, True, True]
    assert await ledger.claim("Ev1") is False
    assert await ledger.first_delivery("Ev2") is False
    assert await ledger.first_delivery(None) is True  # nothing to de-duplicate by
    await asyncio.sleep(0.4)
    assert await ledger.claim("Ev1") is True  # past its TTL: a new delivery
    assert await ledger.claim("Ev1") is False
    await asyncio.sleep(0.4)
    assert await ledger.purge() == 3


async def test_concurrent_claims_of_one_id_let_exactly_one_through(workspace) -> None:
    ledger = EventLedger(workspace, ttl_s=60)
    claims = await asyncio.gather(*(ledger.claim("Ev0SAME") for _ in range(5)))
    assert sorted(claims) == [False, False, False, False, True]
