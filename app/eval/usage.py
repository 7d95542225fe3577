"""Counts every model call made while a scenario step runs, with its tokens.

A LangChain configure hook adds the counter to every callback manager set up in the
step's context, so calls outside the graph's own callbacks (the thread-reply classifier)
are counted too. A model that reports no usage (the scripted one) gets estimates from
langchain-core's `count_tokens_approximately`, and the step says its tokens are estimated.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from uuid import UUID

from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.tracers.context import register_configure_hook

from core.observability.usage import UsageCollector


class ModelCallCounter(UsageCollector):
    """The audit's usage collector, plus estimates for calls whose model reports no usage."""

    def __init__(self) -> None:
        """Start with no calls."""
        super().__init__()
        self._estimated_input: dict[UUID, int] = {}

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[Any]],
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note the call and what its request would cost in tokens."""
        super().on_chat_model_start(
            serialized, messages, run_id=run_id, metadata=metadata, **kwargs
        )
        sent = [m for batch in messages for m in batch if isinstance(m, BaseMessage)]
        self._estimated_input[run_id] = count_tokens_approximately(sent)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the call; without reported usage, its tokens are estimated."""
        super().on_llm_end(response, run_id=run_id, **kwargs)
        call = self.calls[-1]
        estimated_input = self._estimated_input.pop(run_id, 0)
        call["estimated"] = False
        if call["input_tokens"] == 0 and call["output_tokens"] == 0:
            answers = [
                g.message
                for batch in response.generations
                for g in batch
                if isinstance(g, ChatGeneration)
            ]
            call["input_tokens"] = estimated_input
            call["output_tokens"] = count_tokens_approximately(answers)
            call["estimated"] = True

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Forget a failed call."""
        super().on_llm_error(error, run_id=run_id, **kwargs)
        self._estimated_input.pop(run_id, None)

    @property
    def input_tokens(self) -> int:
        """Input tokens of every call (reported or estimated)."""
        return sum(int(c["input_tokens"]) for c in self.calls)

    @property
    def output_tokens(self) -> int:
        """Output tokens of every call (reported or estimated)."""
        return sum(int(c["output_tokens"]) for c in self.calls)

    @property
    def estimated(self) -> bool:
        """Whether any call's tokens are estimates."""
        return any(c.get("estimated") for c in self.calls)


_counter: ContextVar[ModelCallCounter | None] = ContextVar("agentloop_eval_counter", default=None)
_hooked: list[bool] = []


@contextmanager
def count_model_calls() -> Iterator[ModelCallCounter]:
    """Count the model calls made in this context (and the tasks it starts)."""
    if not _hooked:
        # Registered on first use rather than at import: importing has no side effects.
        register_configure_hook(_counter, inheritable=True)
        _hooked.append(True)
    counter = ModelCallCounter()
    token = _counter.set(counter)
    try:
        yield counter
    finally:
        _counter.reset(token)
