"""One process of the runtime-cost benchmark: hosts one or more subjects, runs blocks on cue.

`python -m bench.runtime_turns SUBJECT=URL [SUBJECT=URL ...]` warms each subject up, prints
`ready`, then for each line `NAME` read from stdin runs a block of turns of that subject and
prints its process CPU seconds for the block as JSON. Each subject has a database of its
own, so the parent reads that subject's PostgreSQL backends alone. A subject runs in a
process of its own unless it is hosted beside another on purpose: a process's heap and
background work are charged to every subject in it (see bench/runtime_cost.py).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

from core.heap import frozen_startup
from core.models.scripted import ScriptedChatModel, ScriptedTurn

WARM_UP = 20
BLOCK = 20
RUNTIME, DEFERRED, BARE, TOOLED = "runtime", "deferred", "bare", "tooled"
GRAPH, BARE_MEMORY = "graph", "bare-memory"
"""The floor: each loop alone, nothing saved (in-memory checkpointer; no lanes, no audit)."""
Turn = Callable[[], Awaitable[None]]


def _texts(n: int) -> ScriptedChatModel:

    return ScriptedChatModel(turns=[ScriptedTurn(content="It is done.") for _ in range(n)])


@asynccontextmanager
async def _runtime(url: str, mode: str, turns: int) -> AsyncIterator[Turn]:
    from core.models import ModelResolver
    from core.settings import Settings
    from graph.runner import Runner, TurnRequest
    from tools.registry import registry_of

    settings = Settings(_env_file=None, database_url=url, checkpointer="postgres", packs="")
    if mode == DEFERRED:
        settings = settings.model_copy(update={"checkpoint_pending_writes": "deferred"})
    models = ModelResolver(settings)
    models._models["scripted:runtime"] = _texts(turns)  # the resolver's cache: the model seam
    async with Runner.open(settings, registry_of([]), models) as runner:
        if mode == GRAPH:
            from langgraph.checkpoint.memory import InMemorySaver

            from checkpoints.lanes import Lanes

            runner.lanes, runner.driver.audit = Lanes(), None  # a lane in this process only
            runner.graph = runner.driver.graph = runner.graph.copy(
                update={"checkpointer": InMemorySaver()}
            )

        async def turn() -> None:
            request = TurnRequest(str(uuid.uuid4()), "bench", "go", model="scripted:runtime")
            result = await runner.run_turn(request)
            assert result.status == "completed", result.text
            # The audit is written in the background: its rows are the runtime's cost.
            if runner.driver.audit is not None:
                await runner.driver.audit.drain()

        yield turn


@asynccontextmanager
async def _create_agent(url: str, mode: str, turns: int) -> AsyncIterator[Turn]:
    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return query

    async with AsyncExitStack() as stack:
        if mode == BARE_MEMORY:
            from langgraph.checkpoint.memory import InMemorySaver

            saver: Any = InMemorySaver()
        else:
            saver = await stack.enter_async_context(AsyncPostgresSaver.from_conn_string(url))
        tools = [lookup] if mode == TOOLED else []
        graph = create_agent(_texts(turns), tools, checkpointer=saver)

        async def turn() -> None:
            config = {"configurable": {"thread_id": str(uuid.uuid4())}}
            await graph.ainvoke({"messages": [HumanMessage("go")]}, config)  # type: ignore[call-overload]

        yield turn


def _subject(name: str, url: str, turns: int) -> AbstractAsyncContextManager[Turn]:
    if name in (RUNTIME, DEFERRED, GRAPH):
        return _runtime(url, name, turns)
    if name in (BARE, TOOLED, BARE_MEMORY):
        return _create_agent(url, name, turns)
    raise SystemExit(f"unknown subject {name!r}")


async def _serve(subjects: dict[str, str], turns: int) -> None:
    async with AsyncExitStack() as stack:
        runs = {
            n: await stack.enter_async_context(_subject(n, u, turns)) for n, u in subjects.items()
        }
        for turn in runs.values():
            for _ in range(WARM_UP):
                await turn()
        # Frozen as a serving process freezes its start-up heap (core/heap.py), every subject
        # alike.
        stack.enter_context(frozen_startup())
        print("ready", flush=True)
        loop = asyncio.get_running_loop()
        while line := (await loop.run_in_executor(None, sys.stdin.readline)).strip():
            cpu = time.process_time()
            for _ in range(BLOCK):
                await runs[line]()
            print(json.dumps({"cpu_s": time.process_time() - cpu}), flush=True)


def main() -> None:
    """Parse `SUBJECT=URL ... TURNS` (TURNS: the scripted replies each model holds); serve."""
    *pairs, turns = sys.argv[1:]
    asyncio.run(_serve(dict(p.split("=", 1) for p in pairs), int(turns)))


if __name__ == "__main__":
    main()
