"""Each model call of a run (tokens, model name, the tools offered), for the audit.

langchain-core's `UsageMetadataCallbackHandler` keeps one running sum per model name, and
only for calls that report both: the audit needs a row per call, in order, with the graph
node that made it (act calls are matched to their messages), and counts a call whose model
reports no usage (the scripted one) as a call all the same.
"""

from __future__ import annotations

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


def _tool_names(invocation_params: dict[str, Any]) -> list[str]:
    """The names of the tools a call was bound with, in the order they were offered."""
    names = []
    for tool in invocation_params.get("tools") or []:
        if isinstance(tool, dict):
            function = tool.get("function") or tool
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                names.append(function["name"])
    return names
