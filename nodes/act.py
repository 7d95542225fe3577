"""act: one model call with the tools bound, under the turn's deadline."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import date, datetime
from zoneinfo import ZoneInfo

from langchain_core.messages import AIMessage, SystemMessage
from langchain_core.messages.tool import invalid_tool_call
from langgraph.runtime import Runtime

from app.models import ModelResolver
from graph import events
from graph.context import Context
from graph.state import ActUpdate, AgentState
from prompts import replies, system
from tools.registry import ToolRegistry


def run_date(ctx: Context) -> date:
    """Return the date the run treats as today."""
    if ctx.today:
        return date.fromisoformat(ctx.today)
    return datetime.now(ZoneInfo(ctx.timezone)).date()


class Act:
    """The act node: builds the prompt, calls the model, appends its answer."""

    def __init__(self, registry: ToolRegistry, models: ModelResolver | None = None) -> None:
        self._registry = registry
        self._models = models

    async def __call__(self, state: AgentState, runtime: Runtime[Context]) -> ActUpdate:
        """Call the model once; a passed deadline ends the turn instead."""
        ctx = runtime.context
        remaining = state.get("deadline", time.time() + ctx.turn_timeout_s) - time.time()
        if remaining <= 0:
            return {"cap": replies.turn_timeout(ctx.turn_timeout_s)}
        runtime.stream_writer(events.agent_state("thinking"))
        model = self._resolver().resolve(ctx.model)
        schemas = self._registry.openai_schemas()
        bound = model.bind_tools(schemas) if schemas else model
        prompt = [SystemMessage(content=self._system_prompt(state, ctx)), *state["messages"]]
        try:
            response = await asyncio.wait_for(bound.ainvoke(prompt), timeout=remaining)
        except TimeoutError:
            return {"cap": replies.turn_timeout(ctx.turn_timeout_s)}
        if not isinstance(response, AIMessage):
            response = AIMessage(content=response.text)
        return {"messages": [_distrust_cut_off_calls(response)]}

    def _resolver(self) -> ModelResolver:
        if self._models is None:
            from app.settings import get_settings

            self._models = ModelResolver(get_settings())
        return self._models

    def _system_prompt(self, state: AgentState, ctx: Context) -> str:
        return system.render(
            system.SystemPromptInputs(
                today=run_date(ctx),
                timezone=ctx.timezone,
                user_id=ctx.user_id,
                channel=ctx.channel,
                context_block=state.get("context_block", ""),
                feedback=tuple(state.get("feedback", [])),
                attempt=state.get("attempt", 0),
                max_attempts=ctx.verify_max_attempts,
                has_tools=len(self._registry) > 0,
            )
        )


def _distrust_cut_off_calls(message: AIMessage) -> AIMessage:
    """Turn tool calls of an answer cut off by the token limit into invalid calls.

    Streamed tool-call chunks are merged by completing partial JSON, so arguments cut off
    mid-string would otherwise look whole and run with truncated values.
    """
    if message.response_metadata.get("finish_reason") != "length" or not message.tool_calls:
        return message
    cut_off = [
        invalid_tool_call(
            name=call["name"],
            args=json.dumps(call["args"]),
            id=call["id"],
            error="the reply hit the token limit before these arguments were complete",
        )
        for call in message.tool_calls
    ]
    return message.model_copy(
        update={"tool_calls": [], "invalid_tool_calls": [*message.invalid_tool_calls, *cut_off]}
    )
