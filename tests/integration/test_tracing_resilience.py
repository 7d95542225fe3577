"""Tracing never costs the agent a turn: Langfuse down, stalled, or the tracer failing."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import pytest

from core.observability.tracing import Tracing
from core.settings import Settings
from core.settings_sections import LangfuseSection
from graph.runner import Runner, TurnRequest
from tests.support.otlp_receiver import OtlpReceiver, tracing_to

EXPORT_WAIT_S = 60
"""How long the stalled exporter waits for an answer: far longer than any turn."""


async def test_langfuse_down_leaves_the_agent_unaffected(
    make_settings: Callable[..., Settings], write_script
) -> None:
    with OtlpReceiver() as gone:
        url = gone.base_url  # a port nothing listens on once the receiver is closed
    settings = make_settings(model=write_script([{"content": "Hello."}]))
    tracing = tracing_to(url)
    async with Runner.open(settings, tracing=tracing) as runner:
        result = await runner.run_turn(TurnRequest("t-down", "U1", "hi"))
    assert result.status == "completed" and result.text == "Hello."


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
        # Each export waits up to a minute; a turn that waited for one would outlast the guard.
        tracing = tracing_to(url, timeout=EXPORT_WAIT_S)
        async with Runner.open(settings, tracing=tracing) as runner:
            for n in range(5):
                turn = runner.run_turn(TurnRequest(f"t-stall-{n}", "U1", "hi"))
                result = await asyncio.wait_for(turn, timeout=EXPORT_WAIT_S / 3)
                assert result.status == "completed" and result.text == f"Reply {n}."


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
