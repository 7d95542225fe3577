"""The model fails: timeouts and rate limits are retried with backoff, then answered gracefully.

Already covered in tests/integration/test_openai_provider.py: one 429 or 500 retried into an
answer (`test_a_failed_call_is_retried`), an error the client does not retry failing the turn
with the run id (`test_a_rejected_request_fails_the_turn`), malformed and cut-off tool-call
arguments (`test_malformed_tool_arguments_are_answered_with_an_error`,
`test_arguments_cut_off_are_not_executed`). Here: timeouts, the waits between attempts, and
what the person gets once the retries are used up.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from core.models import ModelResolver
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from prompts import replies
from tests.support.flaky_openai import Fault, FlakyOpenAIStub, Refuse, Stall
from tests.support.openai_stub import text

THREAD = "t-model"
QUESTION = "When does the Garlic Press coupon start"


@pytest.fixture
async def stub() -> AsyncIterator[FlakyOpenAIStub]:
    async with FlakyOpenAIStub() as server:
        yield server


def settings_for(
    make_settings: Callable[..., Settings], stub: FlakyOpenAIStub, **overrides: Any
) -> Settings:
    values: dict[str, Any] = {
        "model": "openai:gpt-4o-mini",
        "openai_base_url": stub.base_url,
        "model_timeout_s": 0.3,
        "model_max_retries": 2,
    }
    return make_settings(**{**values, **overrides})


async def ask(runner: Runner, message: str = QUESTION) -> Any:
    return await runner.run_turn(TurnRequest(thread_id=THREAD, user_id="U1", message=message))


async def test_a_timed_out_call_is_retried_after_a_backoff(
    stub: FlakyOpenAIStub, make_settings: Callable[..., Settings]
) -> None:
    stub.fail_next(Stall(1.0))
    stub.enqueue(text("It starts on Monday."))
    settings = settings_for(make_settings, stub)

    async with Runner.open(settings, models=ModelResolver(settings)) as runner:
        result = await ask(runner)

    assert (result.status, result.text) == ("completed", "It starts on Monday.")
    assert len(stub.requests) == 2
    # The client gave up after its 0.3 s timeout, then waited its backoff (≥ 0.375 s).
    [gap] = stub.gaps
    assert gap >= 0.3 + 0.37


async def test_rate_limits_are_retried_with_a_growing_backoff(
    stub: FlakyOpenAIStub, make_settings: Callable[..., Settings]
) -> None:
    stub.fail_next(Refuse(429), Refuse(429))
    stub.enqueue(text("It starts on Monday."))
    settings = settings_for(make_settings, stub)

    async with Runner.open(settings, models=ModelResolver(settings)) as runner:
        result = await ask(runner)

    assert (result.status, result.text) == ("completed", "It starts on Monday.")
    assert len(stub.requests) == 3
    # Exponential: 0.5 s then 1 s, each shortened by up to a quarter of random jitter.
    first, second = stub.gaps
    assert first >= 0.37
    assert second >= 0.74


async def test_retry_after_of_a_rate_limit_is_honoured(
    stub: FlakyOpenAIStub, make_settings: Callable[..., Settings]
) -> None:
    stub.fail_next(Refuse(429, retry_after_s=1.2))
    stub.enqueue(text("It starts on Monday."))
    settings = settings_for(make_settings, stub)

    async with Runner.open(settings, models=ModelResolver(settings)) as runner:
        result = await ask(runner)

    assert result.status == "completed"
    [gap] = stub.gaps
    assert gap >= 1.2  # not the client's own 0.5 s


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (Refuse(429, retry_after_s=0.05), "rate limited, HTTP 429"),
        (Refuse(503, retry_after_s=0.05), "server error, HTTP 503"),
        (Stall(1.0), "it did not answer in time"),
    ],
    ids=["429", "503", "timeout"],
)
async def test_an_outage_past_the_retries_gets_a_graceful_answer_and_the_thread_goes_on(
    stub: FlakyOpenAIStub, make_settings: Callable[..., Settings], fault: Fault, reason: str
) -> None:
    stub.fail_next(fault, fault, fault)
    settings = settings_for(make_settings, stub)

    async with Runner.open(settings, models=ModelResolver(settings)) as runner:
        result = await ask(runner)
        assert len(stub.requests) == 3  # the first attempt and two retries
        assert result.status == "completed"
        assert result.text == replies.model_unavailable(reason)
        assert result.tool_calls == []

        stub.enqueue(text("It starts on Monday."))
        later = await ask(runner, "Is the model back")
        history = await runner.history(THREAD)

    assert (later.status, later.text) == ("completed", "It starts on Monday.")
    # The first message was kept, answered with the apology, and sent again as history.
    assert [(type(m), m.text) for m in history] == [
        (HumanMessage, QUESTION),
        (AIMessage, replies.model_unavailable(reason)),
        (HumanMessage, "Is the model back"),
        (AIMessage, "It starts on Monday."),
    ]
    sent = [(m["role"], m["content"]) for m in stub.bodies[-1]["messages"][1:]]
    assert sent == [
        ("user", QUESTION),
        ("assistant", replies.model_unavailable(reason)),
        ("user", "Is the model back"),
    ]
