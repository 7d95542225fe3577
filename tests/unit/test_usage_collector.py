"""The audit's usage record: one entry per model call, in order, with its model and node."""

from __future__ import annotations

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from core.observability.usage import UsageCollector


async def test_every_call_is_recorded_with_its_node_even_without_usage() -> None:
    usage = {"input_tokens": 120, "output_tokens": 30, "total_tokens": 150}
    replies = [
        AIMessage("Hi.", usage_metadata=usage, response_metadata={"model_name": "m-1"}),
        AIMessage("Checked."),  # a model that reports no usage and no name
        AIMessage("Again.", usage_metadata=usage, response_metadata={"model_name": "m-1"}),
    ]
    model = GenericFakeChatModel(messages=iter(replies))
    collector = UsageCollector()
    for node in ("act", "verify", "act"):
        config = {"callbacks": [collector], "metadata": {"langgraph_node": node}}
        await model.ainvoke("hello", config=config)  # type: ignore[arg-type]
    # langchain-core's UsageMetadataCallbackHandler keeps one sum per model name: the
    # audit's per-call rows, their order and nodes, and the unreported call would be lost.
    assert collector.calls == [
        {"model": "m-1", "node": "act", "input_tokens": 120, "output_tokens": 30, "tools": []},
        {"model": "", "node": "verify", "input_tokens": 0, "output_tokens": 0, "tools": []},
        {"model": "m-1", "node": "act", "input_tokens": 120, "output_tokens": 30, "tools": []},
    ]


async def test_each_call_records_the_tools_it_was_offered_in_their_order() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage("Hi."), AIMessage("Again.")]))
    collector = UsageCollector()
    offered = [
        {"type": "function", "function": {"name": name, "parameters": {}}}
        for name in ("resolve_holiday", "resolve_date_hint")
    ]
    await model.bind(tools=offered).ainvoke("hello", config={"callbacks": [collector]})
    await model.ainvoke("hello", config={"callbacks": [collector]})
    assert [call["tools"] for call in collector.calls] == [
        ["resolve_holiday", "resolve_date_hint"],
        [],
    ]


async def test_a_failed_call_is_not_recorded() -> None:
    model = GenericFakeChatModel(messages=iter([]))
    collector = UsageCollector()
    with pytest.raises(RuntimeError):  # the fake model has no reply left
        await model.ainvoke("hello", config={"callbacks": [collector]})
    assert collector.calls == []
    assert collector._started == {}
