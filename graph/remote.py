"""The agent graph on a LangGraph Server: a `RemoteGraph` that reads like the compiled one.

With `AGENTLOOP_GRAPH_URL` set the runner drives this instead of an in-process graph; the
server runs the turns and keeps their checkpoints, so any number of workers share them.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from langchain_core.messages import AnyMessage, RemoveMessage
from langchain_core.runnables import RunnableConfig
from langgraph.pregel.remote import RemoteGraph
from langgraph.types import StateSnapshot
from langgraph_sdk.errors import NotFoundError
from pydantic import SecretStr, TypeAdapter

from core.run_context import RunContext

GRAPH_ID = "agent"
"""The graph's id in langgraph.json, which the server also uses as its default assistant."""
_THREAD_NAMESPACE = uuid.UUID("5f0f4b3e-8f55-4c43-9d0e-0b6f1e6a2c71")
_MESSAGE = TypeAdapter(AnyMessage)


def server_thread_id(thread_id: str) -> str:
    """Return the server's id of a thread: the server takes UUIDs only, others map by uuid5."""
    try:
        return str(uuid.UUID(thread_id))
    except ValueError:
        return str(uuid.uuid5(_THREAD_NAMESPACE, thread_id))


class RemoteAgent(RemoteGraph):
    """The `agent` graph of a LangGraph Server, speaking the runner's types.

    The server speaks JSON: thread ids are mapped to UUIDs, the `RunContext` is sent as a
    JSON object, messages in state and in `updates` chunks come back as message objects,
    and a thread the server has never seen reads as empty, as with a checkpointer.
    Callbacks and the run id of the config stay in this process (`RemoteGraph` drops them).
    """

    checkpointer = None
    """The server keeps the checkpoints; nothing is pruned from here."""

    @classmethod
    def at(cls, url: str, api_key: SecretStr | None = None) -> RemoteAgent:
        """Return the agent graph served at `url`, sending `api_key` as the caller's token.

        The key is given, never read from the environment here: the SDK would otherwise fall
        back to `LANGSMITH_API_KEY`, a tracing key that is no business of this server.
        """
        token = api_key.get_secret_value() if api_key is not None else None
        return cls(GRAPH_ID, url=url, api_key=token)

    async def astream(  # type: ignore[override]
        self,
        input: dict[str, Any] | Any,
        config: RunnableConfig | None = None,
        *,
        context: RunContext | None = None,
        subgraphs: bool = False,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Stream a run as the runner does: `(namespace, mode, chunk)` with `subgraphs=True`."""
        assert subgraphs, "the runner streams with subgraphs=True"
        payload = None if context is None else _json_context(context)
        async for namespace, mode, chunk in super().astream(
            input, _on_server(config or {}), context=payload, subgraphs=True, **kwargs
        ):
            if mode == "updates" and isinstance(chunk, dict):
                chunk = {node: _with_messages(update) for node, update in chunk.items()}
            yield namespace, mode, chunk

    async def aget_state(
        self, config: RunnableConfig, *, subgraphs: bool = False, **kwargs: Any
    ) -> StateSnapshot:
        """Return the thread's state; an unknown thread is an empty one."""
        try:
            snapshot = await super().aget_state(_on_server(config), subgraphs=subgraphs, **kwargs)
        except NotFoundError:
            return StateSnapshot({}, (), config, None, None, None, (), ())
        return snapshot._replace(values=_with_messages(snapshot.values))

    async def aupdate_state(
        self,
        config: RunnableConfig,
        values: dict[str, Any] | Any | None,
        as_node: str | None = None,
        **kwargs: Any,
    ) -> RunnableConfig:
        """Update the thread's state as `as_node`."""
        return await super().aupdate_state(_on_server(config), values, as_node, **kwargs)


def _on_server(config: RunnableConfig) -> RunnableConfig:
    configurable = config.get("configurable") or {}
    if "thread_id" not in configurable:
        return config
    thread_id = server_thread_id(str(configurable["thread_id"]))
    return {**config, "configurable": {**configurable, "thread_id": thread_id}}


def _json_context(context: RunContext) -> dict[str, Any]:
    # The server builds its own `RunContext` from the fields a caller may set; the
    # deployment's values are the server's.
    return context.model_dump(
        mode="json", include=set(RunContext.model_json_schema()["properties"])
    )


def _with_messages(values: Any) -> Any:
    if not isinstance(values, dict) or not isinstance(values.get("messages"), list):
        return values
    return {**values, "messages": [_message(m) for m in values["messages"]]}


def _message(value: dict[str, Any]) -> Any:
    # A node's update may remove messages; `AnyMessage` does not include the removal.
    if value.get("type") == "remove":
        return RemoveMessage(id=value["id"])
    return _MESSAGE.validate_python(value)
