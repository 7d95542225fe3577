"""Tracing never costs the agent a turn: Langfuse down, stalled, or the tracer failing."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any

import pytest

from core.observability.tracing import Tracing
from core.settings import LangfuseSection, Settings
from graph.runner import Runner, TurnRequest
from tests.support.otlp_receiver import OtlpReceiver, tracing_to


async def test_langfuse_down_leaves_the_agent_unaffected(
    make_settings: Callable[..., Settings], write_script
) -> None:
    with OtlpReceiver() as gone:
        url = gone.base_url  # a port nothing listens on once the receiver is closed
    settings = make_settings(model=write_script([{"content": "Hello."}]))
    tracing = tracing_to(url)
    async with Runner.open(settings, tracing=tracing) as runner:
        started = time.perf_counter()
        result = await runner.run_turn(TurnRequest("t-down", "U1", "hi"))
        elapsed = time.perf_counter() - started
    assert result.status == "completed" and result.text == "Hello."
    assert elapsed < 2.0


def test_without_keys_tracing_is_off() -> None:
    assert not Tracing(LangfuseSection()).enabled
    assert not Tracing(LangfuseSection(public_key="pk-lf-x")).enabled
    assert not Tracing(None).enabled


async def test_a_stalled_langfuse_never_blocks_the_agent(
    make_settings: Callable[..., Settings], write_script
) -> None:
    # A server that accepts connections and never answers: exports hang, turns do not.
    with socket.create_server(("127.0.0.1", 0)) as stalled:
        url = f"http://127.0.0.1:{stalled.getsockname()[1]}"
        replies = [{"content": f"Reply {n}."} for n in range(5)]
        settings = make_settings(model=write_script(replies))
        tracing = tracing_to(url, timeout=1)
        slowest = 0.0
        async with Runner.open(settings, tracing=tracing) as runner:
            for n in range(5):
                started = time.perf_counter()
                result = await runner.run_turn(TurnRequest(f"t-stall-{n}", "U1", "hi"))
                slowest = max(slowest, time.perf_counter() - started)
                assert result.status == "completed" and result.text == f"Reply {n}."
    assert slowest < 2.0


async def test_a_failing_tracer_leaves_the_run_unaffected(
    receiver: OtlpReceiver,
    make_settings: Callable[..., Settings],
    write_script,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = make_settings(model=write_script([{"content": "Still here."}]))
    tracing = tracing_to(receiver.base_url)
    assert tracing.exporter is not None

    def broken(**_: Any) -> None:
        raise RuntimeError("the SDK broke")

    monkeypatch.setattr(tracing.exporter.client, "start_observation", broken)
    async with Runner.open(settings, tracing=tracing) as runner:
        result = await runner.run_turn(TurnRequest("t-broken", "U1", "hi"))
    assert result.status == "completed" and result.text == "Still here."
    assert any("could not trace" in r.getMessage() for r in caplog.records)
    assert receiver.named("agent-turn") == []
