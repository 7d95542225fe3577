"""Each model call of a run (tokens, model name, the tools offered), for the audit.

langchain-core's `UsageMetadataCallbackHandler` keeps one running sum per model name, and
only for calls that report both: the audit needs a row per call, in order, with the graph
node that made it (act calls are matched to their messages), and counts a call whose model
reports no usage (the scripted one) as a call all the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import ChatGeneration, LLMResult


class UsageCollector(BaseCallbackHandler):
    """Records every model call of a run: its model, graph node and token counts."""

    run_inline = True

    def __init__(self) -> None:
        """Start with no calls."""
        self.calls: list[dict[str, Any]] = []
        self._started: dict[UUID, dict[str, Any]] = {}

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[Any]],
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note which node calls which model, and the tools it was offered."""
        meta = metadata or {}
        self._started[run_id] = {
            "node": meta.get("langgraph_node"),
            "model": meta.get("ls_model_name"),
            "tools": _tool_names(kwargs.get("invocation_params") or {}),
        }

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the call's usage (zero when the provider reports none)."""
        started = self._started.pop(run_id, {})
        input_tokens = output_tokens = 0
        model = started.get("model")
        for generation in (g for batch in response.generations for g in batch):
            if isinstance(generation, ChatGeneration):
                usage = getattr(generation.message, "usage_metadata", None) or {}
                input_tokens += int(usage.get("input_tokens", 0))
                output_tokens += int(usage.get("output_tokens", 0))
                model = generation.message.response_metadata.get("model_name") or model
        model = (response.llm_output or {}).get("model_name") or model
        self.calls.append(
            {
                "model": model or "",
                "node": started.get("node"),
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "tools": started.get("tools", []),
            }
        )

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Forget a failed call."""
        self._started.pop(run_id, None)


_RUN: ContextVar[UsageCollector | None] = ContextVar("agentloop_run_usage", default=None)
"""The collector of the run the current task belongs to (node tasks inherit it)."""


class UsageRelay(BaseCallbackHandler):
    """A chat model's own callback: hands each call to the collector of the run making it.

    Attached to the models rather than to the run's config, it fires for model calls only:
    a handler in the run's config makes LangChain set up callbacks for every node, route and
    channel write of the graph, which cost more than the whole of some turns' own work.
    """

    run_inline = True

    def on_chat_model_start(self, serialized: dict[str, Any], messages: Any, **kwargs: Any) -> None:
        """Pass the start of a call on to the run's collector."""
        collector = _RUN.get()
        if collector is not None:
            collector.on_chat_model_start(serialized, messages, **kwargs)

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        """Pass the end of a call on to the run's collector."""
        collector = _RUN.get()
        if collector is not None:
            collector.on_llm_end(response, **kwargs)

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        """Pass a failed call on to the run's collector."""
        collector = _RUN.get()
        if collector is not None:
            collector.on_llm_error(error, **kwargs)


RELAY = UsageRelay()


@contextmanager
def collecting(collector: UsageCollector) -> Iterator[None]:
    """Send the model calls made in this context (its tasks included) to `collector`."""
    token = _RUN.set(collector)
    try:
        yield
    finally:
        _RUN.reset(token)


def relayed(model: Any) -> Any:
    """`model` with the relay among its own callbacks (added once)."""
    callbacks = getattr(model, "callbacks", None)
    if isinstance(callbacks, list) and RELAY not in callbacks:
        model.callbacks = [*callbacks, RELAY]
    elif callbacks is None:
        model.callbacks = [RELAY]
    return model


def _tool_names(invocation_params: dict[str, Any]) -> list[str]:
    """The names of the tools a call was bound with, in the order they were offered."""
    names = []
    for tool in invocation_params.get("tools") or []:
        if isinstance(tool, dict):
            function = tool.get("function") or tool
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                names.append(function["name"])
    return names
