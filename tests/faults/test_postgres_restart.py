"""PostgreSQL restarts: a proxy drops every connection and refuses new ones for a while.

The shared server is never touched: the application reaches it through `TcpProxy`, and the
proxy's `restart()` is the outage. Between turns it is ridden out (every pool replaces its
dropped connections); mid-turn it takes the turn's lane with it, so the turn is interrupted
at once with a clear reply, and carried on from its last checkpoint once the server is back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import psycopg
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from checkpoints.savers import setup_checkpointer
from core.models import ModelResolver
from core.settings import Settings
from graph.in_flight import LANE_LOST
from graph.runner import Runner, TurnRequest
from prompts import replies
from tests.faults.conftest import ON_POSTGRES
from tests.support.slow_tools import slow_registry
from tests.support.tcp_proxy import TcpProxy

pytestmark = ON_POSTGRES
THREAD = "t-restart"
ACT_SAVED = 2
"""The step whose checkpoint holds act's tool call: guard and gather run at step 0, act at 1."""
Script = Callable[[list[dict[str, Any]]], str]


HANG_GUARD_S = 120.0
"""Far past any wait the turn may make on its own: reaching it means the turn hung."""


def nap(seconds: float) -> dict[str, Any]:
    return {"tool_calls": [{"name": "nap", "args": {"seconds": seconds}}]}


@pytest.fixture
async def proxy(workspace_url: str) -> AsyncIterator[TcpProxy]:
    await setup_checkpointer(Settings(_env_file=None, database_url=workspace_url))
    host, port = psycopg.conninfo.conninfo_to_dict(workspace_url)["host"], 5432
    async with TcpProxy(str(host), port) as server:
        yield server


@pytest.fixture
def settings(
    workspace_url: str, proxy: TcpProxy, make_settings: Callable[..., Settings]
) -> Callable[..., Settings]:
    """Settings whose database (workspace and checkpoints) is reached through the proxy."""
    name = workspace_url.rsplit("/", 1)[1]
    url = f"postgresql://postgres@127.0.0.1:{proxy.port}/{name}"
    return lambda **values: make_settings(database_url=url, checkpointer="postgres", **values)


def request(message: str, model: str) -> TurnRequest:
    return TurnRequest(THREAD, "U1", message, model=model)


def conversation(messages: list[Any]) -> list[tuple[str, str]]:
    kinds = {HumanMessage: "user", AIMessage: "assistant", ToolMessage: "tool"}
    shown = []
    for message in messages:
        calls = [call["name"] for call in getattr(message, "tool_calls", [])]
        shown.append((kinds[type(message)], message.text or ",".join(calls)))
    return shown


async def act_saved(workspace_url: str) -> None:
    """Wait until act's tool call is in the database: the checkpoint after act's step.

    It is read directly before the outage starts. The tool's step is then running and its
    writes wait in the saver for the next checkpoint, so no write of the run is in flight.
    """
    query = (
        "select count(*) > 0 from checkpoints where thread_id = %(t)s "
        "and (metadata->>'step')::int >= %(step)s"
    )
    async with await psycopg.AsyncConnection.connect(workspace_url, autocommit=True) as conn:
        for _ in range(200):
            row = await (await conn.execute(query, {"t": THREAD, "step": ACT_SAVED})).fetchone()
            if row and row[0]:
                return
            await asyncio.sleep(0.02)
    raise AssertionError("act's tool call was never saved")


async def reconnected(runner: Runner, within_s: float = 30) -> None:
    """Wait until the runner's pool reaches the server again (it retries with a backoff)."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            await runner.history(THREAD)
            return
        except psycopg.OperationalError:
            assert time.monotonic() < deadline, "the checkpointer never reconnected"
            await asyncio.sleep(0.2)


async def test_a_restart_between_turns_is_ridden_out(
    workspace_url: str, proxy: TcpProxy, settings: Callable[..., Settings], write_script: Script
) -> None:
    configured = settings()
    model = write_script([{"content": "Rested."}, {"content": "Anytime."}])
    async with Runner.open(configured, slow_registry(), ModelResolver(configured)) as runner:
        first = await runner.run_turn(request("rest a bit", model))
        connections = proxy.connections
        await proxy.restart(0.5)  # every pool's connections are dropped
        second = await asyncio.wait_for(
            runner.run_turn(request("thanks", model)), timeout=HANG_GUARD_S
        )
        history = await runner.history(THREAD)

    assert (first.status, second.status, second.text) == ("completed", "completed", "Anytime.")
    assert conversation(history) == [
        ("user", "rest a bit"),
        ("assistant", "Rested."),
        ("user", "thanks"),
        ("assistant", "Anytime."),
    ]
    assert proxy.connections > connections, "the pools never reconnected after the restart"


async def test_an_outage_mid_turn_interrupts_it_at_once_then_the_thread_carries_on(
    workspace_url: str, proxy: TcpProxy, settings: Callable[..., Settings], write_script: Script
) -> None:
    configured = settings(checkpoint_wait_s=1.0)
    outages: list[asyncio.Task[None]] = []

    async def outage() -> None:
        # Once act's tool call is saved, the server goes away for 4 s, with the turn's lane:
        # the turn is stopped at once (another worker may take the thread meanwhile).
        await act_saved(workspace_url)
        await proxy.restart(4.0)

    def on_event(event: dict[str, Any]) -> None:
        if event.get("type") == "tool.call":
            outages.append(asyncio.create_task(outage()))

    async with Runner.open(configured, slow_registry(), ModelResolver(configured)) as runner:
        # The outage interrupts the turn; a turn that waited for the server instead would
        # still be waiting when the guard (far past the pool's own timeouts) gives up.
        failed = await asyncio.wait_for(
            runner.run_turn(
                request("rest a bit", write_script([nap(1.0), {"content": "Rested, unsaved."}])),
                on_event,
            ),
            timeout=HANG_GUARD_S,
        )
        assert failed.status == "interrupted"
        assert failed.text == replies.turn_interrupted(THREAD, failed.run_id, LANE_LOST)

        await asyncio.gather(*outages)  # the server is back
        await reconnected(runner)
        # The same runner (a long-lived worker) carries the turn on from its last checkpoint:
        # the tool call was saved, so the tool runs again and the model answers.
        resumed = await runner.carry_on(request("", write_script([{"content": "Rested."}])))
        later = await runner.run_turn(request("thanks", write_script([{"content": "Anytime."}])))
        history = await runner.history(THREAD)

    assert (resumed.status, resumed.text) == ("completed", "Rested."), resumed.text
    assert [(call.name, call.status) for call in resumed.tool_calls] == [("nap", "ok")]
    assert (later.status, later.text) == ("completed", "Anytime.")
    assert conversation(history) == [
        ("user", "rest a bit"),
        ("assistant", "nap"),
        ("tool", '{"slept": 1.0}'),
        ("assistant", "Rested."),
        ("user", "thanks"),
        ("assistant", "Anytime."),
    ]
