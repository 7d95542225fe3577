"""A chat model with a fixed latency and no script: for load benchmarks with many threads.

Every call waits `latency_s` without holding the event loop (`asyncio.sleep`), like a
remote model, then answers: with a call to `tool` when one is set and the conversation
does not end with that tool's result, otherwise with `answer`. It can be called any number
of times from any number of threads, so concurrent turns need no shared script.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.messages.tool import tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import Field


class LatencyChatModel(BaseChatModel):
    """Answers every call after `latency_s`: a tool call first (if `tool`), then `answer`."""

    latency_s: float
    answer: str
    tool: str | None = None
    tool_args: dict[str, Any] = Field(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "latency"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Accept tool definitions (which tool is called is fixed by `tool`)."""
        return self.bind(**kwargs)

    def _reply(self, messages: list[BaseMessage]) -> ChatResult:
        last = messages[-1] if messages else None
        if self.tool and not (isinstance(last, ToolMessage) and last.name == self.tool):
            call = tool_call(name=self.tool, args=self.tool_args, id=f"call_{uuid.uuid4().hex}")
            message = AIMessage(content="", tool_calls=[call])
        else:
            message = AIMessage(content=self.answer)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        time.sleep(self.latency_s)
        return self._reply(messages)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        await asyncio.sleep(self.latency_s)
        return self._reply(messages)
